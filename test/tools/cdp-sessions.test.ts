/**
 * Timed CDP sessions: browser_sessions hands out a /cdp/<token> URL; a raw CDP client (the `ws` package, no
 * CDP library) drives the user's browser through it, inside the host policy, without reaching the daemon's own
 * sessions; the URL stops working when the session is stopped or runs out, and the minutes are metered.
 */
import t from 'tap';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RawCdp } from '../fixtures/raw-cdp.js';
import CDP from 'chrome-remote-interface';
import { startStack, type Stack } from '../fixtures/stack.js';
import { call } from '../fixtures/daemon.js';
import { html } from '../fixtures/site.js';

let stack: Stack;

t.before(async () => {
  stack = await startStack();
  stack.site.route('/hello', html('<h1 id="h">Hello through CDP</h1>', '', 'Hello'));
  stack.site.route('/tab', html('<p id="p">a daemon tab</p>', '', 'Daemon tab'));
});
t.teardown(() => stack.stop());

/** The upgrade is answered with an HTTP status and no WebSocket. */
async function noUpgrade(t: { equal(...a: any[]): unknown }, connect: () => Promise<RawCdp>, status: number, what: string) {
  const got = await connect().then(
    (c) => (c.close(), 'a WebSocket'),
    (e) => e.status ?? String(e),
  );
  t.equal(got, status, what);
}

async function startSession(args: Record<string, unknown> = {}, client = stack.client) {
  const r = await call(client, 'browser_sessions', { action: 'start', ...args });
  if (r.isError) throw new Error(r.text);
  // MCP answers in text: the id and the URL are read from it as a model would.
  return { id: /CDP session (cdp_[0-9a-f]{16})/.exec(r.text)![1], cdpUrl: /Connect a CDP client to: (\S+)/.exec(r.text)![1] };
}

/** A new page through the client, attached flat, with the Page domain on. */
async function newPage(cdp: RawCdp) {
  const { targetId } = await cdp.send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await cdp.send('Target.attachToTarget', { targetId, flatten: true });
  await cdp.send('Page.enable', {}, sessionId);
  return { targetId, sessionId };
}

async function refusedWith(t: { rejects(...a: any[]): Promise<unknown> }, p: Promise<unknown>, pattern: RegExp, what: string) {
  await t.rejects(p, { message: pattern }, what);
}

t.test('nothing is metered before a session', async (t) => {
  const me = await stack.d.rest(stack.token, 'GET', '/v1/me');
  t.equal(me.json.usage.cdpSessionMinutes, 0);
});

t.test('a raw CDP client opens a page, navigates, hears its events and evaluates', async (t) => {
  const s = await startSession({ minutes: 5 });
  t.match(s.cdpUrl, /^ws:\/\/127\.0\.0\.1:\d+\/cdp\/[a-z2-7]{10}\.[A-Za-z0-9_-]{43}$/, "the URL is on the daemon and carries the user's routing key and a 256-bit token");
  t.match(s.id, /^cdp_[0-9a-f]{16}$/);
  const status = await call(stack.client, 'browser_status');
  t.match(status.text, `CDP session: ${s.cdpUrl}`, 'browser_status shows the URL of the session on the own profile');

  const cdp = await RawCdp.connect(s.cdpUrl);
  const { sessionId } = await newPage(cdp);
  const loaded = cdp.event((e) => e.method === 'Page.loadEventFired' && e.sessionId === sessionId);
  const nav = await cdp.send('Page.navigate', { url: `${stack.site.url}/hello` }, sessionId);
  t.notOk(nav.errorText, 'the navigation went through');
  await loaded;
  const r = await cdp.send('Runtime.evaluate', { expression: 'document.querySelector("#h").textContent', returnByValue: true }, sessionId);
  t.equal(r.result.value, 'Hello through CDP');
  const { targetInfos } = await cdp.send('Target.getTargets');
  t.ok(targetInfos.some((i: any) => i.url === `${stack.site.url}/hello`), 'browser-level commands answer for the user\'s browser');
  cdp.close();
  await cdp.closed;
  // The token is a secret: not in the audit trail, not in the store.
  const token = s.cdpUrl.slice(s.cdpUrl.lastIndexOf('/') + 1);
  const audit = await stack.d.rest(stack.token, 'GET', '/v1/audit?limit=500');
  t.ok(audit.json.entries.some((e: any) => e.tool === 'browser_sessions'), 'the start is audited');
  t.notMatch(JSON.stringify(audit.json), token, 'the audit trail does not hold the token');
  await stack.d.daemon.env.db.flushed();
  t.notOk(readFileSync(join(stack.d.dataDir, 'browserd.lmdb')).includes(token), 'the store does not hold the token');
  await call(stack.client, 'browser_sessions', { action: 'stop', id: s.id });
});

