/**
 * Attack: a program holding user alice's token starts a timed CDP session (browser_sessions) and tries to get
 * past what the session promises: downloads land in alice's files under the download cap, no page reaches the
 * browser's own pages or the daemon's port, a read-only site gets no write, the tab cap holds, user bob stays
 * out of reach, and nothing the client set outlives its session. One stack, real Chromium, a raw CDP client.
 */
import t, { type Test } from 'tap';
import { once } from 'node:events';
import { RawCdp } from '../fixtures/raw-cdp.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import { call } from '../fixtures/daemon.js';
import { html } from '../fixtures/site.js';
import type { DownloadOutcome } from '../../daemon/browser/downloads.js';

const CAP = 256 * 1024;
const MAX_TABS = 5;
let stack: Stack;
/** Set when /files/big's response ran to its end (no one cancelled the download). */
let bigFinished = false;
let bigClosedEarly = false;

t.before(async () => {
  stack = await startStack({ downloadMaxBytes: CAP, maxTabsPerUser: MAX_TABS });
  stack.site.route('/hello', html('<h1 id="h">hello</h1>', '', 'Hello'));
  stack.site.route('/ro', html('<h1>read only site</h1>', '', 'RO'));
  stack.site.route('/sink', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' });
    res.end('ok');
  });
  stack.site.route('/to-chrome', (_req, res) => {
    res.writeHead(302, { location: 'chrome://version' });
    res.end();
  });
  stack.site.route('/to-file', (_req, res) => {
    res.writeHead(302, { location: 'file:///etc/passwd' });
    res.end();
  });
  stack.site.route('/links', html('<a id="a1" href="chrome://version">v</a><a id="a2" href="view-source:http://fine.test/">s</a><a id="a3" href="file:///etc/passwd">f</a>', '', 'Links'));
  stack.site.route('/report.txt', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-disposition': 'attachment; filename="report.txt"' });
    res.end('report bytes\n');
  });
  // Announces four times the cap, sends twice the cap in small steps, then twice more: only a cancel stops it
  // short of its end.
  stack.site.route('/files/big', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(CAP * 4), 'content-disposition': 'attachment; filename="big.bin"' });
    let sent = 0;
    const step = () => {
      if (res.destroyed) return;
      if (sent >= CAP * 4) return void res.end(() => (bigFinished = true));
      res.write(Buffer.alloc(CAP / 4, 7));
      sent += CAP / 4;
      setTimeout(step, 100);
    };
    res.on('close', () => {
      if (!bigFinished) bigClosedEarly = true;
    });
    step();
  });
});
t.teardown(() => stack.stop());

async function startSession(client = stack.client) {
  const r = await call(client, 'browser_sessions', { action: 'start', minutes: 10 });
  if (r.isError) throw new Error(r.text);
  return { id: /CDP session (cdp_[0-9a-f]{16})/.exec(r.text)![1]!, cdpUrl: /Connect a CDP client to: (\S+)/.exec(r.text)![1]! };
}
const stopSession = (id: string, client = stack.client) => call(client, 'browser_sessions', { action: 'stop', id });

async function closeAllTabs() {
  const r = await stack.rest('browser_tabs');
  for (const tab of r.json.tabs ?? []) await stack.rest('browser_close_tab', { tab: tab.id });
}

async function newPage(cdp: RawCdp, params: Record<string, unknown> = {}) {
  const { targetId } = await cdp.send('Target.createTarget', { url: 'about:blank', ...params });
  const { sessionId } = await cdp.send('Target.attachToTarget', { targetId, flatten: true });
  await cdp.send('Page.enable', {}, sessionId);
  return { targetId, sessionId };
}

async function goto(cdp: RawCdp, sessionId: string, url: string) {
  const loaded = cdp.event((e) => e.method === 'Page.loadEventFired' && e.sessionId === sessionId && e.params.timestamp > 0);
  const nav = await cdp.send('Page.navigate', { url }, sessionId);
  if (nav.errorText) throw new Error(`${url}: ${nav.errorText}`);
  await Promise.race([loaded, new Promise((r) => setTimeout(r, 5000))]);
}

