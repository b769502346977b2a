/**
 * A timed CDP session stays inside the rules: no route takes a page of the user's browser to one of the
 * browser's own pages (chrome:, devtools:, chrome-untrusted:, about: other than about:blank), and the browser
 * itself opens no connection around the egress guard. Chromium once opened `chrome://version:x` (text the WHATWG
 * parser rejects, which the old check let through) and from chrome://inspect connected to a loopback port the
 * guard refuses. A raw CDP client (the `ws` package) over a real session; the guard here refuses loopback except
 * the fixture site, and a listener on another loopback port counts every connection that reaches it.
 */
import t from 'tap';
import net from 'node:net';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestDaemon, call, type TestDaemon } from '../fixtures/daemon.js';
import { startSite, html, type FixtureSite } from '../fixtures/site.js';
import { RawCdp } from '../fixtures/raw-cdp.js';

let site: FixtureSite;
let d: TestDaemon;
let token: string;
let client: Client;
/** A loopback port the guard refuses: any connection here came around the guard. */
let listener: net.Server;
let listenerPort: number;
const arrivals: string[] = [];

t.before(async () => {
  site = await startSite();
  site.route('/hello', html('<h1 id="h">Hello</h1>', '', 'Hello'));
  site.route('/links', html('<a id="a" href="chrome://version">version</a><a id="b" href="about:settings">settings</a><a id="c" href="devtools://devtools/bundled/inspector.html">dt</a>', '', 'Links'));
  d = await startTestDaemon({ allowPrivateNetwork: false, allowTargets: [`127.0.0.1:${site.port}`] });
  token = await d.addUser('alice');
  client = await d.mcp(token);
  listener = net.createServer((s) => {
    s.on('data', (b) => arrivals.push(String(b).split('\r\n')[0]!));
    s.on('error', () => undefined);
    arrivals.push('connection');
  });
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
  listenerPort = (listener.address() as net.AddressInfo).port;
});
t.teardown(async () => {
  await d.stop();
  await site.close();
  await new Promise((r) => listener.close(r));
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A URL that is, or may become in Chromium's hands, one of the browser's own pages. */
const INTERNAL = /^\s*(chrome|chrome-untrusted|devtools|view-source|chrome-search|chrome-extension|isolated-app|file):|^about:(?!blank)/i;

async function session(c = client) {
  const r = await call(c, 'browser_sessions', { action: 'start', minutes: 5 });
  if (r.isError) throw new Error(r.text);
  const id = /CDP session (cdp_[0-9a-f]{16})/.exec(r.text)![1]!;
  const cdp = await RawCdp.connect(/Connect a CDP client to: (\S+)/.exec(r.text)![1]!);
  return { id, cdp, stop: async () => (cdp.close(), await call(c, 'browser_sessions', { action: 'stop', id })) };
}

async function pages(cdp: RawCdp): Promise<{ targetId: string; url: string; title: string }[]> {
  const { targetInfos } = await cdp.send('Target.getTargets');
  return targetInfos.filter((i: any) => i.type === 'page');
}

async function newPage(cdp: RawCdp) {
  const { targetId } = await cdp.send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await cdp.send('Target.attachToTarget', { targetId, flatten: true });
  await cdp.send('Page.enable', {}, sessionId);
  return { targetId, sessionId };
}

/** Samples the page list until `ms` passed: every internal page seen, with how long it stayed listed. */
async function watchPages(cdp: RawCdp, ms: number): Promise<Map<string, { url: string; firstSeen: number; lastSeen: number }>> {
  const seen = new Map<string, { url: string; firstSeen: number; lastSeen: number }>();
  const end = Date.now() + ms;
  while (Date.now() < end) {
    for (const p of await pages(cdp)) {
      if (!INTERNAL.test(p.url)) continue;
      const s = seen.get(p.targetId) ?? { url: p.url, firstSeen: Date.now(), lastSeen: Date.now() };
      s.lastSeen = Date.now();
      seen.set(p.targetId, s);
    }
    await sleep(50);
  }
  return seen;
}

/** The daemon's own connection to alice's browser: it stands for a route to an internal page no check knows. */
function browserConn() {
  return d.daemon.env.pool.peek('alice')!.conn!;
}

/** The catch-all watch, paused for a step that needs an internal page to exist (absent on old code: undefined). */
async function pauseWatch(): Promise<(() => void) | undefined> {
  const mod = await import('../../daemon/browser/internal-pages.js').catch(() => undefined);
  const conn = browserConn();
  const watch = mod?.internalPageWatchOf(conn);
  if (!mod || !watch) return undefined;
  watch.dispose();
  return () => void new mod.InternalPageWatch(conn, { daemonTabSession: () => undefined, log: d.daemon.env.log }).start();
}

/** Navigates a page on the daemon's own connection (no check) and waits for it to load. */
async function uncheckedVisits(targetId: string, urls: string[]): Promise<string> {
  const conn = browserConn();
  const { sessionId } = await conn.send('Target.attachToTarget', { targetId, flatten: true });
  await conn.send('Page.enable', {}, sessionId);
  for (const url of urls) {
    const loaded = conn.waitFor('Page.loadEventFired', sessionId, () => true, 10000);
    await conn.send('Page.navigate', { url }, sessionId);
    await loaded;
  }
  return sessionId;
}

const REFUSED_URLS = [
  'chrome://version:x', 'CHROME://version:x', 'chrome://settings:1/', 'CHROME://version', ' chrome://version', '\tchrome://version', 'chr\tome://version',
  'chrome://ver\nsion', '\u0000chrome://version', '\u00a0chrome://version', 'chrome:version', 'chrome:///version', 'chrome://inspect', 'chrome://inspect:x/#devices',
  'chrome://flags', 'chrome://policy', 'chrome://extensions', 'about:settings', 'about:version', 'ABOUT:inspect', 'about:srcdoc', 'about:blank/../settings',
  'devtools://devtools/bundled/inspector.html', 'devtools://devtools:x/bundled/inspector.html', 'view-source:chrome://version', 'view-source:http://127.0.0.1/',
  'chrome-untrusted://terminal/', 'chrome-untrusted://x:y/', 'chrome-extension://mhjfbmdgcfjbbpaeojofohoefgiehjai/index.html', 'chrome-search://local-ntp/',
  'isolated-app://x/', 'file:///etc/passwd', 'filesystem:chrome://version/temporary/x', 'blob:chrome://version/1234', 'javascript:location="chrome://version"',
  'chrome-error://chromewebdata/', 'chrome-native://x', 'http//:chrome://version', '://chrome://version', 'version', '%63hrome://version',
];

t.test('every address Chromium could open as one of its own pages is refused, on createTarget and navigate alike', async (t) => {
  const { cdp, stop } = await session();
  t.teardown(stop);
  const before = (await pages(cdp)).length;
  for (const url of REFUSED_URLS) {
    const r = await cdp.send('Target.createTarget', { url }).then((x) => `created ${JSON.stringify(x)}`, (e) => String(e.message));
    t.match(r, /^browserd refuses Target\.createTarget: /, `createTarget ${JSON.stringify(url)}`);
  }
  t.equal((await pages(cdp)).length, before, 'no page was made');
  const { sessionId, targetId } = await newPage(cdp);
  for (const url of REFUSED_URLS) {
    const r = await cdp.send('Page.navigate', { url }, sessionId).then((x) => `navigated ${JSON.stringify(x)}`, (e) => String(e.message));
    t.match(r, /^browserd refuses Page\.navigate: /, `navigate ${JSON.stringify(url)}`);
  }
  const { entries } = await cdp.send('Page.getNavigationHistory', {}, sessionId);
  t.same(entries.map((e: any) => e.url), ['about:blank'], 'the page went nowhere');
  t.notOk((await pages(cdp)).some((p) => INTERNAL.test(p.url)), 'no page shows an internal page');
  t.ok((await pages(cdp)).some((p) => p.targetId === targetId));
  // What is allowed still works, sent on as the check read it.
  for (const url of ['about:blank#x', `  ${site.url}/hello`, 'data:text/html,<p id=p>inline</p>', 'ABOUT:blank']) {
    const nav = await cdp.send('Page.navigate', { url }, sessionId);
    t.notOk(nav.errorText, `navigate ${JSON.stringify(url)}`);
  }
  const created = await cdp.send('Target.createTarget', { url: `${site.url}/hello` });
  t.ok(created.targetId, 'a web page opens');
  await cdp.send('Target.closeTarget', { targetId: created.targetId });
});

t.test('requests, history entries and file paths get the same check, and refusals name no path of the host', async (t) => {
  const { cdp, stop } = await session();
  t.teardown(stop);
  const { sessionId } = await newPage(cdp);
  const { frameTree } = await cdp.send('Page.getFrameTree', {}, sessionId);
  const refused: [string, Record<string, unknown>, string?][] = [
    ['Network.loadNetworkResource', { frameId: frameTree.frame.id, url: 'file:///etc/passwd', options: { disableCache: true, includeCredentials: false } }, sessionId],
    ['Network.loadNetworkResource', { frameId: frameTree.frame.id, url: 'chrome://version:x/', options: { disableCache: true, includeCredentials: false } }, sessionId],
    ['Fetch.continueRequest', { requestId: 'interception-job-1.0', url: 'chrome://version/' }, sessionId],
    ['Fetch.continueRequest', { requestId: 'interception-job-1.0', url: 'file:///etc/passwd' }, sessionId],
    ['Network.continueInterceptedRequest', { interceptionId: 'x', url: 'chrome://version:x' }, sessionId],
    ['DOM.setFileInputFiles', { files: ['/etc/passwd'], nodeId: 1 }, sessionId],
    ['DOM.setFileInputFiles', { files: ['../../browserd.lmdb'], nodeId: 1 }, sessionId],
    ['DOM.getFileInfo', { objectId: 'x' }, sessionId],
    // A streamed trace's metadata holds the browser's command line, profile directory and all.
    ['Tracing.start', { transferMode: 'ReturnAsStream', traceConfig: { includedCategories: ['__metadata'] } }],
  ];
  const dir = d.daemon.env.files.dir('alice');
  for (const [method, params, sid] of refused) {
    const message = await cdp.send(method, params, sid).then(() => 'sent', (e) => String(e.message));
    t.match(message, new RegExp(`^browserd refuses ${method.replace('.', '\\.')}: `), `${method} ${JSON.stringify(params)}`);
    t.notMatch(message, d.dataDir, 'the refusal names no directory of the daemon');
    t.notMatch(message, dir);
    t.notMatch(message, /\/(tmp|home|var|root)\//);
  }
  // A download setting is taken whatever it names: the daemon's own goes in its place, so no path of the host is
  // used or named (test/integration/cdp-clients.test.ts).
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow' });
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: '/tmp' });
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'default' });
  t.pass('download settings are accepted without naming where files go');

  // A history entry holding an internal page (made here by the daemon's own connection, with the watch paused,
  // standing for a route no check knows) is not gone back to.
  const resume = await pauseWatch();
  const conn = browserConn();
  const { targetId } = await cdp.send('Target.createTarget', { url: 'about:blank' });
  const own = await uncheckedVisits(targetId, ['chrome://version', `${site.url}/hello`]);
  const { sessionId: mine } = await cdp.send('Target.attachToTarget', { targetId, flatten: true });
  const { entries } = await cdp.send('Page.getNavigationHistory', {}, mine);
  const internal = entries.find((e: any) => e.url.startsWith('chrome://'));
  t.ok(internal, 'the history holds an internal page');
  const r = await cdp.send('Page.navigateToHistoryEntry', { entryId: internal.id }, mine).then(() => 'went back', (e) => String(e.message));
  t.match(r, /^browserd refuses Page\.navigateToHistoryEntry: /, 'going back to it is refused');
  const back = await cdp.send('Runtime.evaluate', { expression: 'location.href', returnByValue: true }, mine);
  t.equal(back.result.value, `${site.url}/hello`, 'the page stayed where it was');
  resume?.();
  await conn.sendMayFail('Target.detachFromTarget', { sessionId: own });
  await cdp.send('Target.closeTarget', { targetId }).catch(() => undefined);
});