t.test('chrome-remote-interface, a common CDP client, connects through the URL, navigates and evaluates', async (t) => {
  const s = await startSession({ minutes: 5 });
  // The client takes the WebSocket URL as its target; `local` uses its bundled protocol description, since the
  // daemon serves no /json endpoints (there is no debugging port behind it).
  const client = await CDP({ target: s.cdpUrl, local: true });
  t.teardown(() => client.close().catch(() => undefined));
  const { targetId } = await client.Target.createTarget({ url: 'about:blank' });
  const { sessionId } = await client.Target.attachToTarget({ targetId, flatten: true });
  await client.send('Page.enable', undefined, sessionId);
  const loaded = new Promise((resolve) => client.on(`Page.loadEventFired.${sessionId}` as any, resolve));
  await client.send('Page.navigate', { url: `${stack.site.url}/hello` }, sessionId);
  await loaded;
  const r: any = await client.send('Runtime.evaluate', { expression: 'document.querySelector("#h").textContent', returnByValue: true }, sessionId);
  t.equal(r.result.value, 'Hello through CDP');
  const closed = new Promise((resolve) => client.on('disconnect', resolve));
  await call(stack.client, 'browser_sessions', { action: 'stop', id: s.id });
  await closed;
  t.pass('stopping the session disconnects the client');
});

t.test('a page opened through CDP cannot reach a site the user blocked', async (t) => {
  await stack.d.daemon.env.policies.upsert('alice', { pattern: 'blocked.test', access: 'blocked' });
  t.teardown(() => stack.d.daemon.env.policies.remove('alice', 'blocked.test'));
  const s = await startSession({ minutes: 5 });
  const cdp = await RawCdp.connect(s.cdpUrl);
  t.teardown(() => cdp.close());
  const { sessionId } = await newPage(cdp);
  const before = stack.site.requests.length;
  const nav = await cdp.send('Page.navigate', { url: `http://blocked.test:${stack.site.port}/hello` }, sessionId);
  t.match(nav.errorText, /ERR_BLOCKED_BY_CLIENT/, 'the navigation failed');
  t.notOk(stack.site.requests.slice(before).some((r) => r.headers.host?.startsWith('blocked.test')), 'nothing reached the blocked site');
  // The same page may still go where the policy allows.
  const loaded = cdp.event((e) => e.method === 'Page.loadEventFired' && e.sessionId === sessionId);
  t.notOk((await cdp.send('Page.navigate', { url: `http://fine.test:${stack.site.port}/hello` }, sessionId)).errorText);
  await loaded;
  // A window the CDP page opens is held to the policy too. Its address shows in the target list once the
  // navigation commits (the page or its error page), and by then an allowed request would have arrived.
  await cdp.send('Target.setDiscoverTargets', { discover: true });
  const popupUrl = `http://blocked.test:${stack.site.port}/hello?popup`;
  const committed = cdp.event((e) => e.method === 'Target.targetInfoChanged' && e.params.targetInfo.url === popupUrl);
  await cdp.send('Runtime.evaluate', { expression: `window.open(${JSON.stringify(popupUrl)}); 1`, userGesture: true }, sessionId);
  await committed;
  t.notOk(stack.site.requests.some((r) => r.path === '/hello?popup'), 'the popup did not load the blocked site');
  await call(stack.client, 'browser_sessions', { action: 'stop', id: s.id });
});