const evaluate = async (cdp: RawCdp, sessionId: string, expression: string) =>
  (await cdp.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true, userGesture: true }, sessionId)).result.value;
/** The same, for a probe whose page may have gone or been refused meanwhile: the error's text instead. */
const tryEvaluate = (cdp: RawCdp, sessionId: string, expression: string) => within(evaluate(cdp, sessionId, expression).catch((e: Error) => `error: ${e.message}`));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const refusedLike = (t: Test, p: Promise<unknown>, what: string) => t.rejects(p, { message: /browserd refuses/ }, what);
/** A command's answer, or 'no answer' after ms (a probe must not hang the file). */
const within = <T>(p: Promise<T>, ms = 5000): Promise<T | 'no answer'> => Promise.race([p, sleep(ms).then(() => 'no answer' as const)]);

/** Every page target of alice's browser, as the daemon's own connection sees it. */
async function allTargets() {
  const conn = stack.d.daemon.env.pool.peek('alice')!.conn!;
  return (await conn.send('Target.getTargets', {})).targetInfos as { targetId: string; url: string; type: string; browserContextId?: string }[];
}

t.test('downloads stay under the cap: a page in a context the client made cannot download past it', async (t) => {
  await closeAllTabs();
  const s = await startSession();
  const cdp = await RawCdp.connect(s.cdpUrl);
  t.teardown(() => cdp.close());
  const { browserContextId } = await cdp.send('Target.createBrowserContext', {});
  // What Playwright sends for a context it makes: the daemon's own setting takes its place.
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: '/tmp', browserContextId, eventsEnabled: false });
  const { sessionId } = await newPage(cdp, { browserContextId });
  bigFinished = bigClosedEarly = false;
  const settled = once(stack.d.daemon.env.pool.events, 'download') as Promise<[string, DownloadOutcome]>;
  await cdp.send('Page.navigate', { url: `${stack.site.url}/files/big` }, sessionId).catch(() => undefined);
  const outcome = await Promise.race([settled.then(([, o]) => o), sleep(8000).then(() => undefined)]);
  t.equal(outcome?.state, 'too_large', 'the download past the cap was cancelled while it arrived');
  t.notOk(bigFinished, 'the response did not run to its end');
  await stopSession(s.id);
});

t.test('downloads: a page session\'s "deny" and a foreign context leave nothing behind once the session ends', async (t) => {
  await closeAllTabs();
  const opened = await stack.rest('browser_open', { url: `${stack.site.url}/hello`, mode: 'act' });
  t.equal(opened.status, 200, opened.json?.text);
  const s = await startSession();
  const cdp = await RawCdp.connect(s.cdpUrl);
  const { sessionId } = await newPage(cdp);
  await cdp.send('Page.setDownloadBehavior', { behavior: 'deny' }, sessionId);
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'deny' });
  cdp.close();
  await cdp.closed;
  await stopSession(s.id);
  await sleep(300);
  const settled = once(stack.d.daemon.env.pool.events, 'download') as Promise<[string, DownloadOutcome]>;
  await stack.rest('browser_navigate', { tab: opened.json.tab, url: `${stack.site.url}/report.txt` });
  const outcome = await Promise.race([settled.then(([, o]) => o), sleep(8000).then(() => undefined)]);
  t.equal(outcome?.state, 'stored', 'after the session, a tab\'s download is stored in the user\'s files again');
});