t.test('a page that tries every route to an internal page ends on none, and none stays listed', async (t) => {
  const { cdp, stop } = await session();
  t.teardown(stop);
  await cdp.send('Target.setDiscoverTargets', { discover: true });
  const { sessionId, targetId } = await newPage(cdp);
  const mark = cdp.events.length;
  const loaded = cdp.event((e) => e.method === 'Page.loadEventFired' && e.sessionId === sessionId && cdp.events.indexOf(e) >= mark);
  await cdp.send('Page.navigate', { url: `${site.url}/links` }, sessionId);
  await loaded;
  const links = await cdp.send('Runtime.evaluate', { expression: 'document.links.length', returnByValue: true }, sessionId);
  t.equal(links.result.value, 3, 'the page with links to internal pages is loaded');
  const tries = [
    'location = "chrome://version"', 'location = "about:settings"', 'window.open("chrome://version:x")', 'window.open("chrome://inspect")',
    'document.querySelector("#a").click()', 'document.querySelector("#b").click()', 'document.querySelector("#c").click()',
    'window.open("view-source:chrome://version")', 'location = "devtools://devtools/bundled/inspector.html"',
  ];
  const watching = watchPages(cdp, 3000);
  for (const expression of tries) await cdp.send('Runtime.evaluate', { expression: `${expression}; 1`, userGesture: true }, sessionId).catch(() => undefined);
  const seen = await watching;
  t.same([...seen.values()], [], 'no page was ever listed on an internal page');
  const r = await cdp.send('Runtime.evaluate', { expression: 'document.title + " " + location.href', returnByValue: true }, sessionId);
  t.notMatch(r.result.value, /chrome:|About Version|devtools:/, 'the page is no internal page');
  t.ok((await pages(cdp)).some((p) => p.targetId === targetId));

  // A route no check knows (the daemon's own connection, unchecked), and history into it: the watch closes the
  // page within moments, and the client never reads it.
  const conn = browserConn();
  const { targetId: sneaked } = await conn.send('Target.createTarget', { url: 'chrome://version' });
  const read = await cdp
    .send('Target.attachToTarget', { targetId: sneaked, flatten: true })
    .then(({ sessionId: s }) => cdp.send('Runtime.evaluate', { expression: 'document.title', returnByValue: true }, s))
    .then((x) => String(x.result.value), (e) => String(e.message));
  t.notMatch(read, /About Version/, 'the client did not read the internal page');
  const gone = await watchPages(cdp, 1500);
  t.ok([...gone.values()].every((s) => s.lastSeen - s.firstSeen < 1000), 'an internal page is listed for moments at most');
  t.notOk((await pages(cdp)).some((p) => p.targetId === sneaked), 'the page was closed');

  const resume = await pauseWatch();
  const { targetId: hist } = await cdp.send('Target.createTarget', { url: 'about:blank' });
  const own = await uncheckedVisits(hist, ['chrome://version', `${site.url}/hello`]);
  await conn.sendMayFail('Target.detachFromTarget', { sessionId: own });
  resume?.();
  const { sessionId: h } = await cdp.send('Target.attachToTarget', { targetId: hist, flatten: true });
  await cdp.send('Runtime.evaluate', { expression: 'history.back(); 1', userGesture: true }, h).catch(() => undefined);
  const afterBack = await watchPages(cdp, 2000);
  t.ok([...afterBack.values()].every((s) => s.lastSeen - s.firstSeen < 1000), 'history back to an internal page is undone within moments');
  t.notOk((await pages(cdp)).some((p) => INTERNAL.test(p.url)), 'no page is left on an internal page');
});

