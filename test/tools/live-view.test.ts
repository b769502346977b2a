/**
 * Live view: links from browser_open, POST /v1/tabs, a popup's first listing and browser_viewer; the viewer
 * page, loaded in a second headless Chromium (the person's browser), draws the tab's screencast and forwards
 * a click only on an interactive link. At the protocol level (the `ws` client): view-only links refuse input
 * on the server, expired and unknown links refuse, another user's tabs are out of reach, a foreign Origin or
 * a rebinding Host is refused, and a connected viewer keeps its link open.
 */
import t from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { get as httpGet } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import WebSocket from 'ws';
import { call } from '../fixtures/daemon.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import { html } from '../fixtures/site.js';
import { CdpConnection } from '../../daemon/cdp/connection.js';
import { PipeTransport } from '../../daemon/cdp/pipe-transport.js';
import { createLiveLink } from '../../daemon/viewer/index.js';
import { AFTER_LAST_VIEWER_MS } from '../../daemon/live/links.js';

let stack: Stack;
let bobToken: string;

// ------------------------------------------------------------------ the person's browser: a second Chromium

interface Viewer {
  goto(url: string): Promise<void>;
  evaluate<T = unknown>(expression: string, timeoutMs?: number): Promise<T>;
  clickAt(x: number, y: number): Promise<void>;
  close(): Promise<void>;
}

async function startViewerBrowser(): Promise<Viewer> {
  const dir = mkdtempSync(join(tmpdir(), 'browserd-viewer-'));
  const args = [
    '--headless=new',
    '--remote-debugging-pipe',
    `--user-data-dir=${dir}`,
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--metrics-recording-only',
    '--no-first-run',
    '--no-default-browser-check',
    // It loads only the daemon's loopback page; any other name fails at once instead of leaving the machine.
    '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
    '--window-size=1000,800',
    ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
    'about:blank',
  ];
  const child: ChildProcess = spawn(process.env.BROWSERD_CHROME || '/usr/bin/chromium', args, { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });
  const conn = CdpConnection.connect(new PipeTransport(child.stdio[3] as Writable, child.stdio[4] as Readable));
  const { targetId } = await conn.send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await conn.send('Target.attachToTarget', { targetId, flatten: true });
  await conn.send('Page.enable', {}, sessionId);
  await conn.send('Runtime.enable', {}, sessionId);
  return {
    async goto(url) {
      const loaded = conn.waitFor('Page.loadEventFired', sessionId);
      await conn.send('Page.navigate', { url }, sessionId);
      await loaded;
    },
    async evaluate(expression, timeoutMs = 20000) {
      const r = await conn.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true }, sessionId, timeoutMs);
      if (r.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
      return r.result.value;
    },
    async clickAt(x, y) {
      for (const type of ['mousePressed', 'mouseReleased'] as const) await conn.send('Input.dispatchMouseEvent', { type, x, y, button: 'left', clickCount: 1 }, sessionId);
    },
    async close() {
      await conn.sendMayFail('Browser.close', {}, undefined, 5000);
      await conn.close();
      if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
      rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}

/** Resolves with the RGB at the middle of the viewer's canvas once a drawn frame there matches `want`. */
function canvasShows(want: 'red' | 'blue' | 'green') {
  return `new Promise((resolve) => {
    const want = ${JSON.stringify(want)};
    const check = () => {
      const c = document.getElementById('screen');
      if (c.width) {
        const [r, g, b] = c.getContext('2d').getImageData(c.width >> 1, c.height >> 1, 1, 1).data;
        const match = want === 'red' ? r > 200 && g < 60 && b < 60 : want === 'blue' ? b > 200 && r < 60 && g < 60 : g > 200 && r < 60 && b < 60;
        if (match) return resolve([r, g, b]);
      }
      document.addEventListener('live-frame', check, { once: true });
    };
    check();
  })`;
}

// ------------------------------------------------------------------ the protocol, with the ws client

interface Socket {
  ws: WebSocket;
  /** The next message (already received or still to come) matching pred. */
  next(pred: (m: any) => boolean): Promise<any>;
  send(m: unknown): void;
  close(): Promise<void>;
}

function wsUrl(liveUrl: string) {
  return `${liveUrl.replace(/^http/, 'ws')}/ws`;
}

function openSocket(liveUrl: string, headers: Record<string, string> = {}): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl(liveUrl), { headers });
    const seen: any[] = [];
    const waiters: { pred: (m: any) => boolean; resolve: (m: any) => void }[] = [];
    ws.on('message', (data) => {
      const m = JSON.parse(String(data));
      const w = waiters.find((x) => x.pred(m));
      if (w) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      } else seen.push(m);
    });
    ws.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode })));
    ws.once('error', reject);
    ws.once('open', () =>
      resolve({
        ws,
        next(pred) {
          const i = seen.findIndex(pred);
          if (i >= 0) return Promise.resolve(seen.splice(i, 1)[0]);
          return new Promise((res) => waiters.push({ pred, resolve: res }));
        },
        send: (m) => ws.send(JSON.stringify(m)),
        close: () => new Promise<void>((res) => {
          if (ws.readyState === WebSocket.CLOSED) return res();
          ws.once('close', () => res());
          ws.close();
        }),
      }),
    );
  });
}