t.test('downloads: none escapes to Chromium\'s own default while a session ends', async (t) => {
  await closeAllTabs();
  let n = 0;
  stack.site.route('/canary.bin', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': `attachment; filename="browserd-canary-${process.pid}-${n++}.bin"` });
    res.end('canary');
  });
  // Downloads one after another, each from a frame of its own, for as long as the page lives.
  stack.site.route('/dl-loop', html(`<script>let i = 0; setInterval(() => { const f = document.createElement('iframe'); f.src = '/canary.bin?' + i++; document.body.append(f); if (document.body.children.length > 40) document.body.firstElementChild.remove(); }, 15);</script>`));
  const outcomes: DownloadOutcome[] = [];
  const onDownload = (_u: string, o: DownloadOutcome) => outcomes.push(o);
  stack.d.daemon.env.pool.events.on('download', onDownload);
  t.teardown(() => stack.d.daemon.env.pool.events.off('download', onDownload));
  const opened = await stack.rest('browser_open', { url: `${stack.site.url}/dl-loop`, mode: 'act' });
  t.equal(opened.status, 200, opened.json?.text);
  for (let round = 0; round < 3; round++) {
    const s = await startSession();
    const cdp = await RawCdp.connect(s.cdpUrl);
    await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: '/tmp', eventsEnabled: true });
    // The client still hears the downloads it asked events for, with a file name and no path of the host.
    const heard = await within(cdp.event((e) => e.method === 'Browser.downloadProgress' && e.params.state === 'completed'));
    t.ok(heard !== 'no answer' && !heard.sessionId && !String(heard.params.filePath ?? '').includes('/'), `round ${round}: the client heard a download complete`);
    await sleep(300);
    cdp.close();
    await cdp.closed;
    await stopSession(s.id);
    await sleep(300);
  }
  await closeAllTabs();
  await sleep(500);
  t.comment(`${outcomes.length} downloads settled: ${[...new Set(outcomes.map((o) => o.state))].join(', ')}`);
  t.ok(outcomes.length > 0, 'the page downloaded');
  t.same(outcomes.filter((o) => o.state === 'failed').map((o) => o.reason), [], 'every download was where the daemon had Chromium put it');
});

t.test('the tab cap holds when a client opens many pages at once', async (t) => {
  await closeAllTabs();
  const s = await startSession();
  const cdp = await RawCdp.connect(s.cdpUrl);
  t.teardown(() => cdp.close());
  const made = await Promise.allSettled(Array.from({ length: MAX_TABS * 2 }, () => cdp.send('Target.createTarget', { url: 'about:blank' })));
  t.ok(made.some((m) => m.status === 'fulfilled'), 'the client could open pages');
  await sleep(1500);
  const records = stack.d.daemon.env.tabs.list('alice').length;
  t.ok(records <= MAX_TABS, `alice holds ${records} tabs, the cap is ${MAX_TABS}`);
  const pages = (await allTargets()).filter((x) => x.type === 'page');
  t.ok(pages.length <= MAX_TABS, `alice's browser has ${pages.length} pages, the cap is ${MAX_TABS}`);
  await stopSession(s.id);
  await closeAllTabs();
});

t.test('the tab cap holds when a page opens many popups at once, and the page keeps answering', async (t) => {
  await closeAllTabs();
  const s = await startSession();
  const cdp = await RawCdp.connect(s.cdpUrl);
  t.teardown(() => cdp.close());
  const { sessionId } = await newPage(cdp);
  await goto(cdp, sessionId, `${stack.site.url}/hello`);
  await tryEvaluate(cdp, sessionId, `for (let i = 0; i < ${MAX_TABS * 2}; i++) window.open('/hello?popup' + i); 1`);
  await sleep(1500);
  const records = stack.d.daemon.env.tabs.list('alice').length;
  t.ok(records <= MAX_TABS, `alice holds ${records} tabs, the cap is ${MAX_TABS}`);
  t.equal(await tryEvaluate(cdp, sessionId, '6 * 7'), 42, 'the opener still answers');
  const loaded = new Set(stack.site.requests.filter((r) => r.path.startsWith('/hello?popup')).map((r) => r.path));
  t.ok(loaded.size <= MAX_TABS - 1, `only popups under the cap loaded (${loaded.size})`);
  await stopSession(s.id);
  await closeAllTabs();
});