t.test('one of the daemon\'s own tabs taken to an internal page leaves it at once, keeps its id and works on', async (t) => {
  const opened = await call(client, 'browser_open', { url: `${site.url}/hello` });
  t.notOk(opened.isError, opened.text);
  const inst = d.daemon.env.pool.peek('alice')!;
  const live = [...inst.tabs.values()].find((x) => x.url.startsWith(site.url))!;
  t.ok(live, 'the tab is open');
  const conn = inst.conn!;
  // Blanked in place, or closed when Chromium took the daemon's session off the page as it went internal.
  const leftIt = Promise.race([
    conn.waitFor('Target.targetInfoChanged', '', (p) => p.targetInfo.targetId === live.targetId && p.targetInfo.url === 'about:blank', 5000),
    conn.waitFor('Target.targetDestroyed', '', (p) => p.targetId === live.targetId, 5000),
  ]);
  await conn.send('Page.navigate', { url: 'chrome://version' }, live.sessionId);
  await leftIt;
  const nav = await call(client, 'browser_navigate', { tab: live.id, url: `${site.url}/hello?again` });
  t.notOk(nav.isError, nav.text);
  const again = [...inst.tabs.values()].find((x) => x.id === live.id)!;
  t.equal(again.url, `${site.url}/hello?again`, 'the same tab id works on');
  const { entries } = await conn.send('Page.getNavigationHistory', {}, again.sessionId);
  t.notOk(entries.some((e) => INTERNAL.test(e.url)), 'the internal page is not in the tab\'s history');
  const { targetInfos } = await conn.send('Target.getTargets', {});
  t.notOk(targetInfos.some((i) => i.type === 'page' && INTERNAL.test(i.url)), 'no page shows an internal page');
});

