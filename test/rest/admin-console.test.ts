/**
 * The admin console driven in a real browser (playwright-core over the system Chromium): refused without the
 * key, with a user token, with the key in a URL; log in; every browser setting changed through the form and
 * seen at GET /v1/browser/settings, bad input changing nothing; a cross-site post with the admin's cookie
 * changing nothing; users added, re-keyed and disabled; host policy and approvals; the audit; running browsers
 * with their memory. The admin key is in no log line and no page.
 */
import t from 'tap';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startTestDaemon } from '../fixtures/daemon.js';
import { callTool } from '../../daemon/tools/dispatch.js';
import { startSite } from '../fixtures/site.js';

const d = await startTestDaemon({ maxBrowsers: 3 });
const site = await startSite();
let key = await d.daemon.env.users.replaceAdminKey();
const alice = await d.addUser('alice');
const browser: Browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
t.teardown(async () => {
  await browser.close();
  await site.close();
  await d.stop();
});

/** Every console page body the browser received, to look for the key in. */
const pages: string[] = [];
const context: BrowserContext = await browser.newContext();
context.on('response', (res) => {
  if (res.url().startsWith(d.url)) void res.text().then((b) => pages.push(b), () => undefined);
});
const page: Page = await context.newPage();

const settings = async () => (await d.rest(alice, 'GET', '/v1/browser/settings')).json.settings;
const cookieHeader = async () => (await context.cookies(`${d.url}/admin`)).map((c) => `${c.name}=${c.value}`).join('; ');
/** A post to the console from a program, with the admin's cookie and the console's own Origin. */
const postAs = async (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(`${d.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: d.url, Cookie: await cookieHeader(), ...headers },
    body: new URLSearchParams(fields).toString(),
  });

t.test('refused without the key, with a user token, and with the key in a URL', async (t) => {
  const none = await fetch(`${d.url}/admin/users`);
  t.equal(none.status, 401);
  const body = await none.text();
  t.match(body, /id="login"/, 'the login form instead');
  t.notMatch(body, /id="users"/);

  for (const bearer of [alice, key]) {
    const r = await fetch(`${d.url}/admin/users`, { headers: { Authorization: `Bearer ${bearer}` } });
    t.equal(r.status, 401, 'a bearer header is no login to the console');
    t.notMatch(await r.text(), /id="users"/);
  }

  const withToken = await fetch(`${d.url}/admin/login`, { method: 'POST', redirect: 'manual', headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: d.url }, body: new URLSearchParams({ key: alice }).toString() });
  t.equal(withToken.status, 401, 'the login form refuses a user token');
  t.notOk(withToken.headers.get('set-cookie'), 'no session');
  t.match(await withToken.text(), /user token/);

  for (const path of [`/admin?key=${key}`, `/admin/users?k=${key}`, `/admin/settings?admin_key=x`]) {
    const r = await fetch(`${d.url}${path}`);
    t.equal(r.status, 400, path.replace(key, 'KEY'));
    t.notOk(r.headers.get('set-cookie'));
    const text = await r.text();
    t.notOk(text.includes(key), 'the key is not echoed');
    t.match(text, /never goes in a URL/);
  }
  const postedInUrl = await fetch(`${d.url}/admin/login?key=${key}`, { method: 'POST', redirect: 'manual', headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: d.url }, body: '' });
  t.equal(postedInUrl.status, 400, 'a key in the login URL does not log in');
  t.notOk(postedInUrl.headers.get('set-cookie'));
});

t.test('log in through the form: a strict, HttpOnly session cookie and pages that cannot be framed or cached', async (t) => {
  const first = await page.goto(`${d.url}/admin`);
  t.equal(first?.status(), 200);
  await page.fill('#key', key);
  const [landed] = await Promise.all([page.waitForResponse((r) => r.url() === `${d.url}/admin` && r.request().method() === 'GET'), page.click('#login button[type=submit]')]);
  t.equal(landed.status(), 200);
  t.equal(await page.textContent('h1'), 'Overview');
  t.equal(page.url(), `${d.url}/admin`, 'the key is not in the address');
  const [cookie] = await context.cookies(`${d.url}/admin`);
  t.ok(cookie, 'a session cookie');
  t.equal(cookie!.httpOnly, true);
  t.equal(cookie!.sameSite, 'Strict');
  t.equal(cookie!.path, '/admin');
  t.notOk(cookie!.value.includes(key));
  const h = landed.headers();
  t.equal(h['cache-control'], 'no-store');
  t.equal(h['x-frame-options'], 'DENY');
  t.match(h['content-security-policy'], /frame-ancestors 'none'/);
  t.match(h['content-security-policy'], /default-src 'none'/);
  t.notMatch(h['content-security-policy'], /script-src/, 'no script at all');
  t.ok(h['referrer-policy']);
});

t.test('every setting changed through the form shows in GET /v1/browser/settings; bad input changes nothing', async (t) => {
  await page.goto(`${d.url}/admin/settings`);
  for (const name of ['profile_enabled', 'profile.hardwareConcurrency', 'profile.deviceMemory', 'profile.screen.width', 'profile.webgl.vendor', 'profile.platform', 'profile.userAgentMetadata', 'profile.humanize', 'block_ads', 'max_browsers', 'signup']) {
    t.equal(await page.locator('label', { hasText: new RegExp(`^${name.replace(/\./g, '\\.')}$`) }).count(), 1, `a control labelled ${name}`);
  }
  await page.selectOption('#profile_enabled', 'sites');
  await page.fill('#profile_enabled_sites', 'shop.test\n*.news.test');
  await page.fill('#profile-hardwareConcurrency', '8');
  await page.selectOption('#profile-deviceMemory', '4');
  await page.fill('#profile-screen-width', '1920');
  await page.fill('#profile-screen-height', '1080');
  await page.fill('#profile-webgl-vendor', 'Google Inc. (Intel)');
  await page.fill('#profile-webgl-renderer', 'ANGLE (Intel)');
  await page.fill('#profile-platform', 'Win32');
  await page.fill('#profile-userAgentMetadata', '{"platform": "Windows", "platformVersion": "15.0.0"}');
  await page.uncheck('#profile-humanize');
  await page.fill('#block_ads', 'ads.test, *.tracker.test');
  await page.fill('#max_browsers', '2');
  await page.check('#signup');
  await page.click('#save-settings');
  await page.waitForSelector('#notice');
  t.same(await settings(), {
    profile_enabled: ['shop.test', '*.news.test'],
    profile: { hardwareConcurrency: 8, deviceMemory: 4, screen: { width: 1920, height: 1080 }, webgl: { vendor: 'Google Inc. (Intel)', renderer: 'ANGLE (Intel)' }, platform: 'Win32', userAgentMetadata: { platform: 'Windows', platformVersion: '15.0.0' }, humanize: false },
    block_ads: ['ads.test', '*.tracker.test'],
    max_browsers: 2,
    signup: true,
  });
  t.equal(await page.inputValue('#profile-platform'), 'Win32', 'the form shows what is in force');

  await page.selectOption('#profile_enabled', 'all');
  await page.fill('#profile-hardwareConcurrency', '');
  await page.selectOption('#profile-deviceMemory', '');
  await page.fill('#profile-screen-width', '');
  await page.fill('#profile-screen-height', '');
  await page.fill('#profile-webgl-vendor', '');
  await page.fill('#profile-webgl-renderer', '');
  await page.fill('#profile-platform', '');
  await page.fill('#profile-userAgentMetadata', '');
  await page.check('#profile-humanize');
  await page.fill('#block_ads', '');
  await page.fill('#max_browsers', '3');
  await page.uncheck('#signup');
  await page.click('#save-settings');
  await page.waitForSelector('#notice');
  t.same(await settings(), { profile_enabled: true, profile: null, block_ads: [], max_browsers: 3, signup: false }, 'back to native, every site');

  const before = await settings();
  const bad: [string, string, RegExp][] = [
    ['#max_browsers', 'zero', /max_browsers/],
    ['#max_browsers', '0', /max_browsers/],
    ['#block_ads', 'https://ads.test/', /block_ads/],
    ['#profile-hardwareConcurrency', '500', /hardwareConcurrency/],
    ['#profile-userAgentMetadata', '{not json', /userAgentMetadata/],
  ];
  for (const [field, value, why] of bad) {
    await page.goto(`${d.url}/admin/settings`);
    await page.check('#signup'); // a good change in the same post must not go through either
    await page.fill(field, value);
    const [res] = await Promise.all([page.waitForResponse((r) => r.url() === `${d.url}/admin/settings` && r.request().method() === 'POST'), page.click('#save-settings')]);
    t.equal(res.status(), 400, `${field} = ${value}`);
    t.match(await page.textContent('#error'), why);
    t.same(await settings(), before, 'nothing changed');
  }
});

t.test('a cross-site post with the admin cookie but no CSRF token changes nothing', async (t) => {
  const before = await settings();
  // Another loopback origin (same site for cookies: the Strict cookie is sent) posts a form to the console.
  site.route(
    '/evil',
    `<!doctype html><form id="f" method="post" action="${d.url}/admin/settings"><input name="signup" value="on"><input name="max_browsers" value="1"><input name="profile_enabled" value="all"></form><script>document.getElementById('f').submit()</script>`,
  );
  const [res] = await Promise.all([page.waitForResponse((r) => r.url() === `${d.url}/admin/settings` && r.request().method() === 'POST'), page.goto(`${site.url}/evil`)]);
  t.equal(res.status(), 403);
  t.same(await settings(), before, 'nothing changed');

  // The console's own checks, past app.ts: the right Origin but no token, a wrong token, a same-site fetch.
  const noToken = await postAs('/admin/settings', { signup: 'on', max_browsers: '1', profile_enabled: 'all' });
  t.equal(noToken.status, 403);
  t.match(await noToken.text(), /out of date or was not sent from this console/);
  const wrongToken = await postAs('/admin/settings', { csrf: 'x'.repeat(43), signup: 'on', max_browsers: '1', profile_enabled: 'all' });
  t.equal(wrongToken.status, 403);
  const sameSite = await postAs('/admin/users', { name: 'mallory' }, { 'Sec-Fetch-Site': 'same-site' });
  t.equal(sameSite.status, 403);
  const noOrigin = await fetch(`${d.url}/admin/users`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: await cookieHeader() }, body: 'name=mallory' });
  t.equal(noOrigin.status, 403, 'no Origin and no Referer: refused');
  t.same(await settings(), before, 'nothing changed');
  t.notOk(d.daemon.env.users.get('mallory'), 'nobody added');
});

t.test('users: added with the token shown once, re-keyed (old token 401), disabled (401, browser stopped), enabled', async (t) => {
  await page.goto(`${d.url}/admin/users`);
  await page.fill('#name', 'bob');
  await page.click('#add-user button');
  const token = (await page.textContent('#new-token'))!.trim();
  t.match(token, /^bd_/);
  t.equal((await d.rest(token, 'GET', '/v1/me')).json.user, 'bob');
  await page.goto(`${d.url}/admin/users`);
  t.equal(await page.locator('#new-token').count(), 0, 'shown once: not on the next visit');
  t.notOk((await page.content()).includes(token));

  await page.fill('#name', 'Bad Name');
  await page.click('#add-user button');
  t.match(await page.textContent('#error'), /lowercase/);
  await page.fill('#name', 'bob');
  await page.click('#add-user button');
  t.match(await page.textContent('#error'), /exists/);

  await page.click('tr[data-user="bob"] button:has-text("Replace token")');
  const second = (await page.textContent('#new-token'))!.trim();
  t.not(second, token);
  const old = await d.rest(token, 'GET', '/v1/me');
  t.equal(old.status, 401, 'the old token is refused');
  t.equal((await d.rest(second, 'GET', '/v1/me')).status, 200);

  // bob runs a browser; disabling him stops it and refuses his token everywhere.
  t.equal((await d.rest(second, 'POST', '/v1/tabs', { url: 'about:blank' })).status, 201);
  const pid = d.daemon.env.pool.peek('bob')!.pid!;
  t.ok(pid);
  await page.click('tr[data-user="bob"] button:has-text("Disable")');
  await page.waitForSelector('#notice');
  t.equal(await page.textContent('tr[data-user="bob"] .state'), 'disabled');
  t.notOk(d.daemon.env.pool.peek('bob'), 'his browser is stopped');
  t.throws(() => process.kill(pid, 0), 'its process is gone');
  const refused = await d.rest(second, 'GET', '/v1/me');
  t.equal(refused.status, 401);
  t.match(refused.json.error.message, /disabled/);
  t.ok(refused.json.error.next);
  t.equal((await d.rest(second, 'POST', '/v1/tools/browser_tabs', {})).status, 401, 'tools too');
  const mcp = await fetch(`${d.url}/mcp`, { method: 'POST', headers: { Authorization: `Bearer ${second}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } } }) });
  t.equal(mcp.status, 401, 'and MCP');
  // Work started before the disable (a task, monitor, crawl, replay) holds the old record: dispatch reads it anew.
  const stale = { ...d.daemon.env.users.get('bob')!, disabled: false };
  const background = await callTool(d.daemon.pipeline, stale, 'browser_open', { url: 'about:blank' }, { via: 'internal' });
  t.equal(background.ok ? 'ok' : background.error.code, 'unauthorized', 'background work of a disabled account is refused');
  t.notOk(d.daemon.env.pool.peek('bob'), 'and starts no browser');

  await page.click('tr[data-user="bob"] button:has-text("Enable")');
  await page.waitForSelector('#notice');
  t.equal((await d.rest(second, 'GET', '/v1/me')).status, 200, 'enabled: the token works again');
});

