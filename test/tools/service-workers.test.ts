/**
 * Service workers work in act tabs (they used to never complete a request) and give read tabs no way around the
 * write rules: a read tab registers none and its requests bypass the ones that control its origin.
 */
import t from 'tap';
import { call } from '../fixtures/daemon.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import { html } from '../fixtures/site.js';
import { WebSocketServer } from 'ws';

let stack: Stack;
/** What reached the site's WebSocket endpoint, by message. */
const socketMessages: string[] = [];
const reports = new Map<string, (r: string) => void>();
const reported = (who: string) => new Promise<string>((resolve) => reports.set(who, resolve));

/** A page that opens a WebSocket to its own host and reports whether it opened (`who` says who served it). */
const LANDING = (who: string) => `<title>${who}</title><script>
  let ws;
  const report = (r) => fetch('/sw-done?who=landing&r=' + r + '-${who}');
  try { ws = new WebSocket('ws://' + location.host + '/sw-ws'); ws.onopen = () => (ws.send('from-${who}'), report('open')); ws.onerror = () => report('error'); }
  catch (e) { report('error'); }
</script>`;

t.before(async () => {
  stack = await startStack();
  const site = stack.site;
  site.route('/sw.js', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/javascript' });
    res.end(`
      self.addEventListener('install', () => self.skipWaiting());
      self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
      self.addEventListener('fetch', (e) => {
        if (new URL(e.request.url).pathname === '/sw-hello') {
          e.respondWith(new Response('<title>answered by the worker</title>', { headers: { 'content-type': 'text/html' } }));
          return;
        }
        // The worker answers this page itself: no request for it reaches the network.
        if (new URL(e.request.url).pathname === '/sw-landing') {
          e.respondWith(new Response(${JSON.stringify(LANDING('sw'))}, { headers: { 'content-type': 'text/html' } }));
          return;
        }
        if (new URL(e.request.url).pathname !== '/sw-echo') return;
        e.respondWith(fetch(e.request).then((r) => r.text()).then((body) => new Response('sw:' + body)));
      });`);
  });
  site.route('/sw-landing', html(LANDING('network')));
  site.route('/sw-write-free', html('<p>a writable site</p>'));
  new WebSocketServer({ server: site.server }).on('connection', (ws) => ws.on('message', (m) => socketMessages.push(String(m))));
  site.route('/sw-echo', (_req, res, body) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(body || 'get');
  });
  site.route('/sw-done', (req, res) => {
    const q = new URL(req.url ?? '', 'http://x').searchParams;
    reports.get(q.get('who') ?? '')?.(q.get('r') ?? '');
    res.writeHead(200);
    res.end();
  });
  const done = (who: string) => `fetch('/sw-done?who=${who}&r=' + encodeURIComponent(r));`;
  site.route('/sw-page', html(`<h1>SW</h1><script>
    (async () => {
      let r;
      try {
        await navigator.serviceWorker.register('/sw.js');
        await navigator.serviceWorker.ready;
        if (!navigator.serviceWorker.controller) await new Promise((res) => navigator.serviceWorker.addEventListener('controllerchange', res, { once: true }));
        r = 'answered ' + await (await fetch('/sw-echo', { method: 'POST', body: 'from-' + new URLSearchParams(location.search).get('who') })).text();
      } catch (e) { r = 'failed ' + e.name; }
      ${done("' + new URLSearchParams(location.search).get('who') + '")}
    })();</script>`));
  // A page of an origin a service worker controls: its write goes through the worker unless the tab bypasses it.
  site.route('/sw-write', html(`<h1>Write</h1><script>
    (async () => {
      let r;
      try { r = 'answered ' + await (await fetch('/sw-echo', { method: 'POST', body: 'from-read-write' })).text(); } catch (e) { r = 'failed ' + e.name; }
      ${done('read-write')}
    })();</script>`));
});
t.teardown(() => stack.stop());

const posts = (body: string) => stack.site.requests.filter((r) => r.method === 'POST' && r.path === '/sw-echo' && r.body === body);

t.test('in an act tab a service worker installs, controls the page and completes its requests', async (t) => {
  const got = reported('act');
  const open = await call(stack.client, 'browser_open', { url: `${stack.site.url}/sw-page?who=act`, mode: 'act' });
  t.notOk(open.isError, open.text);
  t.equal(await got, 'answered sw:from-act', 'the worker answered with what the site sent it');
  t.equal(posts('from-act').length, 1, 'the act tab wrote through its worker');
});

