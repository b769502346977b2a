/** Tabs: ids, default tab, focus, close, no tab left behind, URL normalisation, isolation between users, capacity. */
import t from 'tap';
import { startTestDaemon, call, type TestDaemon } from '../fixtures/daemon.js';
import { startSite, html, type FixtureSite } from '../fixtures/site.js';

let d: TestDaemon;
let site: FixtureSite;
let alice: string;
let bob: string;

t.before(async () => {
  site = await startSite();
  // One tab built at a time over the host, as on a two-core machine, whatever cores this one has.
  d = await startTestDaemon({ tabStarts: 1 });
  alice = await d.addUser('alice');
  bob = await d.addUser('bob');
  site.route('/a', html('<h1>Page A</h1>', '', 'A'));
  site.route('/b', html('<h1>Page B</h1>', '', 'B'));
  site.route('/hang', () => undefined);
});
t.teardown(async () => {
  await d.stop();
  await site.close();
});

t.test('ids count up, the newest or focused tab is the default, close removes for good', async (t) => {
  const c = await d.mcp(alice);
  const a = await call(c, 'browser_open', { url: `${site.url}/a` });
  const b = await call(c, 'browser_open', { url: `${site.url}/b`, mode: 'act' });
  const ta = /Opened tab (t\d+)/.exec(a.text)![1];
  const tb = /Opened tab (t\d+)/.exec(b.text)![1];
  t.equal(Number(tb.slice(1)), Number(ta.slice(1)) + 1);
  t.match((await call(c, 'browser_read_text')).text, /Page B/, 'default is the newest tab');
  await call(c, 'browser_focus_tab', { tab: ta });
  t.match((await call(c, 'browser_read_text')).text, /Page A/, 'default is the focused tab');
  const list = await call(c, 'browser_tabs');
  t.match(list.text, new RegExp(`${ta} \\(default\\) \\[read\\]`));
  t.match(list.text, new RegExp(`${tb} \\[act\\]`));
  await call(c, 'browser_close_tab', { tab: tb });
  t.notMatch((await call(c, 'browser_tabs')).text, new RegExp(`${tb}\\b`));
  const gone = await call(c, 'browser_read_text', { tab: tb });
  t.ok(gone.isError);
  t.match(gone.text, /not_found/);
  await c.close();
  const c2 = await d.mcp(alice);
  t.match((await call(c2, 'browser_tabs')).text, new RegExp(ta), 'ending the connection closed no tab');
  t.match((await call(c2, 'browser_read_text', { tab: ta })).text, /Page A/, 'and the tab is still live');
});

t.test('a new tab builds no browser UI pages (each tab has a window, and a window must not load its address-bar popups)', async (t) => {
  const c = await d.mcp(alice);
  for (const path of ['/a', '/b']) t.notOk((await call(c, 'browser_open', { url: `${site.url}${path}`, mode: 'act' })).isError);
  const conn = d.daemon.env.pool.peek('alice')!.conn!;
  const { targetInfos } = await conn.send('Target.getTargets', {});
  t.ok(targetInfos.some((x) => x.type === 'page' && x.url.endsWith('/b')), 'the tabs are there');
  t.same(targetInfos.filter((x) => x.type === 'browser_ui').map((x) => x.url), [], 'and no chrome:// UI page beside them');
});

t.test('a browser holds pages for its tabs only, and outlives its last tab', async (t) => {
  const carol = await d.addUser('carol');
  const c = await d.mcp(carol);
  const first = await call(c, 'browser_open', { url: `${site.url}/a` });
  const id = /Opened tab (t\d+)/.exec(first.text)![1]!;
  const browser = d.daemon.env.pool.peek('carol')!;
  const pages = async () => (await browser.conn!.send('Target.getTargets', {})).targetInfos.filter((x) => x.type === 'page').map((x) => x.url);
  t.same(await pages(), [`${site.url}/a`], 'no start-up page beside the tab (it kept a renderer of its own)');
  t.notOk((await call(c, 'browser_close_tab', { tab: id })).isError);
  t.same(await pages(), [], 'the close answers once the page is gone, and no page is left');
  // browser_read's scratch tab would join a window that is there; with none left it gets one of its own.
  const read = await call(c, 'browser_read', { urls: [`${site.url}/a`] });
  t.notOk(read.isError, read.text);
  t.match(read.text, /Page A/, 'a read with no window open still reads');
  // A read tab leaves through about:blank, and Chromium dropped about one close in three sent after that.
  for (let i = 0; i < 8; i++) {
    const r = await call(c, 'browser_open', { url: `${site.url}/a`, mode: 'read' });
    t.notOk((await call(c, 'browser_close_tab', { tab: /Opened tab (t\d+)/.exec(r.text)![1]! })).isError);
  }
  await call(c, 'browser_read', { urls: [1, 2, 3, 4].map((n) => `${site.url}/a?n=${n}`) });
  t.same(await pages(), [], 'no closed read tab or read page is left open');
  t.notOk((await call(c, 'browser_open', { url: `${site.url}/b` })).isError);
  t.equal(d.daemon.env.pool.peek('carol'), browser, 'the next tab opens in the same browser, not a relaunched one');
  t.ok(browser.alive);
  t.same(await pages(), [`${site.url}/b`]);
});