t.test('host policy and approvals per user', async (t) => {
  await page.goto(`${d.url}/admin/policies?user=alice`);
  await page.fill('#pattern', 'shop.test');
  await page.selectOption('#access', 'read_only');
  await page.click('#add-rule button');
  await page.waitForSelector('#notice');
  t.same((await d.rest(alice, 'GET', '/v1/me')).json.policy.hostRules, [{ pattern: 'shop.test', access: 'read_only' }]);

  await page.fill('#pattern', 'https://bad.test/path');
  await page.click('#add-rule button');
  t.match(await page.textContent('#error'), /pattern/);
  t.same((await d.rest(alice, 'GET', '/v1/me')).json.policy.hostRules, [{ pattern: 'shop.test', access: 'read_only' }], 'a bad rule changes nothing');

  await page.click('#rules button:has-text("Remove")');
  await page.waitForSelector('#notice');
  t.same((await d.rest(alice, 'GET', '/v1/me')).json.policy.hostRules, []);

  await page.goto(`${d.url}/admin/approvals`);
  await page.check('#approvals-alice');
  await page.uncheck('#takeover-alice');
  await page.click('tr[data-user="alice"] button');
  await page.waitForSelector('#notice');
  const policy = (await d.rest(alice, 'GET', '/v1/me')).json.policy;
  t.equal(policy.approvals, true);
  t.equal(policy.takeover, false);
  t.equal(await page.isChecked('#approvals-alice'), true, 'the page shows it');
});

