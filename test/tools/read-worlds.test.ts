/**
 * Read mode holds in every world of a page and on every way out:
 * - a WebSocket opened from an isolated world a timed CDP session made (Page.createIsolatedWorld) reaches no
 *   server from a read tab, nor from an act tab on a site the user's policy makes read-only;
 * - a read-only site's very first script (inline, in <head>) opens no WebSocket in an act tab, in any of many
 *   fresh tabs (the guard must be in force before the document's first script, not raced by it);
 * - a read tab closing (browser_close_tab, and browser_read's scratch tabs, hidden or drawn, between pages and
 *   at the end of the read) lets no keepalive fetch or beacon out of its visibilitychange or pagehide handlers;
 * - a read-only rule added while a page of that site is open holds for that page at once.
 * Each route first runs where it is allowed (an act tab on an ordinary site): the control that proves the route
 * is real, so the read half can fail. The server counts WebSocket handshakes (not messages) and non-GET requests.
 */
import t from 'tap';
import CDP from 'chrome-remote-interface';
import { WebSocketServer } from 'ws';
import { call } from '../fixtures/daemon.js';
import { html } from '../fixtures/site.js';
import { startStack, type Stack } from '../fixtures/stack.js';

let stack: Stack;
let roOrigin: string;
/** The path (with query) of every WebSocket handshake that reached the server. */
const handshakes: string[] = [];
const reports = new Map<string, (r: string) => void>();

t.before(async () => {
  stack = await startStack();
  roOrigin = `http://ro.test:${stack.site.port}`;
  await stack.d.daemon.env.policies.upsert('alice', { pattern: 'ro.test', access: 'read_only' });
  const wss = new WebSocketServer({ noServer: true });
  stack.site.server.on('upgrade', (req, socket, head) => {
    handshakes.push(req.url ?? '');
    wss.handleUpgrade(req, socket, head, (ws) => ws.on('message', () => ws.send('echo')));
  });
  t.teardown(() => new Promise<void>((r) => wss.close(() => r())));
  stack.site.route('/plain', html('<h1>Plain</h1>'));
  stack.site.route('/report', (req, res) => {
    const q = new URL(req.url ?? '', 'http://x').searchParams;
    reports.get(q.get('id') ?? '')?.(q.get('r') ?? '');
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
  // The page's first script opens a WebSocket before anything else of the page exists, then reports.
  stack.site.route('/first-script', (req, res) => {
    const id = new URL(req.url ?? '', 'http://x').searchParams.get('id');
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><html><head><script>
      (() => {
        const report = (r) => fetch('/report?id=${id}&r=' + r);
        try {
          const ws = new WebSocket(location.origin.replace(/^http/, 'ws') + '/ws?first=${id}');
          ws.onopen = () => { ws.send('first'); report('open'); };
          ws.onerror = () => report('error');
        } catch (e) { report('throw'); }
      })();
    </script></head><body><h1>First script</h1></body></html>`);
  });
  // Writes sent while the tab goes away, from visibilitychange and from pagehide: a keepalive POST, a beacon
  // and an image (a GET, which is allowed: it shows the handler ran in the act tab).
  stack.site.route('/leaving', html('<h1>Leaving</h1>', `<script>
    const out = (when) => {
      const tag = new URLSearchParams(location.search).get('tag') + '-' + when;
      try { fetch('/sink?tag=' + tag, { method: 'POST', body: 'keepalive ' + tag, keepalive: true }); } catch {}
      try { navigator.sendBeacon('/sink?tag=' + tag, 'beacon ' + tag); } catch {}
      try { new Image().src = '/img?tag=' + tag; } catch {}
    };
    document.addEventListener('visibilitychange', () => out('visibility'));
    addEventListener('pagehide', () => out('pagehide'));
  </script>`));
  stack.site.route('/sink', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
  stack.site.route('/img', (_req, res) => {
    res.writeHead(200, { 'content-type': 'image/gif' });
    res.end(Buffer.from('R0lGODlhAQABAAAAACw=', 'base64'));
  });
  // Loads after everything a closed tab could still have sent: the event a test waits on instead of a timer.
  stack.site.route('/later', html('<h1>Later</h1>', `<script>fetch('/report?id=later-' + new URLSearchParams(location.search).get('n'));</script>`));
});
t.teardown(() => stack.stop());

const tabId = (text: string) => /Opened tab (t\d+)/.exec(text)![1];

function expectReport(id: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${id} never reported back`)), 20000);
    reports.set(id, (r) => {
      clearTimeout(timer);
      reports.delete(id);
      resolve(r);
    });
  });
}

