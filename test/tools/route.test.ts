/**
 * browser_route end to end against real Chromium: a page whose script fetches /api/items (fetch) and
 * /api/other (XHR) and keeps what it got. The fixture's request log shows what really left the browser.
 */
import t from 'tap';
import { call } from '../fixtures/daemon.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import { html, type FixtureSite } from '../fixtures/site.js';

let stack: Stack;
let site: FixtureSite;

const HELPERS = `
  async function viaFetch(url, opts) {
    try {
      const r = await fetch(url, opts);
      return { status: r.status, type: r.headers.get('content-type'), mock: r.headers.get('x-mock'), body: await r.text() };
    } catch (e) { return { error: String(e) }; }
  }
  function viaXhr(url) {
    return new Promise((res) => {
      const x = new XMLHttpRequest();
      x.open('GET', url);
      x.onload = () => res({ status: x.status, type: x.getResponseHeader('content-type'), mock: x.getResponseHeader('x-mock'), body: x.responseText });
      x.onerror = () => res({ error: 'xhr network error' });
      x.send();
    });
  }`;

t.before(async () => {
  stack = await startStack();
  site = stack.site;
  site.route('/api/items', (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(req.method === 'POST' ? '{"posted":true}' : '{"items":["real"]}');
  });
  site.route('/api/other', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"other":"real"}');
  });
  site.route('/app', html(`<pre id="out">loading</pre><script>${HELPERS}
    window.done = Promise.all([viaFetch('/api/items'), viaXhr('/api/other')]).then(([items, other]) => {
      document.getElementById('out').textContent = JSON.stringify({ items, other });
      return { items, other };
    });</script>`, '', 'App'));
  site.route('/post', html(`<script>${HELPERS}
    window.done = Promise.all([viaFetch('/api/items', { method: 'POST', body: 'x=1' }), viaFetch('/api/items')]).then(([post, get]) => ({ post, get }));</script>`, '', 'Post'));
  site.route('/worker.js', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/javascript' });
    res.end(`fetch('/api/items').then((r) => r.text()).then((body) => postMessage({ body }), (e) => postMessage({ error: String(e) }));`);
  });
  site.route('/with-worker', html(`<script>const w = new Worker('/worker.js'); window.done = new Promise((r) => { w.onmessage = (e) => r(e.data); });</script>`, '', 'Worker'));
});
t.teardown(() => stack.stop());

const route = (args: Record<string, unknown>) => stack.rest('browser_route', args);

async function open(path: string, mode: 'read' | 'act' = 'read'): Promise<string> {
  const r = await stack.rest('browser_open', { url: `${site.url}${path}`, mode, live: 'none' });
  if (r.status !== 200) throw new Error(JSON.stringify(r.json));
  return r.json.tab;
}

/** Loads a page in the tab and returns what its script saw, plus the requests that reached the fixture meanwhile. */
async function load(tab: string, path: string): Promise<{ seen: any; reached: { method: string; path: string }[] }> {
  const mark = site.requests.length;
  const nav = await stack.rest('browser_navigate', { tab, url: `${site.url}${path}` });
  if (nav.status !== 200) throw new Error(JSON.stringify(nav.json));
  const r = await stack.rest('browser_evaluate', { tab, js: '(async () => JSON.stringify(await window.done))()' });
  if (r.status !== 200) throw new Error(JSON.stringify(r.json));
  const fenced = /<<<page \w+ [^\n]*>>>\n([\s\S]*?)\n<<<end [0-9a-f]{12}>>>/.exec(r.json.text);
  if (!fenced) throw new Error(`no result in ${r.json.text}`);
  return { seen: JSON.parse(fenced[1]), reached: site.requests.slice(mark).map((q) => ({ method: q.method, path: q.path })) };
}

const reachedPath = (reached: { path: string }[], p: string) => reached.some((q) => q.path === p);

t.test('without routes the page gets the site\'s answers', async (t) => {
  const tab = await open('/app');
  const { seen, reached } = await load(tab, '/app');
  t.same(seen.items, { status: 200, type: 'application/json', mock: null, body: '{"items":["real"]}' });
  t.equal(seen.other.body, '{"other":"real"}');
  t.ok(reachedPath(reached, '/api/items') && reachedPath(reached, '/api/other'));
  t.same((await route({ tab })).json.routes, [], 'list is the default action');
});