t.test('the browser opens no connection around the guard: chrome://inspect\'s TCP discovery is off and out of reach', async (t) => {
  // A profile an earlier attack left with discovery on and pointed at the listener (carol's browser has not
  // started yet: the daemon writes its preferences at launch).
  const carolToken = await d.addUser('carol');
  const carol = await d.mcp(carolToken);
  const prefsFile = join(d.dataDir, 'profiles', 'carol', 'default', 'Default', 'Preferences');
  mkdirSync(join(prefsFile, '..'), { recursive: true });
  writeFileSync(prefsFile, JSON.stringify({ devtools: { discover_tcp_targets: true, tcp_discovery_config: [`127.0.0.1:${listenerPort}`] } }));
  const { cdp, stop } = await session(carol);
  t.teardown(stop);
  const prefs = JSON.parse(readFileSync(prefsFile, 'utf8'));
  t.equal(prefs.devtools?.discover_tcp_targets, false, 'the profile says TCP discovery off');
  t.same(prefs.devtools?.tcp_discovery_config, [], 'with no host to look at');
  t.equal(prefs.media_router?.enable_media_router, false, 'and the media router (Cast, DIAL) off');

  for (const [method, params] of [
    ['Target.setRemoteLocations', { locations: [{ host: '127.0.0.1', port: listenerPort }] }],
    ['Target.createTarget', { url: 'chrome://inspect:x/#devices' }],
    ['Target.createTarget', { url: 'chrome://inspect/#devices' }],
    ['Target.createTarget', { url: 'devtools://devtools/bundled/devtools_app.html' }],
  ] as const) {
    await t.rejects(cdp.send(method, params), { message: new RegExp(`^browserd refuses ${method.replace('.', '\\.')}`) }, `${method} ${JSON.stringify(params)}`);
  }
  // Even open for a moment (a route no check knows), chrome://inspect finds discovery off.
  const conn = d.daemon.env.pool.peek('carol')!.conn!;
  await conn.send('Target.createTarget', { url: 'chrome://inspect/#devices' });
  await sleep(2500);
  t.same(arrivals, [], 'the listener saw no connection from the browser');
});

t.test('the listener saw nothing over the whole file', async (t) => {
  t.same(arrivals, []);
});