t.test('the tab cap holds for pages in a context the client made', async (t) => {
  await closeAllTabs();
  const s = await startSession();
  const cdp = await RawCdp.connect(s.cdpUrl);
  t.teardown(() => cdp.close());
  const { browserContextId } = await cdp.send('Target.createBrowserContext', {});
  await Promise.allSettled(Array.from({ length: MAX_TABS * 2 }, () => cdp.send('Target.createTarget', { url: 'about:blank', browserContextId })));
  await sleep(1000);
  const pages = (await allTargets()).filter((x) => x.type === 'page');
  t.ok(pages.length <= MAX_TABS, `alice's browser has ${pages.length} pages, the cap is ${MAX_TABS}`);
  await stopSession(s.id);
});

t.test('a read-only site gets no write: not by a client rewriting a GET into a POST', async (t) => {
  await stack.d.daemon.env.policies.upsert('alice', { pattern: 'ro.test', access: 'read_only' });
  t.teardown(() => stack.d.daemon.env.policies.remove('alice', 'ro.test'));
  await closeAllTabs();
  const s = await startSession();
  const cdp = await RawCdp.connect(s.cdpUrl);
  t.teardown(() => cdp.close());
  const ro = `http://ro.test:${stack.site.port}`;
  const writes = () => stack.site.writes().filter((r) => r.headers.host?.startsWith('ro.test'));

  // A page on another site sends a beacon (a POST) to the read-only site.
  const other = await newPage(cdp);
  await goto(cdp, other.sessionId, `http://fine.test:${stack.site.port}/hello`);
  await evaluate(cdp, other.sessionId, `navigator.sendBeacon(${JSON.stringify(`${ro}/sink?beacon`)}, 'x=1')`);
  await evaluate(cdp, other.sessionId, `fetch(${JSON.stringify(`${ro}/sink?nocors`)}, { method: 'POST', mode: 'no-cors', body: 'x=1' }).then(() => 'sent', (e) => String(e))`);

  // On the read-only site's own page, the client pauses a GET and sends it on as a POST with a body.
  const page = await newPage(cdp);
  await goto(cdp, page.sessionId, `${ro}/ro`);
  await cdp.send('Fetch.enable', { patterns: [{ urlPattern: '*sink*', requestStage: 'Request' }] }, page.sessionId);
  cdp.event((e) => e.method === 'Fetch.requestPaused' && e.sessionId === page.sessionId).then((e) =>
    cdp.send('Fetch.continueRequest', { requestId: e.params.requestId, method: 'POST', postData: Buffer.from('stolen=1').toString('base64'), headers: [{ name: 'content-type', value: 'application/x-www-form-urlencoded' }] }, page.sessionId).catch(() => undefined),
  );
  await evaluate(cdp, page.sessionId, `fetch('/sink?rewritten').then((r) => r.status, (e) => String(e))`);

  // The same through the client's browser-level session: Fetch there pauses every page's requests.
  await cdp.send('Fetch.enable', { patterns: [{ urlPattern: '*sink?root*', requestStage: 'Request' }] });
  cdp.event((e) => e.method === 'Fetch.requestPaused' && !e.sessionId).then((e) =>
    cdp.send('Fetch.continueRequest', { requestId: e.params.requestId, method: 'POST', postData: Buffer.from('stolen=2').toString('base64') }).catch(() => undefined),
  );
  await Promise.race([evaluate(cdp, page.sessionId, `fetch('/sink?root').then((r) => r.status, (e) => String(e))`), sleep(5000)]);
  await sleep(500);
  t.same(writes().map((w) => `${w.method} ${w.path}`), [], 'no write reached the read-only site');
  await stopSession(s.id);
});

