/**
 * Saved sessions end to end over MCP: sign in on the fixture site in the default profile, save, and the same
 * sign-in comes back in a fresh context and in a named profile (the server sees the cookie, local storage is
 * back, HttpOnly stays HttpOnly); other users cannot see or load it; blocked sites are refused; a wrong vault
 * key is a clear error; and no cookie or storage value appears in any result or audit entry of the file.
 */
import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { html, startSite, type FixtureSite } from '../fixtures/site.js';

/** The values that must never reach a result: the session cookie, a readable cookie, a local storage value. */
const SID = `sid-${randomBytes(12).toString('hex')}`;
const PREF = `pref-${randomBytes(12).toString('hex')}`;
const TOKEN = `ls-${randomBytes(12).toString('hex')}`;
/** Cookies of named sites: one for the whole of shop.test, one for the host shop.test alone, one of another site. */
const SHARED = `shared-${randomBytes(12).toString('hex')}`;
const HOSTONLY = `hostonly-${randomBytes(12).toString('hex')}`;
const OTHER = `other-${randomBytes(12).toString('hex')}`;

const dataDir = mkdtempSync(join(tmpdir(), 'browserd-sessions-'));
let d: TestDaemon;
let site: FixtureSite;
let alice: Client;
let aliceToken: string;
let bob: Client;
/** Every result of the file, raw, for the scan at the end. */
const results: unknown[] = [];

async function run(client: Client, name: string, args: Record<string, unknown> = {}) {
  const r = await call(client, name, args);
  results.push(r.raw);
  return r;
}
const tabOf = (text: string) => /\bOpened tab ((?:[a-z0-9_-]+\/)?t\d+)/.exec(text)![1];
const bodyText = async (client: Client, tab: string) => (await run(client, 'browser_evaluate', { tab, js: 'document.body.innerText' })).text;
/** True/false questions about the page's own state, so no value is ever returned. */
const ask = async (client: Client, tab: string, js: string) => {
  const r = await run(client, 'browser_evaluate', { tab, js: `String(${js})` });
  if (r.isError) throw new Error(r.text);
  return /\btrue\b/.test(r.text);
};
const hasToken = (client: Client, tab: string) => ask(client, tab, `localStorage.getItem('token') === ${JSON.stringify(TOKEN)}`);
const hasPrefCookie = (client: Client, tab: string) => ask(client, tab, `document.cookie.includes(${JSON.stringify(`pref=${PREF}`)})`);