t.test('mock: status, body, content type and headers reach the page; the site is not asked', async (t) => {
  const tab = await open('/app');
  const add = await route({ tab, action: 'add', urlPattern: '**/api/items', kind: 'mock', status: 201, body: '{"items":["mocked"]}', contentType: 'application/json', headers: { 'X-Mock': 'yes' } });
  t.equal(add.status, 200, JSON.stringify(add.json));
  t.equal(add.json.route.id, 'r1');
  const { seen, reached } = await load(tab, '/app');
  t.same(seen.items, { status: 201, type: 'application/json', mock: 'yes', body: '{"items":["mocked"]}' });
  t.equal(seen.other.body, '{"other":"real"}', 'a URL the pattern does not match goes to the site');
  t.notOk(reachedPath(reached, '/api/items'), 'the fixture never saw /api/items');
  t.ok(reachedPath(reached, '/api/other'));
  const list = (await route({ tab })).json.routes;
  t.match(list, [{ id: 'r1', kind: 'mock', status: 201, contentType: 'application/json', headers: { 'X-Mock': 'yes' }, bodyBytes: 20, hits: 1 }]);
  t.notOk('body' in list[0], 'the body itself is not echoed back');
  const text = (await call(stack.client, 'browser_route', { tab })).text;
  t.match(text, /r1: mock 201 application\/json, 20 bytes for \*\*\/api\/items \(any method, any type\); 1 hit/);
});

t.test('block: the page sees a network error, the site sees nothing, browser_log has a line', async (t) => {
  const tab = await open('/app');
  await route({ tab, action: 'add', urlPattern: '/api/other', kind: 'block' });
  const { seen, reached } = await load(tab, '/app');
  t.same(seen.other, { error: 'xhr network error' });
  t.equal(seen.items.body, '{"items":["real"]}');
  t.notOk(reachedPath(reached, '/api/other'));
  const log = (await stack.rest('browser_log', { tab })).json.entries;
  t.match(log.filter((e: any) => e.kind === 'route_blocked'), [{ method: 'GET', url: `${site.url}/api/other`, detail: /blocked by route r1/ }]);
});

t.test('an act tab (which holds no request while nothing could refuse or answer one) meets a route from the next load on, and the site again once it is removed', async (t) => {
  const tab = await open('/app', 'act');
  t.equal((await load(tab, '/app')).seen.items.body, '{"items":["real"]}');
  await route({ tab, action: 'add', urlPattern: '**/api/items', kind: 'mock', body: '{"items":["mocked"]}', contentType: 'application/json' });
  const mocked = await load(tab, '/app');
  t.equal(mocked.seen.items.body, '{"items":["mocked"]}');
  t.notOk(reachedPath(mocked.reached, '/api/items'));
  await route({ tab, action: 'remove' });
  const real = await load(tab, '/app');
  t.equal(real.seen.items.body, '{"items":["real"]}');
  t.ok(reachedPath(real.reached, '/api/items'));
});

t.test('fail: the page sees a network error with the reason given', async (t) => {
  const tab = await open('/app');
  await route({ tab, action: 'add', urlPattern: '**/api/items', kind: 'fail', errorReason: 'TimedOut' });
  const { seen, reached } = await load(tab, '/app');
  t.match(seen.items, { error: /TypeError: Failed to fetch/ });
  t.notOk(reachedPath(reached, '/api/items'));
  // Chromium reports the failure to the tab's network log on its own schedule: look until it is there.
  let failed: any;
  for (let i = 0; i < 40 && !failed; i++) {
    failed = (await stack.rest('browser_network', { tab, failedOnly: true })).json.responses.find((r: any) => r.url.endsWith('/api/items'));
    if (!failed) await new Promise((r) => setTimeout(r, 50));
  }
  t.equal(failed?.failed, 'net::ERR_TIMED_OUT');
  t.notOk((await stack.rest('browser_log', { tab })).json.entries.some((e: any) => e.kind === 'route_blocked'), 'fail is not logged as a block');
});