t.test('a read tab registers no service worker and its writes do not go through one', async (t) => {
  const got = reported('read');
  await call(stack.client, 'browser_open', { url: `${stack.site.url}/sw-page?who=read` });
  t.match(await got, /^failed/, 'no service worker for a read tab');
  t.equal(posts('from-read').length, 0);
  // The act tab's worker controls this origin: a read tab's POST must still meet the write guard.
  const write = reported('read-write');
  await call(stack.client, 'browser_open', { url: `${stack.site.url}/sw-write` });
  t.match(await write, /^failed/, 'the write was refused, not answered by the worker');
  t.equal(posts('from-read-write').length, 0, 'nothing reached the site');
});

/** Stops every service worker of alice's browser, as Chromium does to one left idle for a while. */
async function stopWorkers(tab: string) {
  const page = await (await stack.d.daemon.env.pool.get('alice')).getTab(tab);
  await page.send('ServiceWorker.enable', {});
  await page.send('ServiceWorker.stopAllWorkers', {});
}

const tabOf = (text: string) => /(?:Opened tab|Tab) (t\d+)/.exec(text)![1]!;

t.test('a worker stopped when idle starts again for the next page, and answers it', async (t) => {
  // Started again, the worker waits paused on the sessions it already had; it used to be never let go, and
  // the page that needed it hung until the navigation timed out.
  const open = await call(stack.client, 'browser_open', { url: `${stack.site.url}/sw-write-free`, mode: 'act' });
  const tab = tabOf(open.text);
  await stopWorkers(tab);
  const nav = await call(stack.client, 'browser_navigate', { tab, url: `${stack.site.url}/sw-hello` });
  t.notOk(nav.isError, nav.text);
  t.match(nav.text, /answered by the worker/);
});

t.test("once the user's policy makes a site read-only, its service worker sends no write for an act tab", async (t) => {
  // The worker the first test installed still controls this origin (service workers need a secure context:
  // a loopback address is one, a name mapped to loopback is not).
  await stack.d.daemon.env.policies.upsert('alice', { pattern: '127.0.0.1', access: 'read_only' });
  const write = reported('read-write');
  await call(stack.client, 'browser_open', { url: `${stack.site.url}/sw-write`, mode: 'act' });
  t.match(await write, /^failed/, 'the write was refused');
  t.equal(posts('from-read-write').length, 0, 'nothing reached the site');
});

t.test("a read-only site's service worker cannot answer an act tab's page around the guard", async (t) => {
  // The worker installed while the site was writable answers /sw-landing itself. Such an answer never passes
  // the tab's request interception, so the page it makes would escape what a read-only site's page gets (no
  // WebSocket, no WebRTC) if the worker were let answer it. (The policy of the test above still stands.)
  const landed = reported('landing');
  // The tab starts on a writable site, so it is the navigation into the read-only one that must bring the rules.
  const open = await call(stack.client, 'browser_open', { url: `http://away.test:${stack.site.port}/sw-write-free`, mode: 'act' });
  t.notOk(open.isError, open.text);
  const tab = /Opened tab (t\d+)/.exec(open.text)![1];
  const nav = await call(stack.client, 'browser_navigate', { tab, url: `${stack.site.url}/sw-landing` });
  t.notOk(nav.isError, nav.text);
  t.match(await landed, /^error-network$/, 'the page came from the site, and could not open a WebSocket');
  t.ok(stack.site.requests.some((r) => r.path === '/sw-landing'), 'its request reached the site through the tab');
  t.same(socketMessages, [], 'nothing reached the site over a WebSocket');
});

t.test('started again on a read-only site, the worker still answers no page and sends no write', async (t) => {
  const open = await call(stack.client, 'browser_open', { url: `http://away.test:${stack.site.port}/sw-write-free`, mode: 'act' });
  const tab = tabOf(open.text);
  await stopWorkers(tab);
  const nav = await call(stack.client, 'browser_navigate', { tab, url: `${stack.site.url}/sw-hello` });
  t.notOk(nav.isError, nav.text);
  t.notMatch(nav.text, /answered by the worker/, 'the page came from the site');
  const write = reported('read-write');
  await call(stack.client, 'browser_navigate', { tab, url: `${stack.site.url}/sw-write` });
  t.match(await write, /^failed/, 'the write was refused');
  t.equal(posts('from-read-write').length, 0, 'nothing reached the site');
});