t.test('the client cannot reach the daemon\'s own sessions or switch off its auto-attach', async (t) => {
  const opened = await stack.rest('browser_open', { url: `${stack.site.url}/tab` });
  t.equal(opened.status, 200, opened.json?.text);
  const tabId = opened.json.tab as string;
  const inst = stack.d.daemon.env.pool.peek('alice')!;
  const daemonSession = inst.tabs.get(tabId)!.sessionId;
  t.ok(daemonSession);

  const s = await startSession({ minutes: 5 });
  const cdp = await RawCdp.connect(s.cdpUrl);
  t.teardown(() => cdp.close());
  await t.rejects(cdp.send('Runtime.evaluate', { expression: '1' }, daemonSession), { code: -32001 }, 'a daemon tab\'s session is unknown to the client');
  await refusedWith(t, cdp.send('Target.detachFromTarget', { sessionId: daemonSession }), /refuses Target\.detachFromTarget/, 'a daemon session may not be detached');
  // Browser-level state the client changes is its own session's: the daemon still attaches its new tabs.
  await cdp.send('Target.setAutoAttach', { autoAttach: false, waitForDebuggerOnStart: false, flatten: true });
  const snap = await call(stack.client, 'browser_snapshot', { tab: tabId });
  t.notOk(snap.isError, 'the daemon tab still answers');
  t.match(snap.text, 'a daemon tab');
  const second = await call(stack.client, 'browser_open', { url: `${stack.site.url}/hello` });
  t.notOk(second.isError, 'the daemon still opens tabs (its own auto-attach is untouched)');
  await call(stack.client, 'browser_sessions', { action: 'stop', id: s.id });
});

t.test('methods that reach past the user\'s browser are refused', async (t) => {
  const s = await startSession({ minutes: 5 });
  const cdp = await RawCdp.connect(s.cdpUrl);
  t.teardown(() => cdp.close());
  const { sessionId } = await newPage(cdp);
  const dir = stack.d.daemon.env.files.dir('alice');
  const refused: [string, Record<string, unknown>, string?][] = [
    ['Input.dispatchDragEvent', { type: 'drop', x: 1, y: 1, data: { items: [], dragOperationsMask: 1, files: [`${dir}/../../browserd.lmdb`] } }, sessionId],
    ['Target.disposeBrowserContext', { browserContextId: 'not-mine' }],
    ['Target.openDevTools', { targetId: 'x' }],
    ['Extensions.loadUnpacked', { path: '/tmp' }],
    ['Browser.close', {}],
    ['Browser.crash', {}],
    ['Browser.getBrowserCommandLine', {}],
    ['Target.exposeDevToolsProtocol', { targetId: 'x' }],
    ['Target.setRemoteLocations', { locations: [{ host: '127.0.0.1', port: 9222 }] }],
    ['Target.createBrowserContext', { proxyServer: 'http://127.0.0.1:9' }],
    ['SystemInfo.getProcessInfo', {}],
    ['Tracing.start', { tracingBackend: 'system' }],
    ['Target.attachToBrowserTarget', {}],
    ['Target.attachToTarget', { targetId: 'x', flatten: false }],
    ['Page.navigate', { url: 'file:///etc/passwd' }, sessionId],
    ['Page.navigate', { url: 'chrome://settings' }, sessionId],
    ['DOM.setFileInputFiles', { files: ['/etc/passwd'], nodeId: 1 }, sessionId],
  ];
  for (const [method, params, sid] of refused) await refusedWith(t, cdp.send(method, params, sid), new RegExp(`browserd refuses ${method.replace('.', '\\.')}`), `${method} ${JSON.stringify(params)}`);
  // The browser is still there and the client still works.
  const r = await cdp.send('Runtime.evaluate', { expression: '6 * 7', returnByValue: true }, sessionId);
  t.equal(r.result.value, 42);
  // A download setting is never refused: whatever path it names, the daemon's own takes its place
  // (test/integration/cdp-clients.test.ts shows nothing is written there).
  for (const downloadPath of [dir, `${dir}/../bob`, '/tmp']) await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath });
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'default' });
  await cdp.send('Page.setDownloadBehavior', { behavior: 'allow', downloadPath: '/tmp' }, sessionId);
  t.pass('download settings are accepted');
  const ctx = await cdp.send('Target.createBrowserContext', {});
  await cdp.send('Target.disposeBrowserContext', { browserContextId: ctx.browserContextId });
  t.pass('a context the client made is its own to dispose');
  await call(stack.client, 'browser_sessions', { action: 'stop', id: s.id });
});