t.test('resourceTypes and methods narrow a route', async (t) => {
  const tab = await open('/app', 'act');
  await route({ tab, action: 'add', urlPattern: '*', kind: 'mock', body: 'only xhr', resourceTypes: ['xhr'] });
  const { seen, reached } = await load(tab, '/app');
  t.ok(reachedPath(reached, '/app'), 'the document is not an xhr: it came from the site and its script ran');
  t.equal(seen.other.body, 'only xhr', 'the XHR is mocked');
  t.equal(seen.items.body, 'only xhr', 'so is the fetch(): Chromium pauses it as an XHR, and "xhr" means both');
  t.equal(seen.other.type, 'text/plain; charset=utf-8', 'a body without a type is plain text');
  t.notOk(reachedPath(reached, '/api/items') || reachedPath(reached, '/api/other'));
  await route({ tab, action: 'add', urlPattern: '*', kind: 'block', resourceTypes: ['script', 'image'] });
  t.equal((await load(tab, '/app')).seen.items.body, 'only xhr', 'a newer route for other types does not take the xhr');

  await route({ tab, action: 'remove' });
  await route({ tab, action: 'add', urlPattern: '/api/items', kind: 'mock', body: 'post mocked', methods: ['post'] });
  const post = await load(tab, '/post');
  t.equal(post.seen.post.body, 'post mocked');
  t.equal(post.seen.get.body, '{"items":["real"]}');
  t.notOk(post.reached.some((q) => q.method === 'POST'), 'the POST never reached the site');
  t.ok(post.reached.some((q) => q.method === 'GET' && q.path === '/api/items'), 'the GET did');
});

t.test('the newest matching route wins; remove one, then all', async (t) => {
  const tab = await open('/app');
  await route({ tab, action: 'add', urlPattern: '/api/', kind: 'mock', body: 'first' });
  await route({ tab, action: 'add', urlPattern: '**/api/items', kind: 'mock', body: 'second' });
  let { seen } = await load(tab, '/app');
  t.equal(seen.items.body, 'second', 'r2 is newer and matches');
  t.equal(seen.other.body, 'first', 'only r1 matches /api/other');
  t.same((await route({ tab })).json.routes.map((r: any) => [r.id, r.hits]), [['r1', 1], ['r2', 1]]);

  const removed = await route({ tab, action: 'remove', id: 'r2' });
  t.same(removed.json.removed, ['r2']);
  ({ seen } = await load(tab, '/app'));
  t.equal(seen.items.body, 'first');

  const unknown = await route({ tab, action: 'remove', id: 'r9' });
  t.equal(unknown.status, 404);
  t.equal(unknown.json.error.code, 'not_found');
  t.same((await route({ tab })).json.routes.map((r: any) => r.id), ['r1'], 'a failed remove removed nothing');

  t.same((await route({ tab, action: 'remove' })).json.removed, ['r1']);
  ({ seen } = await load(tab, '/app'));
  t.equal(seen.items.body, '{"items":["real"]}');
  t.equal(seen.other.body, '{"other":"real"}');
});

t.test('bad input is a validation_error naming the parameter, and adds nothing', async (t) => {
  const tab = await open('/app');
  await route({ tab, action: 'add', urlPattern: '/keep', kind: 'block' });
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ kind: 'mock', urlPattern: '*', body: 'x'.repeat(1024 * 1024 + 1) }, /"body"/],
    [{ kind: 'mock', urlPattern: '*', headers: { 'set-COOKIE': 'sid=1' } }, /"headers".*Set-Cookie/],
    [{ kind: 'mock', urlPattern: '*', status: 600 }, /"status"/],
    [{ kind: 'mock', urlPattern: '*', status: 99 }, /"status"/],
    [{ kind: 'fail', urlPattern: '*', errorReason: 'Exploded' }, /"errorReason"/],
    [{ kind: 'block', urlPattern: '*', errorReason: 'Failed' }, /"errorReason"/],
    [{ kind: 'block' }, /urlPattern/],
    [{ urlPattern: '*' }, /"kind"/],
    [{ kind: 'teleport', urlPattern: '*' }, /"kind"/],
    [{ kind: 'block', urlPattern: '*', resourceTypes: ['XHR'] }, /"resourceTypes/],
  ];
  for (const [args, message] of cases) {
    const r = await route({ tab, action: 'add', ...args });
    t.equal(r.status, 400, JSON.stringify(args).slice(0, 80));
    t.equal(r.json.error.code, 'validation_error');
    t.match(r.json.error.message, message);
    t.ok(r.json.error.next);
  }
  const misplaced = await route({ tab, action: 'list', urlPattern: '*' });
  t.equal(misplaced.json.error.code, 'validation_error');
  t.match(misplaced.json.error.message, /"urlPattern" goes with action "add"/);
  t.same((await route({ tab })).json.routes.map((r: any) => r.urlPattern), ['/keep'], 'nothing was added');

  for (let i = 1; i < 50; i++) {
    const r = await route({ tab, action: 'add', urlPattern: `/p${i}`, kind: 'block' });
    t.equal(r.status, 200);
  }
  const over = await route({ tab, action: 'add', urlPattern: '/one-too-many', kind: 'block' });
  t.equal(over.json.error.code, 'validation_error');
  t.match(over.json.error.message, /at most 50 routes/);
  const all = (await route({ tab })).json.routes;
  t.equal(all.length, 50);
  t.notOk(all.some((r: any) => r.urlPattern === '/one-too-many'));
});