t.before(async () => {
  site = await startSite();
  site.route('/login', (_req, res) => {
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'set-cookie': [`sid=${SID}; Path=/; HttpOnly; SameSite=Lax`, `pref=${PREF}; Path=/; Max-Age=3600`],
    });
    res.end(html(`<h1>Welcome</h1><script>localStorage.setItem('token', ${JSON.stringify(TOKEN)})</script>`));
  });
  site.route('/account', (req, res) => {
    const signedIn = (req.headers.cookie ?? '').split(/;\s*/).includes(`sid=${SID}`);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html(`<h1>${signedIn ? 'Signed in as alice' : 'Signed out'}</h1>`));
  });
  site.route('/set-shop', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': [`shared=${SHARED}; Domain=shop.test; Path=/`, `hostonly=${HOSTONLY}; Path=/`] });
    res.end(html('<h1>shop cookies set</h1>'));
  });
  site.route('/set-other', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': [`other=${OTHER}; Path=/`] });
    res.end(html('<h1>other cookie set</h1>'));
  });
  // Names which cookies arrived, never their values.
  site.route('/which', (req, res) => {
    const names = (req.headers.cookie ?? '').split(/;\s*/).filter(Boolean).map((c) => c.split('=')[0]).sort();
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(html(`<h1>cookies: ${names.join(' ') || 'none'}</h1>`));
  });
  d = await startTestDaemon({}, { keepDataDir: dataDir });
  aliceToken = await d.addUser('alice');
  alice = await d.mcp(aliceToken);
  bob = await d.mcp(await d.addUser('bob'));
});
t.teardown(async () => {
  await d.stop();
  await site.close();
  rmSync(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

let source: string;

t.test('a session saved in the default profile signs a fresh context in', async (t) => {
  const a = await run(alice, 'browser_open', { url: `${site.url}/login`, mode: 'act' });
  t.notOk(a.isError, a.text);
  source = tabOf(a.text);
  t.notOk((await run(alice, 'browser_navigate', { tab: source, url: `${site.url}/account` })).isError);
  t.match(await bodyText(alice, source), /Signed in as alice/);

  const saved = await run(alice, 'browser_session_save', { name: 'work', tab: source });
  t.notOk(saved.isError, saved.text);
  t.match(saved.text, /Saved session work .*2 cookie\(s\) for 127\.0\.0\.1/);
  t.match(saved.text, new RegExp(`local storage of ${site.origin.replace(/[.]/g, '\\.')}`));
  t.notMatch(saved.text, /replaced/);

  const b = await run(alice, 'browser_open', { url: `${site.url}/account`, context: 'fresh' });
  t.notOk(b.isError, b.text);
  const fresh = tabOf(b.text);
  t.match(await bodyText(alice, fresh), /Signed out/, 'a new context starts signed out');
  t.equal(await hasToken(alice, fresh), false);

  const before = site.requests.length;
  const loaded = await run(alice, 'browser_session_load', { name: 'work', tab: fresh });
  t.notOk(loaded.isError, loaded.text);
  t.match(loaded.text, /Loaded session work into tab t\d+ \(context fresh\): 2 cookie\(s\)/);
  t.match(loaded.text, /Reloaded the tab/);
  t.match(loaded.text, /read mode/, 'loading into a read tab is allowed and says what that means');
  const after = site.requests.slice(before);
  t.ok(after.some((r) => r.path === '/account' && (r.headers.cookie ?? '').includes(`sid=${SID}`)), 'the reload carried the session cookie to the server');
  t.notOk(after.some((r) => r.path === '/'), 'restoring local storage asked the site for nothing');
  t.match(await bodyText(alice, fresh), /Signed in as alice/);
  t.equal(await hasToken(alice, fresh), true, 'local storage is back');
  t.equal(await hasPrefCookie(alice, fresh), true, 'a script-readable cookie is readable again');
  t.equal(await ask(alice, fresh, `document.cookie.includes('sid=')`), false, 'the HttpOnly cookie stayed HttpOnly');
  const tabs = await run(alice, 'browser_tabs');
  t.match(tabs.text, new RegExp(`${fresh}(?: \\(default\\))? \\[read, context fresh\\] ${site.url.replace(/[.]/g, '\\.')}/account`), 'the tab stayed on its page');
  t.notMatch(tabs.text, /about:blank|\/\s*$/m, 'the scratch page that restored local storage is no tab of the user');
});

t.test('loading into a named profile works too', async (t) => {
  const p = await run(alice, 'browser_open', { url: `${site.url}/account`, profile: 'other' });
  t.notOk(p.isError, p.text);
  const tab = tabOf(p.text);
  t.match(tab, /^other\/t\d+$/);
  t.match(await bodyText(alice, tab), /Signed out/);
  const loaded = await run(alice, 'browser_session_load', { name: 'work', tab });
  t.notOk(loaded.isError, loaded.text);
  t.match(loaded.text, /\(profile other\)/);
  t.match(await bodyText(alice, tab), /Signed in as alice/);
  t.equal(await hasToken(alice, tab), true);
  t.notOk((await run(alice, 'browser_close_tab', { tab })).isError);
});

t.test('a tab on another page gets the state without being moved', async (t) => {
  const o = await run(alice, 'browser_open', { context: 'blank' });
  const tab = tabOf(o.text);
  const loaded = await run(alice, 'browser_session_load', { name: 'work', tab });
  t.notOk(loaded.isError, loaded.text);
  t.match(loaded.text, /not on 127\.0\.0\.1: navigate there/);
  t.notOk((await run(alice, 'browser_navigate', { tab, url: `${site.url}/account` })).isError);
  t.match(await bodyText(alice, tab), /Signed in as alice/);
  t.equal(await hasToken(alice, tab), true);
});

t.test('a session holds the cookies of the tab\'s site only, domain and host-only cookies as they were', async (t) => {
  const shop = (host: string, path: string) => `http://${host}:${site.port}${path}`;
  const o = await run(alice, 'browser_open', { url: shop('shop.test', '/set-shop') });
  const tab = tabOf(o.text);
  t.notOk((await run(alice, 'browser_navigate', { tab, url: shop('elsewhere.test', '/set-other') })).isError);
  t.notOk((await run(alice, 'browser_navigate', { tab, url: shop('www.shop.test', '/which') })).isError);
  t.match(await bodyText(alice, tab), /cookies: shared$/m);
  const saved = await run(alice, 'browser_session_save', { name: 'shop', tab });
  t.notOk(saved.isError, saved.text);
  t.match(saved.text, /2 cookie\(s\) for shop\.test;/, "shop.test's two cookies; not elsewhere.test's, not 127.0.0.1's");

  const f = await run(alice, 'browser_open', { url: shop('www.shop.test', '/which'), context: 'shopfresh' });
  const fresh = tabOf(f.text);
  t.match(await bodyText(alice, fresh), /cookies: none/);
  t.notOk((await run(alice, 'browser_session_load', { name: 'shop', tab: fresh })).isError);
  t.match(await bodyText(alice, fresh), /cookies: shared$/m, 'the domain cookie reaches www; the host-only one stayed host-only');
  t.notOk((await run(alice, 'browser_navigate', { tab: fresh, url: shop('shop.test', '/which') })).isError);
  t.match(await bodyText(alice, fresh), /cookies: hostonly shared$/m, 'shop.test itself gets both');
  t.notOk((await run(alice, 'browser_navigate', { tab: fresh, url: shop('elsewhere.test', '/which') })).isError);
  t.match(await bodyText(alice, fresh), /cookies: none/, "another site's cookie was never saved");
  t.notOk((await run(alice, 'browser_session_delete', { name: 'shop' })).isError);
});

t.test('list shows names, sites and counts only; saving again replaces and says so', async (t) => {
  const list = await run(alice, 'browser_session_list');
  t.notOk(list.isError, list.text);
  t.match(list.text, /work: sites 127\.0\.0\.1; 2 cookie\(s\); local storage of 1 origin\(s\); saved \d{4}-/);
  const rest = await d.rest(aliceToken, 'POST', '/v1/tools/browser_session_list', {});
  results.push(rest.json);
  t.equal(rest.status, 200);
  t.same(Object.keys(rest.json.sessions[0]).sort(), ['cookies', 'name', 'savedAt', 'sites', 'storageOrigins'], 'REST lists the same fields, no values');
  t.same(rest.json.sessions[0].sites, ['127.0.0.1']);
  const again = await run(alice, 'browser_session_save', { name: 'work', tab: source });
  t.notOk(again.isError, again.text);
  t.match(again.text, /replaced the session previously saved as work/);
  t.equal((await run(alice, 'browser_session_list')).text.split('\n').filter((l) => l.startsWith('work:')).length, 1);
});

t.test("another user can neither see nor load nor delete alice's session", async (t) => {
  const list = await run(bob, 'browser_session_list');
  t.notOk(list.isError, list.text);
  t.match(list.text, /No saved sessions/);
  const o = await run(bob, 'browser_open', { url: `${site.url}/account` });
  const tab = tabOf(o.text);
  const load = await run(bob, 'browser_session_load', { name: 'work', tab });
  t.ok(load.isError);
  t.match(load.text, /Error \[not_found\]: no saved session work/);
  t.match(await bodyText(bob, tab), /Signed out/);
  const del = await run(bob, 'browser_session_delete', { name: 'work' });
  t.match(del.text, /Error \[not_found\]/);
  t.match((await run(alice, 'browser_session_list')).text, /^work:/m, "alice's session is still there");
});

t.test('bad names and unknown sessions are clear errors that change nothing', async (t) => {
  const unknown = await run(alice, 'browser_session_load', { name: 'nope' });
  t.match(unknown.text, /Error \[not_found\]: no saved session nope/);
  t.match(unknown.text, /Next: .*browser_session_list/);
  const bad = await run(alice, 'browser_session_save', { name: '../work', tab: source });
  t.match(bad.text, /Error \[validation_error\]/);
  const blank = await run(alice, 'browser_open', {});
  const nothing = await run(alice, 'browser_session_save', { name: 'empty', tab: tabOf(blank.text) });
  t.match(nothing.text, /Error \[action_failed\]: tab t\d+ is on no web site/);
  t.notMatch((await run(alice, 'browser_session_list')).text, /empty/);
});

t.test("sites the user's host policy blocks are refused, and nothing is loaded", async (t) => {
  const o = await run(alice, 'browser_open', { url: `${site.url}/account`, context: 'guarded' });
  const tab = tabOf(o.text);
  await d.daemon.env.policies.upsert('alice', { pattern: '127.0.0.1', access: 'blocked' });
  const refused = await run(alice, 'browser_session_load', { name: 'work', tab });
  await d.daemon.env.policies.remove('alice', '127.0.0.1');
  t.ok(refused.isError);
  t.match(refused.text, /Error \[blocked\]: session work holds state for 127\.0\.0\.1, which your host policy blocks; nothing was loaded/);
  t.equal(await hasPrefCookie(alice, tab), false, 'no cookie was set');
  t.equal(await hasToken(alice, tab), false, 'no storage was restored');
});

t.test('delete removes it for good', async (t) => {
  const del = await run(alice, 'browser_session_delete', { name: 'work' });
  t.notOk(del.isError, del.text);
  t.match(del.text, /Deleted saved session work/);
  t.match((await run(alice, 'browser_session_list')).text, /No saved sessions/);
  t.match((await run(alice, 'browser_session_load', { name: 'work', tab: source })).text, /Error \[not_found\]/);
  t.match((await run(alice, 'browser_session_delete', { name: 'work' })).text, /Error \[not_found\]/);
});

t.test('no cookie or storage value appears in any result, log line or audit entry of this file', async (t) => {
  // One more saved session, so the restart below has something sealed to fail on.
  t.notOk((await run(alice, 'browser_session_save', { name: 'kept', tab: source })).isError);
  const all = JSON.stringify(results);
  const audit = JSON.stringify(d.daemon.env.audit.all(10000));
  // Every log line the daemon wrote so far (the test daemon keeps them all).
  const log = d.logLines.join('');
  t.match(log, /browser started/, 'the daemon log was captured');
  t.match(audit, /browser_session_load/, 'the session tools are audited');
  for (const [what, value] of [['session cookie', SID], ['readable cookie', PREF], ['local storage value', TOKEN], ['domain cookie', SHARED], ['host-only cookie', HOSTONLY], ['unsaved cookie', OTHER]]) {
    t.notMatch(all, value, `no ${what} in any result`);
    t.notMatch(audit, value, `no ${what} in the audit`);
    t.notMatch(log, value, `no ${what} in the log`);
  }
  t.ok(results.length > 30, 'the scan covered the whole file');
});

t.test('a saved session survives a restart; a wrong vault key then is a clear error, not an empty list', async (t) => {
  await d.restart();
  const same = await d.mcp(aliceToken);
  t.match((await run(same, 'browser_session_list')).text, /^kept: sites 127\.0\.0\.1; 2 cookie\(s\)/m, 'still there after a restart with the same key');
  await d.stop();
  writeFileSync(join(dataDir, 'vault.key'), `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  d = await startTestDaemon({}, { keepDataDir: dataDir });
  // alice's token still works: the user store is in the kept data dir; only the key changed.
  const again = await d.mcp(aliceToken);
  for (const tool of ['browser_session_list', 'browser_session_delete', 'browser_session_load']) {
    const r = await run(again, tool, tool === 'browser_session_list' ? {} : { name: 'kept' });
    t.ok(r.isError, `${tool} fails`);
    t.match(r.text, /Error \[not_configured\]: the vault key from .* is not the key this vault was sealed with/, tool);
    t.match(r.text, /Next: Restore the original key/);
  }
});