t.test('the audit page lists the changes, made as the admin', async (t) => {
  await page.goto(`${d.url}/admin/audit?limit=200`);
  const text = (await page.textContent('#audit'))!;
  for (const tool of ['admin.console_login', 'admin.browser_settings', 'admin.user_add', 'admin.user_token', 'admin.user_disable', 'admin.user_enable', 'admin.host_policy', 'admin.user_policy']) t.match(text, tool);
  t.match(text, '(admin)');
  const refused = d.daemon.env.audit.all(500).filter((e) => e.tool === 'admin.browser_settings' && e.outcome === 'validation_error');
  t.ok(refused.length >= 4, 'refused changes are audited too');
  t.notOk(JSON.stringify(d.daemon.env.audit.all(500)).includes('ANGLE'), 'setting values are not in the audit');
});

t.test('running browsers with their memory', async (t) => {
  t.equal((await d.rest(alice, 'POST', '/v1/tabs', { url: `${site.url}/evil`.replace('/evil', '/') })).status, 201);
  await page.goto(`${d.url}/admin/browsers`);
  const row = page.locator('#browsers tr[data-user="alice"]');
  t.equal(await row.count(), 1);
  const cells = await row.locator('td').allTextContents();
  t.equal(cells[1], 'default');
  t.equal(Number(cells[2]), d.daemon.env.pool.peek('alice')!.pid, 'its pid');
  t.ok(Number(cells[4]) >= 1, 'its tabs');
  t.ok(Number(cells[5]) >= 2, 'Chromium runs several processes');
  const rss = /^([\d.]+) MB$/.exec(cells[6]!);
  t.ok(rss && Number(rss[1]) > 20, `RSS ${cells[6]}`);
  t.match(cells[7], /MB$/, 'PSS');
});