t.test('routes are per tab, and another user cannot see or change them', async (t) => {
  const mocked = await open('/app');
  await route({ tab: mocked, action: 'add', urlPattern: '*', kind: 'mock', body: 'mocked', resourceTypes: ['fetch', 'xhr'] });
  const plain = await open('/app');
  t.equal((await load(plain, '/app')).seen.items.body, '{"items":["real"]}', 'the other tab is unaffected');
  t.equal((await load(mocked, '/app')).seen.items.body, 'mocked');

  const bob = await stack.d.addUser('bob');
  for (const args of [{ tab: mocked }, { tab: mocked, action: 'remove' }, { tab: mocked, action: 'add', urlPattern: '*', kind: 'block' }]) {
    const r = await stack.d.rest(bob, 'POST', '/v1/tools/browser_route', args);
    t.equal(r.status, 404);
    t.equal(r.json.error.code, 'not_found');
  }
  t.same((await route({ tab: mocked })).json.routes.map((r: any) => [r.id, r.kind]), [['r1', 'mock']], "alice's route is as it was");

  await stack.rest('browser_close_tab', { tab: mocked });
  t.equal((await route({ tab: mocked })).json.error.code, 'not_found', 'a closed tab has no routes to list');
});

t.test('a read tab never sends a write, even when a route would mock it: the write rules answer first', async (t) => {
  const tab = await open('/post', 'read');
  await route({ tab, action: 'add', urlPattern: '/api/items', kind: 'mock', body: 'post mocked', methods: ['POST'] });
  const { seen, reached } = await load(tab, '/post');
  t.match(seen.post, { error: /Failed to fetch/ }, 'the page gets the block, not the mock');
  t.equal(seen.get.body, '{"items":["real"]}');
  t.notOk(reached.some((q) => q.method === 'POST'), 'the fixture saw no POST');
  t.same(site.writes(), [], 'no write reached the site in this file');
  const log = (await stack.rest('browser_log', { tab })).json.entries;
  t.ok(log.some((e: any) => e.kind === 'write_blocked' && e.method === 'POST'), 'logged as a read-tab block');
  t.same((await route({ tab })).json.routes[0].hits, 0, 'the route was never asked');
});

t.test("a dedicated worker's requests meet the tab's routes", async (t) => {
  const tab = await open('/app');
  await route({ tab, action: 'add', urlPattern: '**/api/items', kind: 'mock', body: 'worker mocked' });
  const { seen, reached } = await load(tab, '/with-worker');
  t.same(seen, { body: 'worker mocked' });
  t.notOk(reachedPath(reached, '/api/items'));
});

t.test('a blocked document: navigate says which route stopped it', async (t) => {
  const tab = await open('/app');
  await route({ tab, action: 'add', urlPattern: '/app', kind: 'block', resourceTypes: ['document'] });
  const r = await stack.rest('browser_navigate', { tab, url: `${site.url}/app?again` });
  t.equal(r.json.error.code, 'navigation_failed');
  t.match(r.json.error.message, /blocked by route r1/);
  t.match(r.json.error.next, /browser_route/);
});

t.test('routes are kept when the browser is killed and the tab reopened under its id', async (t) => {
  const tab = await open('/app');
  await route({ tab, action: 'add', urlPattern: '**/api/items', kind: 'mock', body: '{"items":["kept"]}', contentType: 'application/json' });
  // Only this tab is reopened after the kill, so every request the site sees next is this tab's.
  for (const other of (await stack.rest('browser_tabs')).json.tabs) if (other.id !== tab) await stack.rest('browser_close_tab', { tab: other.id });
  const inst = stack.d.daemon.env.pool.peek('alice')!;
  const exited = new Promise((r) => (inst as any).chromium.process.once('exit', r));
  process.kill(inst.pid!, 'SIGKILL');
  await exited;
  const { seen, reached } = await load(tab, '/app');
  t.equal(seen.items.body, '{"items":["kept"]}', 'the reopened tab still answers from the route');
  t.notOk(reachedPath(reached, "/api/items"), "and the site is still not asked, also when the tab reopened at its page");
  t.match((await route({ tab })).json.routes, [{ id: 'r1', kind: 'mock' }]);
});