t.test('wrong tokens, other users and foreign origins get no WebSocket', async (t) => {
  const s = await startSession({ minutes: 5 });
  const base = s.cdpUrl.slice(0, s.cdpUrl.lastIndexOf('/') + 1);
  await noUpgrade(t, () => RawCdp.connect(`${base}${randomBytes(32).toString('base64url')}`), 401, 'a guessed token');
  await noUpgrade(t, () => RawCdp.connect(`${base}${stack.token}`), 401, 'the user\'s API token is not a session token');
  await noUpgrade(t, () => RawCdp.connect(`${base}`), 401, 'no token');
  await noUpgrade(t, () => RawCdp.connect(s.cdpUrl, { Origin: 'http://evil.test' }), 403, 'a web page on another origin');
  await noUpgrade(t, () => RawCdp.connect(s.cdpUrl, { Host: `rebind.test:${new URL(s.cdpUrl).port}` }), 403, 'a DNS-rebinding Host');

  const bobToken = await stack.d.addUser('bob');
  await noUpgrade(t, () => RawCdp.connect(`${base}${bobToken}`), 401, 'another user\'s API token');
  const bob = await stack.d.mcp(bobToken);
  const bobs = await startSession({ minutes: 5 }, bob);
  t.not(bobs.cdpUrl, s.cdpUrl);
  const cdp = await RawCdp.connect(bobs.cdpUrl);
  const { targetInfos } = await cdp.send('Target.getTargets');
  t.notOk(targetInfos.some((i: any) => String(i.url).startsWith(stack.site.url)), 'bob\'s session shows none of alice\'s pages');
  cdp.close();
  const list = await stack.rest('browser_sessions', { action: 'list' });
  t.notOk(list.json.sessions.some((x: any) => x.id === bobs.id), 'alice does not see bob\'s session');
  const stopOther = await call(stack.client, 'browser_sessions', { action: 'stop', id: bobs.id });
  t.ok(stopOther.isError, 'alice cannot stop bob\'s session');
  t.match(stopOther.text, 'not_found');
  await call(bob, 'browser_sessions', { action: 'stop', id: bobs.id });
  await call(stack.client, 'browser_sessions', { action: 'stop', id: s.id });
});

t.test('bad arguments are refused with a next step and start nothing', async (t) => {
  const before = stack.d.daemon.env.cdpSessions.list('alice').length;
  for (const args of [{ action: 'start', minutes: 0 }, { action: 'start', minutes: 100000 }, { action: 'stop' }, { action: 'list', minutes: 3 }, { action: 'start', profile: '../x' }]) {
    const r = await call(stack.client, 'browser_sessions', args);
    t.ok(r.isError, JSON.stringify(args));
    t.match(r.text, 'validation_error');
  }
  t.equal(stack.d.daemon.env.cdpSessions.list('alice').length, before);
});