t.test('log out, and a replaced admin key ends every session', async (t) => {
  const forged = await postAs('/admin/logout', {});
  t.equal(forged.status, 403, 'a log-out without the token is refused');
  t.equal((await fetch(`${d.url}/admin/users`, { headers: { Cookie: await cookieHeader() } })).status, 200, 'still logged in');
  await page.click('#logout');
  await page.waitForSelector('#login');
  const after = await fetch(`${d.url}/admin/users`, { headers: { Cookie: await cookieHeader() } });
  t.equal(after.status, 401);

  await page.goto(`${d.url}/admin`);
  await page.fill('#key', key);
  await page.click('#login button[type=submit]');
  await page.waitForSelector('#logout');
  t.equal((await fetch(`${d.url}/admin/users`, { headers: { Cookie: await cookieHeader() } })).status, 200);
  key = await d.daemon.env.users.replaceAdminKey();
  t.equal((await fetch(`${d.url}/admin/users`, { headers: { Cookie: await cookieHeader() } })).status, 401, 'the old key\'s session is over');
});

t.test('the admin key is in no log line and no page', async (t) => {
  await page.goto(`${d.url}/admin`);
  await page.fill('#key', key);
  await page.click('#login button[type=submit]');
  await page.waitForSelector('#logout');
  await page.goto(`${d.url}/admin/audit`);
  t.ok(pages.length > 20, `${pages.length} pages seen`);
  for (const k of [key]) {
    t.notOk(pages.some((p) => p.includes(k)), 'no page holds the key');
    t.notOk(d.logLines.some((l) => l.includes(k)), 'no log line holds the key');
    t.notOk(JSON.stringify(d.daemon.env.audit.all(1000)).includes(k), 'no audit entry holds the key');
  }
});