t.test('a read-only site\'s page writes nowhere, in the default context or one the client made', async (t) => {
  await stack.d.daemon.env.policies.upsert('alice', { pattern: 'ro.test', access: 'read_only' });
  t.teardown(() => stack.d.daemon.env.policies.remove('alice', 'ro.test'));
  stack.site.route('/ro-form', html(`<form id="f" method="post" action="http://fine.test:${stack.site.port}/sink"><input name="x" value="1"></form>`, '', 'RO form'));
  await closeAllTabs();
  const s = await startSession();
  const cdp = await RawCdp.connect(s.cdpUrl);
  t.teardown(() => cdp.close());
  const { browserContextId } = await cdp.send('Target.createBrowserContext', {});
  for (const [where, params] of [['default context', {}], ['client context', { browserContextId }]] as const) {
    const page = await newPage(cdp, params);
    await goto(cdp, page.sessionId, `http://ro.test:${stack.site.port}/ro-form?${where.replace(' ', '-')}`);
    const before = stack.site.writes().length;
    await tryEvaluate(cdp, page.sessionId, `fetch('http://fine.test:${stack.site.port}/sink?fetch', { method: 'POST', mode: 'no-cors', body: 'x=1' }).then(() => 'sent', (e) => String(e))`);
    await tryEvaluate(cdp, page.sessionId, `document.getElementById('f').submit(); 1`);
    await sleep(1000);
    t.same(stack.site.writes().slice(before).map((w) => `${w.method} ${w.headers.host}${w.path}`), [], `${where}: the read-only page's writes went nowhere`);
  }
  await stopSession(s.id);
});

t.test('a page on a read-only site runs the client\'s script in its main world only, in a context the client made too', async (t) => {
  await stack.d.daemon.env.policies.upsert('alice', { pattern: 'ro.test', access: 'read_only' });
  t.teardown(() => stack.d.daemon.env.policies.remove('alice', 'ro.test'));
  await closeAllTabs();
  const s = await startSession();
  const cdp = await RawCdp.connect(s.cdpUrl);
  t.teardown(() => cdp.close());
  const { browserContextId } = await cdp.send('Target.createBrowserContext', {});
  for (const [where, params] of [['default context', {}], ['client context', { browserContextId }]] as const) {
    const page = await newPage(cdp, params);
    await goto(cdp, page.sessionId, `http://ro.test:${stack.site.port}/ro?worlds`);
    const { frameTree } = await cdp.send('Page.getFrameTree', {}, page.sessionId);
    await t.rejects(cdp.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: 'mine' }, page.sessionId), { message: /browserd refuses/ }, `${where}: no isolated world`);
  }
  // As Playwright and Puppeteer attach: by auto-attach, which names the target's type (a page).
  await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true });
  for (const [where, params] of [['default context, auto-attached', {}], ['client context, auto-attached', { browserContextId }]] as const) {
    const { targetId } = await cdp.send('Target.createTarget', { url: 'about:blank', ...params });
    const attached = await cdp.event((e) => e.method === 'Target.attachedToTarget' && e.params.targetInfo.targetId === targetId);
    const sessionId = attached.params.sessionId as string;
    await cdp.send('Page.enable', {}, sessionId);
    await goto(cdp, sessionId, `http://ro.test:${stack.site.port}/ro?auto`);
    const { frameTree } = await cdp.send('Page.getFrameTree', {}, sessionId);
    await t.rejects(cdp.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: 'mine' }, sessionId), { message: /browserd refuses/ }, `${where}: no isolated world`);
  }
  await stopSession(s.id);
});