t.test('a session on a named profile drives that profile\'s browser only', async (t) => {
  const s = await startSession({ minutes: 5, profile: 'work' });
  t.ok(stack.d.daemon.env.pool.peek('alice', 'work'), 'the profile\'s browser runs');
  const cdp = await RawCdp.connect(s.cdpUrl);
  t.teardown(() => cdp.close());
  const { targetInfos } = await cdp.send('Target.getTargets');
  t.notOk(targetInfos.some((i: any) => String(i.url).startsWith(stack.site.url)), 'none of the default profile\'s pages');
  const status = await call(stack.client, 'browser_status');
  t.notMatch(status.text, s.cdpUrl, 'browser_status names the session on the own profile only');
  const listed = await stack.rest('browser_sessions', { action: 'list' });
  t.match(listed.json.sessions, [{ id: s.id, profile: 'work' }]);
  await call(stack.client, 'browser_sessions', { action: 'stop', id: s.id });
});

t.test('stop cuts the client off and the URL stops working', async (t) => {
  const s = await startSession({ minutes: 5 });
  const cdp = await RawCdp.connect(s.cdpUrl);
  await newPage(cdp);
  const { browserContextId } = await cdp.send('Target.createBrowserContext', {});
  await cdp.send('Target.createTarget', { url: 'about:blank', browserContextId });
  const listed = await stack.rest('browser_sessions', { action: 'list' });
  t.match(listed.json.sessions, [{ id: s.id, clients: 1 }]);
  const stopped = await call(stack.client, 'browser_sessions', { action: 'stop', id: s.id });
  t.notOk(stopped.isError, stopped.text);
  const closed = await cdp.closed;
  t.equal(closed.code, 4000);
  await noUpgrade(t, () => RawCdp.connect(s.cdpUrl), 401, 'a stopped session\'s URL gets no WebSocket');
  const other = await startSession({ minutes: 5 });
  const look = await RawCdp.connect(other.cdpUrl);
  const { browserContextIds } = await look.send('Target.getBrowserContexts');
  t.notOk(browserContextIds.includes(browserContextId), 'the context the stopped client made went with it');
  look.close();
  await call(stack.client, 'browser_sessions', { action: 'stop', id: other.id });
  const status = await call(stack.client, 'browser_status');
  t.notMatch(status.text, s.cdpUrl);
});

t.test('a session ends at its time and its minutes are metered', async (t) => {
  const sessions = stack.d.daemon.env.cdpSessions;
  const minuteMs = sessions.minuteMs;
  // Minutes of a second: the session's own clock ends it, the test only waits for the socket to close.
  sessions.minuteMs = 1000;
  t.teardown(() => void (sessions.minuteMs = minuteMs));
  const s = await startSession({ minutes: 2 });
  const cdp = await RawCdp.connect(s.cdpUrl);
  const closed = await cdp.closed;
  t.equal(closed.code, 4001, 'the client was cut off when the time ran out');
  await noUpgrade(t, () => RawCdp.connect(s.cdpUrl), 401, 'an expired session\'s URL gets no WebSocket');
  const me = await stack.d.rest(stack.token, 'GET', '/v1/me');
  // Sessions stopped early count each started minute (one each), this one both of its minutes.
  const stoppedEarly = stack.d.daemon.env.usage.list('alice').filter((r) => r.id !== s.id);
  t.ok(stoppedEarly.every((r) => r.minutes === 1), 'a session stopped in its first minute counts one minute');
  t.equal(me.json.usage.cdpSessionMinutes, stoppedEarly.length + 2);
});