t.test('tabs asked for at once by two users are all built, one at a time over the host', async (t) => {
  const starts = d.daemon.env.pool.tabStarts;
  const before = starts.started;
  const a = await d.mcp(alice);
  const b = await d.mcp(bob);
  const opens = [a, b, a, b, a, b].map((c, i) => call(c, 'browser_open', { url: `${site.url}/${i % 2 ? 'b' : 'a'}`, mode: 'act' }));
  const answers = await Promise.all(opens);
  t.same(answers.filter((r) => r.isError).map((r) => r.text), [], 'every open answered with its tab');
  for (const [i, r] of answers.entries()) t.match(r.text, /Opened tab t\d+/, `open ${i}`);
  t.ok(starts.started - before >= 6, 'each was built in a turn');
  t.equal(starts.peak, 1, 'never two builds at once');
  t.equal(starts.queued, 0, 'and no one left waiting');
  const idsOf = (parity: number) => answers.filter((_, i) => i % 2 === parity).map((r) => /Opened tab (t\d+)/.exec(r.text)![1]);
  for (const [c, ids] of [[a, idsOf(0)], [b, idsOf(1)]] as const) {
    const listed = (await call(c, 'browser_tabs')).text;
    for (const id of ids) t.match(listed, new RegExp(`\\b${id}\\b`), `${id} is listed for its user`);
  }
});

t.test('a first load that fails leaves no tab behind; example.com means https', async (t) => {
  const c = await d.mcp(alice);
  const before = (await d.rest(alice, 'GET', '/v1/tabs')).json.tabs.length;
  const r = await call(c, 'browser_open', { url: 'http://127.0.0.1:1/' });
  t.ok(r.isError);
  t.match(r.text, /navigation_failed/);
  // No DNS on this machine: the name fails to resolve, and the error names the URL that was asked for.
  const https = await call(c, 'browser_open', { url: 'example.invalid' });
  t.ok(https.isError);
  t.match(https.text, /https:\/\/example\.invalid\//);
  t.equal((await d.rest(alice, 'GET', '/v1/tabs')).json.tabs.length, before, 'no tab left behind');
  const targets = d.daemon.env.pool.peek('alice')!.tabs.size;
  t.equal(targets, before, 'no live target left behind either');
  const file = await call(c, 'browser_open', { url: 'file:///etc/passwd' });
  t.ok(file.isError);
});

t.test('user B cannot list, read or act on user A\'s tabs', async (t) => {
  const a = await d.mcp(alice);
  const b = await d.mcp(bob);
  const opened = await call(a, 'browser_open', { url: `${site.url}/a` });
  const ta = /Opened tab (t\d+)/.exec(opened.text)![1];
  const listB = await call(b, 'browser_tabs');
  t.notMatch(listB.text, /\/a\b/, "bob's list does not show alice's tab");
  const readB = await call(b, 'browser_read_text', { tab: ta });
  t.ok(readB.isError);
  t.notMatch(readB.text, /Page A/);
  const clickB = await call(b, 'browser_click', { tab: ta, x: 5, y: 5 });
  t.ok(clickB.isError);
  const closeB = await d.rest(bob, 'DELETE', `/v1/tabs/${ta}`);
  t.equal(closeB.status, 404);
  t.match((await call(a, 'browser_read_text', { tab: ta })).text, /Page A/, "alice's tab is untouched");
  t.not(d.daemon.env.pool.peek('alice')!.pid, d.daemon.env.pool.peek('bob')?.pid, 'separate browsers');
});

t.test("a page that never answers times out for its user and slows no one else", async (t) => {
  const a = await d.mcp(alice);
  const b = await d.mcp(bob);
  await call(a, 'browser_open', { url: `${site.url}/a` });
  await call(b, 'browser_open', { url: `${site.url}/b` });
  // Order, not a stopwatch: bob's answer must arrive while alice's navigation is still pending.
  let slowDone = false;
  const slow = call(a, 'browser_navigate', { url: `${site.url}/hang`, timeoutMs: 8000 }).finally(() => {
    slowDone = true;
  });
  await site.waitFor((r) => r.path === '/hang');
  const fast = await call(b, 'browser_read_text');
  t.match(fast.text, /Page B/);
  t.equal(slowDone, false, "bob's call answered while alice's page was still hanging");
  const r = await slow;
  t.ok(r.isError);
  t.match(r.text, /timeout/);
  t.equal((await d.rest(alice, 'GET', '/health')).json.ok, true, 'the daemon is fine');
  t.match((await call(a, 'browser_navigate', { url: `${site.url}/a` })).text, /\/a/, 'the tab works again');
});