t.test('a blocked site is not opened: not by the client answering its document itself', async (t) => {
  await stack.d.daemon.env.policies.upsert('alice', { pattern: 'blocked.test', access: 'blocked' });
  t.teardown(() => stack.d.daemon.env.policies.remove('alice', 'blocked.test'));
  await closeAllTabs();
  const s = await startSession();
  const cdp = await RawCdp.connect(s.cdpUrl);
  t.teardown(() => cdp.close());
  const { browserContextId } = await cdp.send('Target.createBrowserContext', {});
  await refusedLike(t, cdp.send('Network.setRequestInterception', { patterns: [{ urlPattern: '*' }] }), 'the older interception, which answers without the Fetch domain, is refused');
  for (const [where, params, stage] of [['default context', {}, 'Request'], ['client context', { browserContextId }, 'Request'], ['default context at response', {}, 'Response']] as const) {
    const page = await newPage(cdp, params);
    const tag = where.replace(/ /g, '-');
    await cdp.send('Fetch.enable', { patterns: [{ urlPattern: '*blocked.test*', resourceType: 'Document', requestStage: stage }] }, page.sessionId);
    cdp.event((e) => e.method === 'Fetch.requestPaused' && e.sessionId === page.sessionId).then((e) =>
      cdp.send('Fetch.fulfillRequest', { requestId: e.params.requestId, responseCode: 200, responseHeaders: [{ name: 'content-type', value: 'text/html' }], body: Buffer.from(`<script>fetch('/sink?from-blocked-${tag}')</script>`).toString('base64') }, page.sessionId).catch(() => undefined),
    );
    const nav = await within(cdp.send('Page.navigate', { url: `http://blocked.test:${stack.site.port}/hello?${tag}` }, page.sessionId).catch((e) => ({ errorText: e.message })), 2000);
    await sleep(800);
    const origin = await tryEvaluate(cdp, page.sessionId, 'location.origin');
    t.notMatch(String(origin), /blocked\.test/, `${where}: no page runs as the blocked site (${JSON.stringify(nav).slice(0, 80)})`);
    t.notOk(stack.site.requests.some((r) => r.path === `/sink?from-blocked-${tag}`), `${where}: nothing was sent as the blocked site`);
  }
  // A site the user did not block is answered by the client as before (Playwright's route.fulfill of a page).
  const ok = await newPage(cdp);
  await cdp.send('Fetch.enable', { patterns: [{ urlPattern: '*fulfilled-ok*', resourceType: 'Document', requestStage: 'Request' }] }, ok.sessionId);
  cdp.event((e) => e.method === 'Fetch.requestPaused' && e.sessionId === ok.sessionId).then((e) =>
    cdp.send('Fetch.fulfillRequest', { requestId: e.params.requestId, responseCode: 200, responseHeaders: [{ name: 'content-type', value: 'text/html' }], body: Buffer.from('<title>mine</title>').toString('base64') }, ok.sessionId),
  );
  await goto(cdp, ok.sessionId, `${stack.site.url}/fulfilled-ok`);
  t.equal(await tryEvaluate(cdp, ok.sessionId, 'document.title'), 'mine', 'an allowed page is answered by the client');
  await stopSession(s.id);
});

t.test('no page of the client reaches the daemon\'s own port', async (t) => {
  await closeAllTabs();
  const s = await startSession();
  const cdp = await RawCdp.connect(s.cdpUrl);
  t.teardown(() => cdp.close());
  const port = new URL(stack.d.url).port;
  const { sessionId } = await newPage(cdp);
  await goto(cdp, sessionId, `${stack.site.url}/hello`);
  // A no-cors fetch is opaque either way (the guard answers a refusal too): what came back is read from the
  // Network domain, where the daemon's own answer would show its JSON content type and a 401.
  await cdp.send('Network.enable', {}, sessionId);
  for (const host of ['127.0.0.1', 'localhost', 'daemon.test', '127.0.0.2', '0.0.0.0', '[::ffff:127.0.0.1]']) {
    const url = `http://${host}:${port}/v1/me`;
    const seen = cdp.event((e) => e.sessionId === sessionId && (e.method === 'Network.responseReceived' || e.method === 'Network.loadingFailed') && (e.params.response?.url ?? '').includes(`:${port}/v1/me`) || (e.method === 'Network.loadingFailed' && e.sessionId === sessionId));
    await tryEvaluate(cdp, sessionId, `fetch(${JSON.stringify(url)}, { mode: 'no-cors' }).then((r) => 'reached ' + r.type, (e) => 'failed')`);
    const e = await Promise.race([seen, sleep(3000).then(() => undefined)]);
    const r = e?.params.response;
    t.notOk(r && (r.status === 401 || /json/.test(r.mimeType ?? '')), `fetch ${url} from a page got no answer of the daemon (${e?.method} ${r?.status ?? e?.params.errorText})`);
    cdp.events.splice(0);
  }
  for (const url of [`http://127.0.0.1:${port}/v1/me`, `http://daemon.test:${port}/`]) {
    const p = await newPage(cdp);
    const nav = await cdp.send('Page.navigate', { url }, p.sessionId).catch((e) => ({ errorText: e.message }));
    const text = await evaluate(cdp, p.sessionId, 'document.body ? document.body.innerText : ""');
    t.notMatch(String(text), /unauthorized|"ok"/, `${url}: the page shows no answer of the daemon (${nav.errorText})`);
  }
  const ws = await evaluate(cdp, sessionId, `new Promise((res) => { const w = new WebSocket('ws://127.0.0.1:${port}/cdp/x'); w.onopen = () => res('open'); w.onerror = () => res('error'); setTimeout(() => res('timeout'), 3000); })`);
  t.not(ws, 'open', 'a WebSocket to the daemon does not open');
  const res = await cdp.send('Network.loadNetworkResource', { url: `http://127.0.0.1:${port}/v1/me`, options: { disableCache: true, includeCredentials: false }, frameId: (await cdp.send('Page.getFrameTree', {}, sessionId)).frameTree.frame.id }, sessionId).catch((e) => ({ resource: { success: false, error: e.message } }));
  t.notOk(res.resource.success, 'Network.loadNetworkResource does not reach it');
  t.ok(stack.d.blocked.some((b) => String(b.port) === port), 'the egress guard refused the daemon\'s port');
  await stopSession(s.id);
});

