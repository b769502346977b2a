// The tab's traffic recorder against real Chromium: what a page, its cross-site frame and its worker send,
// with the headers really sent, redirects as hops, bodies only when asked, failures, WebSocket frames and
// EventSource messages; nothing kept while nobody listens, and the write guard untouched by it.
import t from 'tap';
import { WebSocketServer } from 'ws';
import { startStack, type Stack } from '../fixtures/stack.js';
import { html } from '../fixtures/site.js';
import type { Exchange } from '../../daemon/browser/traffic-types.js';

let stack: Stack;

t.before(async () => {
  stack = await startStack();
  const { site } = stack;
  const wss = new WebSocketServer({ noServer: true });
  site.server.on('upgrade', (req, socket, head) => wss.handleUpgrade(req, socket, head, (ws) => ws.on('message', (m) => ws.send(`echo:${m}`))));
  const json = (body: unknown, headers: Record<string, string> = {}) => (_req: unknown, res: import('node:http').ServerResponse) =>
    void res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*', ...headers }).end(JSON.stringify(body));
  site.route('/api/one', json({ one: 1 }, { 'set-cookie': 'sid=abc; Path=/' }));
  site.route('/api/old', (_req, res) => void res.writeHead(302, { location: '/api/one?moved=1' }).end());
  site.route('/api/post', json({ posted: true }));
  site.route('/worker.js', (_req, res) => void res.writeHead(200, { 'content-type': 'text/javascript' }).end(`fetch('/api/one?from=worker').then(() => postMessage('w'));`));
  site.route('/events', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    res.write('event: tick\nid: 1\ndata: first\n\n');
    res.write('data: second\n\n');
  });
  site.route('/frame', html(`<script>fetch('/api/one?from=frame')</script>`));
  site.route('/app', html(`<div id="state">working</div>
<iframe src="http://other.test:${site.port}/frame"></iframe>
<script>
(async () => {
  document.cookie = 'pref=1';
  await fetch('/api/one', { headers: { authorization: 'Bearer t0k' } });
  await fetch('/api/old');
  await fetch('/api/post', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ a: 1 }) });
  await fetch('/api/missing-host', {}).catch(() => {});
  await new Promise((r) => { const w = new Worker('/worker.js'); w.onmessage = r; });
  await new Promise((r) => { const ws = new WebSocket('ws://' + location.host + '/ws'); ws.onopen = () => ws.send('hi'); ws.onmessage = () => { ws.close(); r(); }; });
  await new Promise((r) => { const es = new EventSource('/events'); let n = 0; es.onmessage = () => { if (++n === 1) { es.close(); r(); } }; es.addEventListener('tick', () => {}); });
  document.getElementById('state').textContent = 'done';
})();
</script>`));
});
t.teardown(() => stack.stop());

async function tabOf(id: string) {
  return (await stack.d.daemon.env.pool.get('alice')).getTab(id);
}

t.test('a page, its cross-site frame and its worker, as they were sent', async (t) => {
  const opened = await stack.rest('browser_open', { url: 'about:blank', mode: 'act' });
  const tabId = opened.json.tab as string;
  const tab = await tabOf(tabId);
  const seen: Exchange[] = [];
  const sub = tab.traffic.subscribe({ wantsBody: (ex) => ex.request.url.includes('/api/one'), done: (ex) => void seen.push(structuredClone(ex)) });
  t.teardown(() => sub.dispose());
  await stack.rest('browser_navigate', { tab: tabId, url: `${stack.site.url}/app` });
  await stack.rest('browser_wait', { tab: tabId, text: 'done', timeoutMs: 15000 });
  const urls = seen.map((e) => e.request.url);
  const one = seen.find((e) => e.request.url === `${stack.site.url}/api/one`)!;
  t.ok(one, urls.join('\n'));
  t.equal(one.request.headers.authorization ?? one.request.headers.Authorization, 'Bearer t0k', 'the header really sent');
  t.match(one.request.headers.cookie ?? one.request.headers.Cookie, /pref=1/, 'cookies as sent (ExtraInfo)');
  t.match(one.response?.headers['set-cookie'] ?? '', /sid=abc/, 'Set-Cookie as received');
  t.same(JSON.parse(one.body!.base64 ? Buffer.from(one.body!.text, 'base64').toString() : one.body!.text), { one: 1 }, 'body fetched when asked');
  const hop = seen.find((e) => e.request.url.endsWith('/api/old'))!;
  t.equal(hop.response?.status, 302);
  t.equal(hop.redirectUrl, `${stack.site.url}/api/one?moved=1`);
  const after = seen.find((e) => e.request.url.endsWith('/api/one?moved=1'))!;
  t.match(after.id, /:1$/, 'the hop after a redirect is an exchange of its own');
  t.ok(after.body, 'asked for, fetched after the redirect too');
  const post = seen.find((e) => e.request.url.endsWith('/api/post'))!;
  t.equal(post.request.method, 'POST');
  t.equal(post.request.postData, '{"a":1}');
  t.notOk(post.body, 'no body fetched when no sink asked');
  t.ok(seen.find((e) => e.request.url.endsWith('/api/one?from=frame')), 'the cross-site frame (its own session)');
  t.ok(seen.find((e) => e.request.url.endsWith('/api/one?from=worker')), `the worker: ${urls.join(' ')}`);
  const ws = seen.find((e) => e.resourceType === 'websocket')!;
  t.match(ws.messages, [{ type: 'send', data: 'hi', opcode: 1 }, { type: 'receive', data: 'echo:hi' }]);
  t.equal(ws.response?.status, 101);
});

t.test('EventSource messages and failures', async (t) => {
  const tabId = (await stack.rest('browser_open', { url: 'about:blank', mode: 'act' })).json.tab as string;
  const tab = await tabOf(tabId);
  const seen: Exchange[] = [];
  const sub = tab.traffic.subscribe({ done: (ex) => void seen.push(ex) });
  await stack.rest('browser_navigate', { tab: tabId, url: `${stack.site.url}/app` });
  await stack.rest('browser_wait', { tab: tabId, text: 'done', timeoutMs: 15000 });
  // The stream stays open on the server: still open here, with its messages.
  const sse = [...seen, ...tab.traffic.openExchanges()].find((e) => e.resourceType === 'eventsource')!;
  t.ok(sse, 'the EventSource exchange');
  t.match(sse.messages, [{ type: 'receive', data: 'first', eventName: 'tick', eventId: '1' }]);
  sub.dispose();
  t.same(tab.traffic.openExchanges(), [], 'nothing kept once nobody listens');
});

t.test('a read tab: the recorder sees the refused write, the site never does', async (t) => {
  const tabId = (await stack.rest('browser_open', { url: 'about:blank' })).json.tab as string;
  const tab = await tabOf(tabId);
  const seen: Exchange[] = [];
  const sub = tab.traffic.subscribe({ done: (ex) => void seen.push(ex) });
  t.teardown(() => sub.dispose());
  const posts = () => stack.site.requests.filter((r) => r.method === 'POST' && r.path === '/api/post').length;
  const before = posts();
  await stack.rest('browser_navigate', { tab: tabId, url: `${stack.site.url}/app` });
  await stack.rest('browser_wait', { tab: tabId, text: 'done', timeoutMs: 15000 });
  const post = seen.find((e) => e.request.url.endsWith('/api/post'))!;
  t.ok(post.failed, 'recorded as failed');
  t.equal(posts(), before, 'the site saw no POST');
});