async function refusedStatus(liveUrl: string, headers: Record<string, string> = {}): Promise<number | undefined> {
  try {
    const s = await openSocket(liveUrl, headers);
    await s.close();
    return undefined;
  } catch (e) {
    return (e as { status?: number }).status;
  }
}

/** Waits until the daemon has stopped every screencast (the last viewer's close is handled after the client sees it). */
async function screencastsStopped() {
  while (stack.d.daemon.env.live.casts.size > 0) await new Promise((r) => setImmediate(r));
}

/** GET with a Host header of our choosing (fetch does not let a caller set Host). */
function statusWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpGet(url, { headers: { Host: host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
  });
}

const liveUrlOf = (text: string) => /(http:\/\/127\.0\.0\.1:\d+\/live\/[a-z2-7]{10}\.[A-Za-z0-9_-]{43})/.exec(text)?.[1];

t.before(async () => {
  stack = await startStack();
  bobToken = await stack.d.addUser('bob');
  const site = stack.site;
  const page = (colour: string) => html(`
    <input id="field" autocomplete="off" style="position:absolute;left:0;top:0;width:50%;height:10%;font-size:20px"
      oninput="fetch('/typed?v=' + encodeURIComponent(this.value))">
    <script>
      let n = 0;
      document.addEventListener('click', (e) => {
        if (e.target.id === 'field') return;
        fetch('/clicked?n=' + (++n) + '&x=' + e.clientX + '&y=' + e.clientY + '&w=' + innerWidth + '&h=' + innerHeight + '&from=' + encodeURIComponent(location.search.slice(1)));
      });
    </script>`, `<style>html,body{margin:0;height:100%;background:${colour}}</style>`, colour);
  site.route('/red', page('#ff0000'));
  site.route('/blue', page('#0000ff'));
  site.route('/green', page('#00ff00'));
  site.route('/clicked', (_req, res) => res.end('ok'));
  site.route('/typed', (_req, res) => res.end('ok'));
  site.route('/opener', html(`<button onclick="window.open('/red?pop=1')">Pop</button>`, '', 'Opener'));
});
t.teardown(() => stack.stop());