const INTERNAL = /^(chrome|chrome-untrusted|chrome-extension|devtools|view-source|file|chrome-search|isolated-app):/i;

t.test('no page of the client shows one of the browser\'s own pages', async (t) => {
  await closeAllTabs();
  const s = await startSession();
  const cdp = await RawCdp.connect(s.cdpUrl);
  t.teardown(() => cdp.close());
  const direct = [
    'view-source:http://fine.test/', 'devtools://devtools/bundled/inspector.html', 'chrome-extension://mhjfbmdgcfjbbpaeojofohoefgiehjai/index.html',
    'about:srcdoc', 'about:settings', 'about:version', 'chrome:version', 'CHROME://VERSION', ' chrome://version', '\u0000chrome://version',
    'chrome-untrusted://terminal/', 'filesystem:http://fine.test/temporary/x', 'blob:null/0b6c2a0e-4b5e-4b0e-9a8c-0e0e0e0e0e0e',
    'javascript:location="chrome://version"', 'data:text/html,<script>location="chrome://version"</script>', 'chrome://kill', 'chrome:/\\version',
  ];
  for (const url of direct) {
    const r = await within(cdp.send('Target.createTarget', { url }).catch((e) => `refused: ${e.message.slice(0, 60)}`));
    t.comment(`createTarget ${JSON.stringify(url)}: ${typeof r === 'string' ? r : r.targetId}`);
  }
  const { sessionId } = await newPage(cdp);
  for (const url of direct) {
    const r = await within(cdp.send('Page.navigate', { url }, sessionId).catch((e) => `refused: ${e.message.slice(0, 60)}`));
    t.comment(`navigate ${JSON.stringify(url)}: ${JSON.stringify(r).slice(0, 100)}`);
  }
  await closeAllTabs();
  const links = await newPage(cdp);
  await goto(cdp, links.sessionId, `${stack.site.url}/links`);
  for (const id of ['a1', 'a2', 'a3']) {
    t.comment(`click ${id}: ${await tryEvaluate(cdp, links.sessionId, `document.getElementById('${id}').click(); 1`)}`);
  }
  t.comment(await tryEvaluate(cdp, links.sessionId, `window.open('chrome://version'); window.open('${stack.site.url}/to-chrome'); 1`));
  t.comment(await tryEvaluate(cdp, links.sessionId, `(() => { const f = document.createElement('iframe'); f.src = 'chrome://version'; document.body.append(f); const g = document.createElement('iframe'); g.srcdoc = '<a href="chrome://version" target="_top" id=x>x</a>'; document.body.append(g); return 1; })()`));
  await closeAllTabs();
  // A navigation answered by the client with a redirect to chrome://.
  const p2 = await newPage(cdp);
  await cdp.send('Fetch.enable', { patterns: [{ urlPattern: '*redirect-me*', requestStage: 'Request' }] }, p2.sessionId);
  cdp.event((e) => e.method === 'Fetch.requestPaused' && e.sessionId === p2.sessionId).then((e) =>
    cdp.send('Fetch.fulfillRequest', { requestId: e.params.requestId, responseCode: 302, responseHeaders: [{ name: 'Location', value: 'chrome://version' }] }, p2.sessionId).catch(() => undefined),
  );
  await cdp.send('Page.navigate', { url: `${stack.site.url}/redirect-me` }, p2.sessionId).catch(() => undefined);
  await sleep(1500);
  const shown = (await allTargets()).filter((x) => INTERNAL.test(x.url) || /^about:(?!blank)/.test(x.url));
  t.same(shown.map((x) => x.url), [], 'no target shows a browser page');
  await stopSession(s.id);
});