async function open(url: string, mode: 'read' | 'act'): Promise<string> {
  const r = await call(stack.client, 'browser_open', { url, mode, visible: false });
  if (r.isError) throw new Error(r.text);
  return tabId(r.text);
}

/** Every write that reached the server for a tag: non-GET requests to /sink. */
const writesFor = (tag: string) => stack.site.requests.filter((r) => r.method !== 'GET' && r.path.includes(`tag=${tag}-`)).map((r) => `${r.method} ${r.body}`);

let laterSeq = 0;
/** Waits until a page loaded after now has reported back: whatever a closed tab sent was sent before that. */
async function afterEverything() {
  const n = ++laterSeq;
  const reported = expectReport(`later-${n}`);
  const tab = await open(`${stack.site.url}/later?n=${n}`, 'act');
  await reported;
  await call(stack.client, 'browser_close_tab', { tab });
}

async function cdpSession() {
  const r = await call(stack.client, 'browser_sessions', { action: 'start', minutes: 5 });
  if (r.isError) throw new Error(r.text);
  const id = /CDP session (cdp_[0-9a-f]{16})/.exec(r.text)![1];
  const url = /Connect a CDP client to: (\S+)/.exec(r.text)![1];
  const client = await CDP({ target: url, local: true });
  return {
    client,
    async stop() {
      await client.close().catch(() => undefined);
      await call(stack.client, 'browser_sessions', { action: 'stop', id });
    },
  };
}

/** Opens a WebSocket from a fresh isolated world of a daemon tab's page, through the CDP session; answers how it went. */
async function isolatedWorldSocket(client: CDP.Client, tab: string, tag: string): Promise<string> {
  const targetId = stack.d.daemon.env.pool.peek('alice')!.tabs.get(tab)!.targetId;
  const { sessionId } = await client.Target.attachToTarget({ targetId, flatten: true });
  try {
    const tree: any = await client.send('Page.getFrameTree', undefined, sessionId);
    // The proxy now refuses other worlds in read realms (read-worlds.ts): refused is as good as not connecting.
    const world: any = await client.send('Page.createIsolatedWorld', { frameId: tree.frameTree.frame.id, worldName: `probe-${tag}` }, sessionId).catch((e: any) => ({ refused: String(e?.message ?? e) }));
    if (world.refused) return `refused: ${world.refused}`;
    const expression = `new Promise((resolve) => {
      try {
        const ws = new WebSocket(location.origin.replace(/^http/, 'ws') + '/ws?world=${tag}');
        ws.onopen = () => { ws.send('from an isolated world'); resolve('open'); };
        ws.onerror = () => resolve('error');
      } catch (e) { resolve('throw ' + e.name); }
    })`;
    const r: any = await client.send('Runtime.evaluate', { expression, contextId: world.executionContextId, awaitPromise: true, returnByValue: true }, sessionId);
    return String(r.result.value);
  } finally {
    await client.Target.detachFromTarget({ sessionId }).catch(() => undefined);
  }
}

t.test('a WebSocket from an isolated world made through a CDP session: opens in an act tab, reaches nothing from a read tab or a read-only site', async (t) => {
  const s = await cdpSession();
  t.teardown(() => s.stop());
  const control = await open(`${stack.site.url}/plain`, 'act');
  t.equal(await isolatedWorldSocket(s.client, control, 'control'), 'open', 'the route is real: the act tab\'s isolated world connects');
  t.ok(handshakes.some((h) => h.includes('world=control')), 'and its handshake reached the server');
  await call(stack.client, 'browser_close_tab', { tab: control });
  for (let i = 0; i < 5; i++) {
    const read = await open(`${stack.site.url}/plain?i=${i}`, 'read');
    t.not(await isolatedWorldSocket(s.client, read, `read-${i}`), 'open', `read tab ${i}: the isolated world's WebSocket did not open`);
    await call(stack.client, 'browser_close_tab', { tab: read });
    const ro = await open(`${roOrigin}/plain?i=${i}`, 'act');
    t.not(await isolatedWorldSocket(s.client, ro, `ro-${i}`), 'open', `act tab ${i} on a read-only site: the isolated world's WebSocket did not open`);
    await call(stack.client, 'browser_close_tab', { tab: ro });
  }
  t.same(handshakes.filter((h) => /world=(read|ro)-/.test(h)), [], 'no handshake from a read tab or a read-only site reached the server');
});