t.test('a daemon shutdown ends every session; the metered minutes stay', async (t) => {
  const s = await startSession({ minutes: 5 });
  const cdp = await RawCdp.connect(s.cdpUrl);
  await newPage(cdp);
  const before = (await stack.d.rest(stack.token, 'GET', '/v1/me')).json.usage.cdpSessionMinutes;
  await stack.d.restart();
  t.equal((await cdp.closed).code, 4000, 'the client was cut off by the shutdown');
  await noUpgrade(t, () => RawCdp.connect(s.cdpUrl.replace(/:\d+\//, `:${stack.d.daemon.port}/`)), 401, 'the URL does not survive a restart');
  const me = await stack.d.rest(stack.token, 'GET', '/v1/me');
  t.equal(me.json.usage.cdpSessionMinutes, before, 'usage records are on disk: the restart lost no minute and added none');
  const list = await stack.rest('browser_sessions', { action: 'list' });
  t.same(list.json.sessions, []);
});

/** The session's answer names a live link of this daemon, and the link opens the viewer. */
async function opensLiveLink(t: { match(...a: any[]): unknown; equal(...a: any[]): unknown }, text: string) {
  const live = /Watch it live: (\S+)/.exec(text)?.[1];
  t.match(live, new RegExp(`^${stack.d.url}/live/[a-z2-7]{10}\\.[A-Za-z0-9_-]{43}$`), 'a live link of this daemon');
  const page = await fetch(live!);
  t.equal(page.status, 200, 'the link opens the viewer');
  await page.text();
}

t.test('with a tab open, a session comes with a live link to watch it', async (t) => {
  // A client of its own: the restart above ended the file's MCP session.
  const client = await stack.d.mcp(stack.token);
  const opened = await call(client, 'browser_open', { url: 'about:blank', mode: 'read' });
  t.notOk(opened.isError, opened.text);
  const r = await call(client, 'browser_sessions', { action: 'start', minutes: 1 });
  t.notOk(r.isError, r.text);
  await opensLiveLink(t, r.text);
  const id = /CDP session (cdp_[0-9a-f]{16})/.exec(r.text)![1];
  t.notOk((await call(client, 'browser_sessions', { action: 'stop', id })).isError);
});

t.test('a profile with no tab yet gets a blank read tab, so the session still comes with a live link', async (t) => {
  const client = await stack.d.mcp(stack.token);
  const tabsBefore = stack.d.daemon.env.tabs.list('alice').filter((r) => r.profile === 'fresh');
  t.same(tabsBefore, [], 'the profile has no tab');
  const r = await call(client, 'browser_sessions', { action: 'start', minutes: 1, profile: 'fresh' });
  t.notOk(r.isError, r.text);
  await opensLiveLink(t, r.text);
  const opened = stack.d.daemon.env.tabs.list('alice').filter((r) => r.profile === 'fresh');
  t.equal(opened.length, 1, 'one blank tab was opened for it');
  t.equal(opened[0]!.mode, 'read', 'in read mode');
  t.match(r.text, new RegExp(`a blank one was opened \\(${opened[0]!.id.replace('/', '\\/')}\\)`));
  const id = /CDP session (cdp_[0-9a-f]{16})/.exec(r.text)![1];
  t.notOk((await call(client, 'browser_sessions', { action: 'stop', id })).isError);
});

t.test('browser_open brings the tab to the front maximised; visible false leaves its window as it is', async (t) => {
  const client = await stack.d.mcp(stack.token);
  const stateOf = async (tabId: string) => {
    const inst = stack.d.daemon.env.pool.peek('alice')!;
    const tab = inst.tabs.get(tabId)!;
    const { bounds } = await inst.conn!.send('Browser.getWindowForTarget', { targetId: tab.targetId });
    return bounds.windowState;
  };
  const front = await call(client, 'browser_open', { url: `${stack.site.url}/tab`, mode: 'read', visible: true });
  t.notOk(front.isError, front.text);
  t.equal(await stateOf(front.raw.structuredContent.tab as string), 'maximized');
  const dflt = await call(client, 'browser_open', { url: `${stack.site.url}/tab`, mode: 'read' });
  t.equal(await stateOf(dflt.raw.structuredContent.tab as string), 'maximized', 'visible is true by default');
  const back = await call(client, 'browser_open', { url: `${stack.site.url}/tab`, mode: 'read', visible: false });
  t.equal(await stateOf(back.raw.structuredContent.tab as string), 'normal');
});