t.test('user bob stays out of reach', async (t) => {
  const bobToken = await stack.d.addUser('bob');
  const bob = await stack.d.mcp(bobToken);
  const opened = await call(bob, 'browser_open', { url: `${stack.site.url}/hello?bob-secret` });
  t.notOk(opened.isError, opened.text);
  const bobConn = stack.d.daemon.env.pool.peek('bob')!.conn!;
  const bobTargets = (await bobConn.send('Target.getTargets', {})).targetInfos as { targetId: string; url: string }[];
  const bobPage = bobTargets.find((x) => x.url.includes('bob-secret'))!;
  t.ok(bobPage, 'bob has a page');
  const bobContexts = await bobConn.send('Target.getBrowserContexts', {});
  const bobSession = await startSession(bob);

  const s = await startSession();
  const cdp = await RawCdp.connect(s.cdpUrl);
  t.teardown(() => cdp.close());
  const { targetInfos } = await cdp.send('Target.getTargets');
  t.notOk(targetInfos.some((x: any) => x.url.includes('bob-secret')), 'bob\'s page is not listed');
  await t.rejects(cdp.send('Target.attachToTarget', { targetId: bobPage.targetId, flatten: true }), 'bob\'s page cannot be attached');
  await t.rejects(cdp.send('Target.activateTarget', { targetId: bobPage.targetId }));
  await t.rejects(cdp.send('Target.closeTarget', { targetId: bobPage.targetId }).then((r) => (r.success === false ? Promise.reject(new Error('no')) : r)));
  if (bobContexts.defaultBrowserContextId) {
    await t.rejects(cdp.send('Target.createTarget', { url: 'about:blank', browserContextId: bobContexts.defaultBrowserContextId }), 'no page in bob\'s context');
  }
  const stop = await call(stack.client, 'browser_sessions', { action: 'stop', id: bobSession.id });
  t.ok(stop.isError, 'alice cannot stop bob\'s session');
  t.ok((await bobConn.send('Target.getTargets', {})).targetInfos.some((x: any) => x.url.includes('bob-secret')), 'bob\'s page is still there');
  await stopSession(s.id);
  await stopSession(bobSession.id, bob);
});

t.test('a client\'s contexts and their pages go with its session', async (t) => {
  await closeAllTabs();
  const s = await startSession();
  const cdp = await RawCdp.connect(s.cdpUrl);
  const { browserContextId } = await cdp.send('Target.createBrowserContext', {});
  await newPage(cdp, { browserContextId, url: `${stack.site.url}/hello?in-ctx` });
  await sleep(300);
  t.ok((await allTargets()).some((x) => x.browserContextId === browserContextId), 'the page is there while the session is');
  await stopSession(s.id);
  await cdp.closed;
  await sleep(500);
  t.notOk((await allTargets()).some((x) => x.browserContextId === browserContextId), 'no page of the client\'s context is left');
  const conn = stack.d.daemon.env.pool.peek('alice')!.conn!;
  t.notOk((await conn.send('Target.getBrowserContexts', {})).browserContextIds.includes(browserContextId), 'the context is gone');
});