t.test("a read-only site's first inline script opens no WebSocket, in any of many fresh act tabs", async (t) => {
  const controlReport = expectReport('control');
  const control = await open(`${stack.site.url}/first-script?id=control`, 'act');
  t.equal(await controlReport, 'open', 'the route is real: on an ordinary site the first script connects');
  await call(stack.client, 'browser_close_tab', { tab: control });
  for (let i = 0; i < 10; i++) {
    const reported = expectReport(`ro-${i}`);
    const tab = await open(`${roOrigin}/first-script?id=ro-${i}`, 'act');
    t.not(await reported, 'open', `tab ${i}: the first script's WebSocket did not open`);
    await call(stack.client, 'browser_close_tab', { tab });
  }
  t.same(handshakes.filter((h) => /first=ro-/.test(h)), [], 'no handshake from the read-only site reached the server');
});

t.test('closing a tab: its visibilitychange and pagehide writes go out from an act tab, none from a read tab', async (t) => {
  const act = await open(`${stack.site.url}/leaving?tag=close-act`, 'act');
  await call(stack.client, 'browser_close_tab', { tab: act });
  await stack.site.waitFor((r) => r.method === 'POST' && r.path === '/sink?tag=close-act-pagehide' && r.body.startsWith('keepalive'));
  t.ok(writesFor('close-act').length >= 1, `the route is real: the act tab wrote on the way out (${writesFor('close-act')})`);
  for (let i = 0; i < 6; i++) {
    const read = await open(`${stack.site.url}/leaving?tag=close-read${i}`, 'read');
    const closed = await call(stack.client, 'browser_close_tab', { tab: read });
    t.notOk(closed.isError, closed.text);
  }
  await afterEverything();
  for (let i = 0; i < 6; i++) t.same(writesFor(`close-read${i}`), [], `read tab ${i} sent no write on the way out`);
});

t.test("browser_read's scratch tabs send no write from visibilitychange or pagehide, between pages or when they close", async (t) => {
  // Hidden scratch tabs, and drawn ones (scrollUntil keeps them in a window of their own, visible): a visible
  // page gets a visibilitychange as it goes.
  for (const [name, extra] of [['hidden', {}], ['drawn', { scrollUntil: { item: 'h1', count: 1, maxScrolls: 1 } }]] as const) {
    const urls = [0, 1, 2, 3].map((i) => `${stack.site.url}/leaving?tag=scratch-${name}${i}`);
    const r = await call(stack.client, 'browser_read', { urls, ...extra });
    t.notOk(r.isError, r.text);
    await afterEverything();
    for (let i = 0; i < 4; i++) t.same(writesFor(`scratch-${name}${i}`), [], `${name} scratch page ${i} sent no write on the way out`);
  }
});

t.test('a read-only rule added while a page is open holds for that page: no WebSocket from any world', async (t) => {
  const s = await cdpSession();
  t.teardown(() => s.stop());
  const tab = await open(`http://late.test:${stack.site.port}/plain`, 'act');
  t.equal(await isolatedWorldSocket(s.client, tab, 'late-before'), 'open', 'before the rule, the page may connect');
  // Resolves once the rule is in force in the user's open tabs.
  await stack.d.daemon.env.policies.upsert('alice', { pattern: 'late.test', access: 'read_only' });
  t.teardown(() => stack.d.daemon.env.policies.remove('alice', 'late.test'));
  t.not(await isolatedWorldSocket(s.client, tab, 'late-after'), 'open', 'after it, the same page cannot');
  t.same(handshakes.filter((h) => h.includes('world=late-after')), [], 'no handshake reached the server');
  await call(stack.client, 'browser_close_tab', { tab });
});