t.test('browser_open and POST /v1/tabs answer a live link; live: none answers none', async (t) => {
  const opened = await call(stack.client, 'browser_open', { url: `${stack.site.url}/red` });
  t.notOk(opened.isError, 'browser_open answered');
  const url = liveUrlOf(opened.text);
  t.ok(url, 'the MCP answer carries the live link');
  const rest = await stack.d.rest(stack.token, 'POST', '/v1/tabs', { url: `${stack.site.url}/red` });
  t.equal(rest.status, 201);
  t.match(rest.json.live_url, /^http:\/\/127\.0\.0\.1:\d+\/live\/[a-z2-7]{10}\.[A-Za-z0-9_-]{43}$/, 'POST /v1/tabs answers live_url');
  t.equal(rest.json.live, 'interactive', 'take-over is on for alice: interactive');
  t.not(rest.json.live_url, url, 'every link has its own token');
  const none = await stack.d.rest(stack.token, 'POST', '/v1/tabs', { url: `${stack.site.url}/red`, live: 'none' });
  t.equal(none.status, 201);
  t.notOk(none.json.live_url, 'live: none gives no link');
  t.notMatch(none.json.text, /\/live\//);

  const page = await fetch(rest.json.live_url);
  t.equal(page.status, 200, 'the viewer page opens without a bearer token: the link is the credential');
  const csp = page.headers.get('content-security-policy') ?? '';
  t.match(csp, /frame-ancestors 'self'/, 'only the daemon\'s own pages may frame the viewer');
  t.match(csp, /default-src 'none'/);
  t.match(csp, /script-src 'sha256-/, 'only the viewer\'s own script runs');
  t.equal(page.headers.get('referrer-policy'), 'no-referrer', 'the token never leaves in a Referer');
  t.match(page.headers.get('cache-control'), /no-store/);
  t.match(await page.text(), /<canvas id="screen"/);
});

t.test('the viewer page in a second Chromium shows the tab and forwards a click on an interactive link', async (t) => {
  const opened = await stack.rest('browser_open', { url: `${stack.site.url}/red?page=viewer` });
  const tab = opened.json.tab;
  const viewer = await startViewerBrowser();
  t.teardown(() => viewer.close());
  await viewer.goto(opened.json.live_url);
  const rgb = await viewer.evaluate<number[]>(canvasShows('red'));
  t.ok(rgb[0] > 200 && rgb[1] < 60 && rgb[2] < 60, `the middle of the canvas is the red page (${rgb})`);
  t.equal(await viewer.evaluate('document.body.dataset.mode'), 'interactive');

  // A click in the middle of the canvas lands in the middle of the tab: scaled from the frame, not 1:1.
  const clicked = stack.site.waitFor((r) => r.path.startsWith('/clicked?n=1&') && r.path.endsWith('&from=page%3Dviewer'));
  const rect = await viewer.evaluate<{ x: number; y: number }>(`(() => { const r = document.getElementById('screen').getBoundingClientRect(); return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; })()`);
  await viewer.clickAt(rect.x, rect.y);
  const q = new URL((await clicked).path, 'http://x').searchParams;
  t.ok(Math.abs(Number(q.get('x')) - Number(q.get('w')) / 2) <= 3, `the click landed in the middle of the tab (x ${q.get('x')} of ${q.get('w')})`);
  t.ok(Math.abs(Number(q.get('y')) - Number(q.get('h')) / 2) <= 3, `and at mid height (y ${q.get('y')} of ${q.get('h')})`);

  // Navigating through the viewer's address bar changes the tab, and the new page is drawn.
  await viewer.evaluate(`(() => { const a = document.getElementById('addr'); a.value = ${JSON.stringify(`${stack.site.url}/green`)}; document.getElementById('go').requestSubmit(); })()`);
  await viewer.evaluate(canvasShows('green'));
  const tabs = (await stack.rest('browser_tabs')).json.tabs as { id: string; url: string }[];
  t.equal(tabs.find((x) => x.id === tab)?.url, `${stack.site.url}/green`, 'the tab itself navigated');
});

t.test('interactive: keys, paste, history and navigation go through; navigation keeps the URL checks', async (t) => {
  const opened = await stack.rest('browser_open', { url: `${stack.site.url}/red`, mode: 'act' });
  const s = await openSocket(opened.json.live_url);
  t.teardown(() => s.close());
  t.match(await s.next((m) => m.type === 'hello'), { mode: 'interactive', tab: opened.json.tab });
  await s.next((m) => m.type === 'frame');
  // Focus the field with a click on it (top-left tenth of the page), then type and paste.
  s.send({ type: 'mouse', event: 'down', x: 0.1, y: 0.05, button: 'left', clickCount: 1 });
  s.send({ type: 'mouse', event: 'up', x: 0.1, y: 0.05, button: 'left', clickCount: 1 });
  const typed = stack.site.waitFor((r) => r.path === '/typed?v=a');
  s.send({ type: 'key', event: 'down', key: 'a', code: 'KeyA', keyCode: 65 });
  s.send({ type: 'key', event: 'up', key: 'a', code: 'KeyA', keyCode: 65 });
  await typed;
  const pasted = stack.site.waitFor((r) => r.path === `/typed?v=${encodeURIComponent('ahello there')}`);
  s.send({ type: 'paste', text: 'hello there' });
  await pasted;
  t.pass('a key press and a paste reached the focused field');

  s.send({ type: 'navigate', url: 'file:///etc/passwd' });
  const refused = await s.next((m) => m.type === 'error');
  t.equal(refused.code, 'blocked', `a file: address is refused like browser_navigate refuses it (${refused.message})`);
  s.send({ type: 'navigate', url: `${stack.site.url}/blue` });
  await s.next((m) => m.type === 'tabs' && m.tabs.some((x: any) => x.id === opened.json.tab && x.url.endsWith('/blue')));
  s.send({ type: 'history', action: 'back' });
  await s.next((m) => m.type === 'tabs' && m.tabs.some((x: any) => x.id === opened.json.tab && x.url.endsWith('/red')));
  t.pass('address bar and back went through the navigation tools');
  const audit = (await stack.d.rest(stack.token, 'GET', '/v1/audit?limit=10')).json.entries as { tool: string; via: string }[];
  t.ok(audit.some((e) => e.tool === 'browser_navigate' && e.via === 'internal'), 'a viewer navigation is audited like any tool call');

  s.send({ type: 'mouse', event: 'down', x: 2, y: 0.5 });
  t.equal((await s.next((m) => m.type === 'error')).code, 'validation_error', 'a point outside the frame is refused');
  s.send({ type: 'launch', what: 'rockets' });
  t.equal((await s.next((m) => m.type === 'error')).code, 'validation_error', 'an unknown message is refused');
});

t.test('a view-only link streams but the server refuses every input message', async (t) => {
  const opened = await stack.rest('browser_open', { url: `${stack.site.url}/red?page=view-only` });
  const tab = opened.json.tab;
  const viewed = await stack.rest('browser_viewer', { tab, mode: 'view' });
  t.equal(viewed.json.live, 'view');
  const s = await openSocket(viewed.json.live_url);
  t.teardown(() => s.close());
  t.match(await s.next((m) => m.type === 'hello'), { mode: 'view' });
  await s.next((m) => m.type === 'frame');
  const inputs = [
    { type: 'mouse', event: 'down', x: 0.5, y: 0.5, button: 'left', clickCount: 1 },
    { type: 'mouse', event: 'up', x: 0.5, y: 0.5, button: 'left', clickCount: 1 },
    { type: 'key', event: 'down', key: 'Enter', code: 'Enter', keyCode: 13 },
    { type: 'paste', text: 'x' },
    { type: 'navigate', url: `${stack.site.url}/blue` },
    { type: 'history', action: 'reload' },
  ];
  for (const m of inputs) {
    s.send(m);
    const e = await s.next((x) => x.type === 'error');
    t.equal(e.code, 'refused', `${m.type} is refused on a view-only link`);
  }
  // The refused click must not have reached the page: the next click, from an interactive link at another
  // point, is the page's first. Had the view-only click landed, this one would be its second.
  const i = await openSocket(createLiveLink(stack.d.daemon.env, 'alice', tab).url);
  t.teardown(() => i.close());
  await i.next((m) => m.type === 'frame');
  const interactiveClick = stack.site.waitFor((r) => {
    if (!r.path.startsWith('/clicked?') || !r.path.endsWith('&from=page%3Dview-only')) return false;
    const q = new URL(r.path, 'http://x').searchParams;
    return Math.abs(Number(q.get('x')) - Number(q.get('w')) / 4) <= 3;
  });
  i.send({ type: 'mouse', event: 'down', x: 0.25, y: 0.5, button: 'left', clickCount: 1 });
  i.send({ type: 'mouse', event: 'up', x: 0.25, y: 0.5, button: 'left', clickCount: 1 });
  t.match((await interactiveClick).path, /^\/clicked\?n=1&/, 'the page counted one click: the view-only one never arrived');
  t.equal(stack.site.requests.filter((r) => r.path.startsWith('/clicked?') && r.path.endsWith('&from=page%3Dview-only')).length, 1, 'and only that one');

  // An account without take-over gets view links, whatever it asks for.
  await stack.d.daemon.env.users.update('bob', { takeover: false });
  t.teardown(() => stack.d.daemon.env.users.update('bob', { takeover: true }));
  const bobOpen = await stack.d.rest(bobToken, 'POST', '/v1/tabs', { url: `${stack.site.url}/blue`, live: 'interactive' });
  t.equal(bobOpen.json.live, 'view', 'no take-over: a view link');
  const bs = await openSocket(bobOpen.json.live_url);
  t.teardown(() => bs.close());
  t.match(await bs.next((m) => m.type === 'hello'), { mode: 'view' });
  bs.send({ type: 'mouse', event: 'down', x: 0.5, y: 0.5, button: 'left', clickCount: 1 });
  t.equal((await bs.next((m) => m.type === 'error')).code, 'refused');
});

t.test('a link is 256 random bits, and the registry keeps only its hash', async (t) => {
  const opened = await stack.rest('browser_open', { url: `${stack.site.url}/red`, live: 'none' });
  const link = createLiveLink(stack.d.daemon.env, 'alice', opened.json.tab);
  const token = link.url.split('/live/')[1]!;
  // <alice's routing key>.<secret>: the key routes (it is no secret), the secret is 256 random bits.
  const [key, secret] = token.split('.') as [string, string];
  t.equal(key, stack.d.daemon.env.users.routingKey('alice'));
  t.equal(Buffer.from(secret, 'base64url').length, 32);
  const held = JSON.stringify([...(stack.d.daemon.env.live as any).byHash].map(([k, v]: [string, any]) => [k, v.hash.toString('hex'), v.rec]));
  t.notOk(held.includes(token), 'the token itself is not held');
  t.notOk(held.includes(Buffer.from(token, 'base64url').toString('hex')), 'not even as hex');
  t.equal((await fetch(link.url)).status, 200, 'yet it opens');
});

t.test('expired, unknown and malformed links refuse the page and the socket', async (t) => {
  const opened = await stack.rest('browser_open', { url: `${stack.site.url}/red`, live: 'none' });
  const expired = createLiveLink(stack.d.daemon.env, 'alice', opened.json.tab, { ttlMs: 0 });
  const base = expired.url.replace(/\/live\/.*/, '');
  for (const [what, url] of [
    ['expired', expired.url],
    ['unknown', `${base}/live/${'A'.repeat(43)}`],
    ['malformed', `${base}/live/short`],
  ]) {
    const page = await fetch(url);
    t.equal(page.status, 404, `${what}: the page is not found`);
    t.equal((await page.json()).error.code, 'not_found');
    t.equal(await refusedStatus(url), 404, `${what}: the socket is refused`);
  }
  const live = createLiveLink(stack.d.daemon.env, 'alice', opened.json.tab);
  t.equal((await fetch(`${live.url}/ws`)).status, 404, 'a plain GET of the socket path is no page (upgrades only)');
  const body = await (await fetch(expired.url)).text();
  t.notMatch(body, /canvas/, 'nothing of the viewer is served');
});

t.test("a link shows only its own user's browser", async (t) => {
  const env = stack.d.daemon.env;
  const aliceIds = new Set(env.tabs.list('alice').map((r) => r.id));
  // Tab ids repeat across users: bob's t1 is not alice's t1. Bob opens until he holds an id alice has and one she has not.
  const bobBlue = await stack.d.rest(bobToken, 'POST', '/v1/tabs', { url: `${stack.site.url}/blue` });
  t.ok(aliceIds.has(bobBlue.json.tab), `bob's ${bobBlue.json.tab} shares its id with a tab of alice's`);
  let bobOnly: string | undefined;
  while (!bobOnly) {
    const o = await stack.d.rest(bobToken, 'POST', '/v1/tabs', { live: 'none' });
    if (!aliceIds.has(o.json.tab)) bobOnly = o.json.tab;
  }
  const aliceSame = env.tabs.get('alice', bobBlue.json.tab)!;
  const aliceNav = await stack.rest('browser_navigate', { tab: aliceSame.id, url: `${stack.site.url}/red` });
  t.equal(aliceNav.status, 200);

  const viewer = await startViewerBrowser();
  t.teardown(() => viewer.close());
  const aliceLink = (await stack.rest('browser_viewer', { tab: aliceSame.id })).json.live_url;
  await viewer.goto(aliceLink);
  await viewer.evaluate(canvasShows('red'));
  t.pass(`alice's link to ${aliceSame.id} shows alice's red page, not bob's blue ${bobBlue.json.tab}`);
  await viewer.goto(bobBlue.json.live_url);
  await viewer.evaluate(canvasShows('blue'));
  t.pass("bob's link shows bob's page");

  const s = await openSocket(aliceLink);
  t.teardown(() => s.close());
  const strip = await s.next((m) => m.type === 'tabs');
  t.same(strip.tabs.map((x: any) => x.id).sort(), env.tabs.list('alice').filter((r) => !r.profile).map((r) => r.id).sort(), "the strip lists alice's tabs only");
  t.notOk(strip.tabs.some((x: any) => x.url.endsWith('/blue') && x.id === bobBlue.json.tab), "bob's page is not in it");
  const aliceOther = env.tabs.list('alice').find((r) => r.id !== aliceSame.id && !r.profile)!;
  s.send({ type: 'tab', id: aliceOther.id });
  const switched = await s.next((m) => m.type === 'tabs' && m.front === aliceOther.id);
  t.ok(switched, `switching to alice's own ${aliceOther.id} brings it to the front of the viewer`);
  s.send({ type: 'tab', id: bobOnly });
  const e = await s.next((m) => m.type === 'error');
  t.equal(e.code, 'not_found', `switching to ${bobOnly}, a tab only bob has, is refused`);

  t.throws(() => createLiveLink(env, 'alice', bobOnly!), { code: 'not_found' }, 'no link for another user\'s tab id');
  const viaTool = await stack.rest('browser_viewer', { tab: bobOnly });
  t.equal(viaTool.status, 404, 'browser_viewer refuses a tab the caller does not have');
});

t.test('the socket checks Host and Origin like every route', async (t) => {
  const opened = await stack.rest('browser_open', { url: `${stack.site.url}/red` });
  const url = opened.json.live_url as string;
  const origin = new URL(url).origin;
  t.equal(await refusedStatus(url, { Origin: 'http://evil.test' }), 403, 'a foreign Origin is refused');
  t.equal(await refusedStatus(url, { Origin: 'null' }), 403, 'an opaque Origin is refused');
  t.equal(await refusedStatus(url, { Host: `rebind.test:${new URL(url).port}` }), 403, 'a DNS-rebinding Host is refused');
  const ok = await openSocket(url, { Origin: origin });
  t.match(await ok.next((m) => m.type === 'hello'), { type: 'hello' }, 'the same origin is let in');
  await ok.close();
  t.equal(await statusWithHost(url, `rebind.test:${new URL(url).port}`), 403, 'the page checks Host too');
  t.equal(await statusWithHost(url, new URL(url).host), 200, 'and serves its own Host');
});

t.test('viewers that leave right after hello leave no screencast running', async (t) => {
  const opened = await stack.rest('browser_open', { url: `${stack.site.url}/red` });
  const url = opened.json.live_url as string;
  // Each leaves while its tab may still be coming to the front: none may join the cast after it left.
  for (let i = 0; i < 5; i++) {
    const s = await openSocket(url);
    await s.next((m) => m.type === 'hello');
    await s.close();
  }
  await screencastsStopped();
  t.equal(stack.d.daemon.env.live.casts.size, 0, 'every screencast stopped');
});

t.test('a connected viewer keeps its link open; after the last one leaves it expires; the screencast stops', async (t) => {
  const env = stack.d.daemon.env;
  // Viewers of earlier tests may still be leaving: count this test's screencast alone.
  await screencastsStopped();
  t.teardown(() => {
    env.live.now = () => Date.now();
  });
  const opened = await stack.rest('browser_open', { url: `${stack.site.url}/red` });
  const url = opened.json.live_url as string;
  const s = await openSocket(url);
  const firstFrame = await s.next((m) => m.type === 'frame');
  t.equal(env.live.casts.size, 1, 'one screencast for the watched tab');
  const second = await openSocket(url);
  t.ok((await second.next((m) => m.type === 'frame')).data, 'a second viewer of the same tab gets the last frame at once');
  await second.close();

  // Far past the link's life: still open while someone watches.
  const later = Date.now() + env.live.ttlMs + 60_000;
  env.live.now = () => later;
  t.equal((await fetch(url)).status, 200, 'the page still opens');
  const third = await openSocket(url);
  t.match(await third.next((m) => m.type === 'hello'), { type: 'hello' }, 'and a new viewer still connects');
  await third.close();
  // A new frame comes when the page changes: the first was acknowledged (or Chromium would send no more).
  const nav = stack.rest('browser_navigate', { tab: opened.json.tab, url: `${stack.site.url}/green` });
  await s.next((m) => m.type === 'frame' && m.data !== firstFrame.data);
  await nav;
  t.pass('frames keep arriving on an old link that is watched');
  await s.close();
  await screencastsStopped();
  t.equal(env.live.casts.size, 0, 'the screencast stopped when the last viewer left');

  t.equal((await fetch(url)).status, 200, 'just after the last viewer left, the link still opens (a reload comes back)');
  env.live.now = () => later + AFTER_LAST_VIEWER_MS + 1000;
  t.equal((await fetch(url)).status, 404, 'then it expires');
  t.equal(await refusedStatus(url), 404);
});

t.test("a popup's live link comes with the first listing that shows it", async (t) => {
  const opened = await stack.rest('browser_open', { url: `${stack.site.url}/opener`, mode: 'act' });
  const before = new Set(((await stack.rest('browser_tabs')).json.tabs as { id: string }[]).map((x) => x.id));
  const landed = stack.site.waitFor((r) => r.path === '/red?pop=1');
  const snap = (await stack.rest('browser_snapshot', { tab: opened.json.tab })).json.text as string;
  const ref = /button "Pop" \[ref=(e\d+)\]/.exec(snap)![1];
  await stack.rest('browser_click', { tab: opened.json.tab, ref });
  await landed;
  const first = await call(stack.client, 'browser_tabs');
  const popupId = [...first.text.matchAll(/Live link for popup (t\d+)/g)].map((m) => m[1]);
  t.equal(popupId.length, 1, 'one popup link in the MCP listing');
  t.notOk(before.has(popupId[0]), 'for the new tab');
  const url = liveUrlOf(first.text.split(`Live link for popup ${popupId[0]}`)[1]);
  t.ok(url, 'with its URL');
  const s = await openSocket(url!);
  t.teardown(() => s.close());
  t.match(await s.next((m) => m.type === 'hello'), { tab: popupId[0] }, 'the link opens the popup');
  const again = (await stack.rest('browser_tabs')).json.tabs as { id: string; live_url?: string }[];
  t.notOk(again.find((x) => x.id === popupId[0])?.live_url, 'the next listing does not hand it out again');
});
