/**
 * Saved sessions as a user meets them, across browser contexts (concurrent opens into a new context included): save and load in the default profile, in a
 * named context whose first tab was just opened, right after a context was closed and made again under the
 * same name, and many times over, interleaved with tab opens and closes and with concurrent calls. Every
 * call must answer; none may fail with internal_error (a stale or disposed browser context).
 */
import t from 'tap';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { html, startSite, type FixtureSite } from '../fixtures/site.js';

let d: TestDaemon;
let site: FixtureSite;
let alice: Client;

const tabOf = (text: string) => /\bOpened tab ((?:[a-z0-9_-]+\/)?t\d+)/.exec(text)![1];
const ok = async (t: { notOk(v: unknown, m: string): unknown }, name: string, args: Record<string, unknown> = {}) => {
  const r = await call(alice, name, args);
  t.notOk(r.isError, `${name} ${JSON.stringify(args)}: ${r.text.slice(0, 300)}`);
  return r;
};
const bodyText = async (tab: string) => (await call(alice, 'browser_evaluate', { tab, js: 'document.body.innerText' })).text;

t.before(async () => {
  site = await startSite();
  site.route('/login', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'set-cookie': ['sid=s1; Path=/; HttpOnly'] });
    res.end(html(`<h1>Welcome</h1><script>localStorage.setItem('token', 'x')</script>`));
  });
  site.route('/account', (req, res) => {
    const signedIn = (req.headers.cookie ?? '').split(/;\s*/).includes('sid=s1');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html(`<h1>${signedIn ? 'Signed in' : 'Signed out'}</h1>`));
  });
  // Builds several tabs at once, as a host with more cores does: two opens into one new context race there.
  d = await startTestDaemon({ tabStarts: 4 });
  alice = await d.mcp(await d.addUser('alice'));
});
t.teardown(async () => {
  await d.stop();
  await site.close();
});

t.test('save and load over and over, with contexts made, closed and made again between', async (t) => {
  const src = tabOf((await ok(t, 'browser_open', { url: `${site.url}/login`, mode: 'act' })).text);
  await ok(t, 'browser_session_save', { name: 'a' });
  await ok(t, 'browser_session_save', { name: 'a', tab: src });
  for (let i = 0; i < 6; i++) {
    const ctx = `c${i % 2}`;
    const o = tabOf((await ok(t, 'browser_open', { url: `${site.url}/account`, context: ctx })).text);
    await ok(t, 'browser_session_load', { name: 'a', tab: o });
    t.match(await bodyText(o), /Signed in/, `loaded into ${ctx} (round ${i})`);
    await ok(t, 'browser_session_save', { name: 'a', tab: o });
    await ok(t, 'browser_session_save', { name: 'a' });
    await ok(t, 'browser_close_tab', { tab: o });
    if (i % 3 === 2) await ok(t, 'browser_contexts', { action: 'close', name: ctx });
  }
});

t.test('concurrent saves and loads with context closes between', async (t) => {
  for (let i = 0; i < 4; i++) {
    const ctx = `k${i}`;
    const o = tabOf((await ok(t, 'browser_open', { url: `${site.url}/account`, context: ctx })).text);
    const rs = await Promise.all([
      call(alice, 'browser_session_load', { name: 'a', tab: o }),
      call(alice, 'browser_session_save', { name: 'a', tab: o }),
      call(alice, 'browser_open', { url: `${site.url}/account`, context: ctx }),
      call(alice, 'browser_contexts', { action: 'close', name: ctx }),
      call(alice, 'browser_session_save', { name: 'a' }),
    ]);
    for (const r of rs) t.notMatch(r.text, /internal_error/, r.text.slice(0, 300));
  }
});

t.test('tabs opened together into a new context share it: a session loaded in one signs the other in', async (t) => {
  await ok(t, 'browser_open', { url: `${site.url}/login`, mode: 'act' });
  await ok(t, 'browser_session_save', { name: 'a' });
  const [x, y] = await Promise.all([0, 1].map(() => call(alice, 'browser_open', { url: `${site.url}/account`, context: 'twin' })));
  t.notOk(x.isError || y.isError, `${x.text}\n${y.text}`);
  const a = tabOf(x.text);
  const b = tabOf(y.text);
  await ok(t, 'browser_session_load', { name: 'a', tab: a });
  t.match(await bodyText(a), /Signed in/);
  await ok(t, 'browser_navigate', { tab: b, url: `${site.url}/account` });
  t.match(await bodyText(b), /Signed in/, 'the other tab of the context has the cookie too');
  await ok(t, 'browser_session_save', { name: 'a', tab: b });
});
