/**
 * The login tools through the real MCP client against a fixture site with real sign-ins: browser_login end
 * to end (TOTP confirmed by the server, two-step, wrong password, CAPTCHA, a code nobody can fill), and
 * fill_secret refused wherever a secret must not go (another host, a look-alike, a redirect, a read tab, a
 * read-only site). Every result of the file is kept and scanned at the end: no password, TOTP secret or
 * filled code may appear in any of them.
 */
import t from 'tap';
import { call as rawCall, refOf, startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { startLoginSite, TOTP_SECRET, USERS, type LoginSite } from '../fixtures/login-site.js';
import { pageEval } from '../fixtures/page-eval.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

let d: TestDaemon;
let site: LoginSite;
let client: Client;
const results: string[] = [];
const API_KEY = 'sk-live-Zq81xWv3Tt0pLmN4';

async function call(name: string, args: Record<string, unknown> = {}) {
  const r = await rawCall(client, name, args);
  results.push(JSON.stringify(r.raw));
  return r;
}
const errorCode = (text: string) => /^Error \[([a-z_]+)\]/m.exec(text)?.[1];
const tabOf = (text: string) => /\b(t\d+)\b/.exec(text)![1];

async function openAct(url: string) {
  return tabOf((await call('browser_open', { url, mode: 'act' })).text);
}

async function fieldValue(tab: string, selector: string): Promise<string> {
  // Read from the test's side: no script of the agent's runs in a page that holds a vault value.
  return String(await pageEval(d, 'alice', tab, `document.querySelector(${JSON.stringify(selector)}).value.length`));
}

t.before(async () => {
  site = await startLoginSite();
  d = await startTestDaemon();
  const token = await d.addUser('alice');
  client = await d.mcp(token);
  const vault = d.daemon.env.vault;
  const { password } = USERS.alice;
  await vault.setFields('alice', 'login.test', { loginUrl: `${site.at('login.test')}/login`, fields: { username: 'alice', password, totp: TOTP_SECRET, api_key: API_KEY } });
  await vault.setFields('alice', 'nototp.test', { loginUrl: `${site.at('nototp.test')}/login`, fields: { username: 'alice', password } });
  await vault.setFields('alice', 'twostep.test', { loginUrl: `${site.at('twostep.test')}/two-step`, fields: { username: 'bob@twostep.test', password: USERS.bob.password } });
  await vault.setFields('alice', 'wrong.test', { loginUrl: `${site.at('wrong.test')}/login`, fields: { username: 'alice', password: 'not-the-password-1' } });
  await vault.setFields('alice', 'captcha.test', { loginUrl: `${site.at('captcha.test')}/captcha`, fields: { username: 'alice', password } });
});

t.teardown(async () => {
  await d.stop();
  await site.close();
});

t.test('browser_vault_list gives names, kinds and field names, never a value', async (t) => {
  const r = await call('browser_vault_list');
  t.notOk(r.isError, r.text);
  t.match(r.text, /login\.test \(login\): api_key, password, totp, username/);
  t.match(r.text, /captcha\.test \(login\): password, username; login http:\/\/captcha\.test:\d+\/captcha/);
  t.notMatch(r.text, /correct horse|hunter2|GEZDGNBV/);
});

t.test('browser_login signs in end to end with a TOTP second step the server verifies', async (t) => {
  const tab = await openAct('about:blank');
  const r = await call('browser_login', { site: 'login.test', tab });
  t.notOk(r.isError, r.text);
  t.match(r.text, /Signed in to login\.test/);
  t.match(r.text, 'Outcome: signed_in.');
  t.match(r.text, 'answered with the authenticator code');
  t.match(r.text, `${site.at('login.test')}/account\n<<<end `);
  t.match(site.signedIn, [{ user: 'alice', host: 'login.test', via: 'totp' }], 'the server accepted password and code');
  t.equal(site.acceptedCodes.length, 1);
  t.equal(site.decoyHits, 0, 'no decoy password field got a value');
  const account = await call('browser_read_text', { tab });
  // The user name is a vault value too, so even the site's own greeting shows it hidden.
  t.match(account.text, /Signed in as \[secret hidden\]\./);
});

t.test('a two-step form: user name, Continue, then the password page', async (t) => {
  const tab = await openAct('about:blank');
  const r = await call('browser_login', { site: 'twostep.test', tab });
  t.notOk(r.isError, r.text);
  t.match(r.text, 'Outcome: signed_in.');
  t.match(r.text, `${site.at('twostep.test')}/account\n<<<end `);
  t.match(site.signedIn.at(-1), { user: 'bob', host: 'twostep.test', via: 'password' });
});

t.test('a wrong password is reported as such, once, without retrying', async (t) => {
  const before = site.requests.filter((q) => q.method === 'POST').length;
  const tab = await openAct('about:blank');
  const r = await call('browser_login', { site: 'wrong.test', tab });
  t.notOk(r.isError, r.text);
  t.match(r.text, 'Outcome: wrong_password.');
  t.match(r.text, /not accepted/);
  t.match(r.text, /Wrong user name or password/, 'the page\'s own error, fenced');
  t.equal(site.requests.filter((q) => q.method === 'POST').length - before, 1, 'one attempt only');
});

t.test('a CAPTCHA is reported for inspection and nothing is sent', async (t) => {
  const before = site.writes().length;
  const tab = await openAct('about:blank');
  const r = await call('browser_login', { site: 'captcha.test', tab });
  t.notOk(r.isError, r.text);
  t.match(r.text, 'Outcome: captcha.');
  t.match(r.text, /CAPTCHA \(recaptcha\).*browser_captcha_/);
  t.equal(site.writes().length, before);
});

t.test('a code prompt without totp or inbox: a person must enter it', async (t) => {
  const tab = await openAct('about:blank');
  const r = await call('browser_login', { site: 'nototp.test', tab });
  t.notOk(r.isError, r.text);
  t.match(r.text, 'Outcome: two_factor_needed.');
  t.match(r.text, `${site.at('nototp.test')}/2fa\n<<<end `);
  t.match(r.text, /A person must enter it/);
  t.notOk(site.signedIn.some((s) => s.host === 'nototp.test'));
});

t.test('browser_login refuses a read tab and a login URL on another host', async (t) => {
  const readTab = tabOf((await call('browser_open', { url: `${site.at('login.test')}/login`, mode: 'read' })).text);
  const r1 = await call('browser_login', { site: 'login.test', tab: readTab });
  t.equal(errorCode(r1.text), 'refused', r1.text);
  const tab = await openAct('about:blank');
  const r2 = await call('browser_login', { site: 'login.test', tab, loginUrl: `${site.at('login.test.evil.test')}/login` });
  t.equal(errorCode(r2.text), 'refused', r2.text);
  t.notOk(site.requests.some((q) => q.headers.host?.startsWith('login.test.evil.test')), 'the look-alike was not even opened');
});

t.test('browser_fill_totp finds the code field, fills and submits', async (t) => {
  const tab = await openAct(`${site.at('login.test')}/login`);
  const snap = (await call('browser_snapshot', { tab })).text;
  await call('browser_fill_secret', { tab, ref: refOf(snap, /textbox "Email or user name"/), site: 'login.test', field: 'username' });
  const pw = await call('browser_fill_secret', { tab, ref: refOf(snap, /textbox "Password"/), site: 'login.test', field: 'password' });
  t.notOk(pw.isError, pw.text);
  t.match(pw.text, /Filled password of login\.test into e\d+/);
  await call('browser_click', { tab, ref: refOf(snap, /button "Sign in"/) });
  const r = await call('browser_fill_totp', { tab, site: 'login.test' });
  t.notOk(r.isError, r.text);
  t.match(r.text, /Filled the authenticator code of login\.test into e\d+ and sent the form/);
  t.match(r.text, `${site.at('login.test')}/account\n<<<end `);
  t.equal(site.acceptedCodes.length, 2);
});

t.test('browser_fill_totp finds code fields by label, or by numeric input and length, and leaves others alone', async (t) => {
  for (const page of ['code-by-label', 'code-by-shape']) {
    const tab = await openAct(`${site.at('login.test')}/${page}`);
    const r = await call('browser_fill_totp', { tab, site: 'login.test', submit: false });
    t.notOk(r.isError, `${page}: ${r.text}`);
    t.notMatch(r.text, /sent the form/);
    t.equal(await fieldValue(tab, '#code'), '6', `${page}: six digits in the code field`);
    t.equal(await fieldValue(tab, 'input:not(#code)'), '0', `${page}: the other field stayed empty`);
  }
  const none = await openAct(`${site.at('login.test')}/fields`);
  const r = await call('browser_fill_totp', { tab: none, site: 'login.test' });
  t.equal(errorCode(r.text), 'not_found', r.text);
});

t.test('browser_fill_otp without an inbox says a person must be asked', async (t) => {
  const tab = await openAct(`${site.at('login.test')}/login`);
  const snap = (await call('browser_snapshot', { tab })).text;
  const r = await call('browser_fill_otp', { tab, site: 'login.test', ref: refOf(snap, /textbox "Password"/), timeoutS: 1 });
  t.notOk(r.isError, r.text);
  t.match(r.text, /A person must be asked.*browser_handoff/);
});

t.test('browser_login where the browser is already signed in says so instead of guessing', async (t) => {
  // The TOTP test left a session cookie for login.test: its /account page has no form.
  const tab = await openAct('about:blank');
  const r = await call('browser_login', { site: 'login.test', tab, loginUrl: `${site.at('login.test')}/account` });
  t.notOk(r.isError, r.text);
  t.match(r.text, 'Outcome: no_login_form.');
  t.match(r.text, /already be signed in/);
});

t.test('browser_fill_otp with an inbox but no code arriving: a clear error, nothing filled', async (t) => {
  await d.daemon.env.vault.setInbox('alice', 'sms-inbox', { smsId: 'inbox-test-1', smsSecret: 'forwarder-secret-123' });
  t.teardown(() => d.daemon.env.vault.deleteEntry('alice', 'sms-inbox'));
  const tab = await openAct(`${site.at('login.test')}/code-by-label`);
  const r = await call('browser_fill_otp', { tab, site: 'login.test', timeoutS: 1 });
  t.ok(r.isError, r.text);
  // Until inbox reading lands the wait is not_configured; with it, no message in time is a timeout.
  t.ok(['not_configured', 'timeout'].includes(errorCode(r.text) ?? ''), r.text);
  t.equal(await fieldValue(tab, '#code'), '0', 'the code field stayed empty');
});

t.test('fill_secret: unknown entry or field is not_found naming what exists', async (t) => {
  const tab = await openAct(`${site.at('login.test')}/fields`);
  const ref = refOf((await call('browser_snapshot', { tab })).text, /textbox "API key"/);
  const noEntry = await call('browser_fill_secret', { tab, ref, site: 'nope.test', field: 'password' });
  t.equal(errorCode(noEntry.text), 'not_found');
  t.match(noEntry.text, /login\.test/);
  const noField = await call('browser_fill_secret', { tab, ref, site: 'login.test', field: 'card' });
  t.equal(errorCode(noField.text), 'not_found');
  t.match(noField.text, /api_key, password, totp, username/);
});

t.test('fill_secret refuses pages that are not the entry\'s site', async (t) => {
  for (const host of ['other.test', 'login.test.evil.test', 'evillogin.test']) {
    const tab = await openAct(`${site.at(host)}/fields`);
    const ref = refOf((await call('browser_snapshot', { tab })).text, /textbox "Password"/);
    const r = await call('browser_fill_secret', { tab, ref, site: 'login.test', field: 'password' });
    t.equal(errorCode(r.text), 'refused', `${host}: ${r.text}`);
    t.equal(await fieldValue(tab, 'input[type=password]'), '0', `${host}: the field stayed empty`);
  }
  // A sub-domain of the entry is its site.
  const sub = await openAct(`${site.at('www.login.test')}/fields`);
  const ref = refOf((await call('browser_snapshot', { tab: sub })).text, /textbox "Password"/);
  const ok = await call('browser_fill_secret', { tab: sub, ref, site: 'login.test', field: 'password' });
  t.notOk(ok.isError, ok.text);
});

t.test('fill_secret refuses after a redirect took the tab to another host', async (t) => {
  const tab = await openAct(`${site.at('login.test')}/elsewhere`);
  const snap = (await call('browser_snapshot', { tab })).text;
  t.match(snap, /other\.test/);
  const r = await call('browser_fill_secret', { tab, ref: refOf(snap, /textbox "Password"/), site: 'login.test', field: 'password' });
  t.equal(errorCode(r.text), 'refused', r.text);
  t.match(r.text, /other\.test/);
});

t.test('fill_secret refuses a read tab', async (t) => {
  const tab = tabOf((await call('browser_open', { url: `${site.at('login.test')}/fields`, mode: 'read' })).text);
  const ref = refOf((await call('browser_snapshot', { tab })).text, /textbox "Password"/);
  const r = await call('browser_fill_secret', { tab, ref, site: 'login.test', field: 'password' });
  t.equal(errorCode(r.text), 'refused', r.text);
  t.match(r.text, /read tab/);
});

t.test('fill_secret refuses a site the user made read-only', async (t) => {
  await d.daemon.env.policies.upsert('alice', { pattern: 'login.test', access: 'read_only' });
  t.teardown(() => d.daemon.env.policies.remove('alice', 'login.test'));
  const tab = await openAct(`${site.at('login.test')}/fields`);
  const ref = refOf((await call('browser_snapshot', { tab })).text, /textbox "Password"/);
  const r = await call('browser_fill_secret', { tab, ref, site: 'login.test', field: 'password' });
  t.equal(errorCode(r.text), 'site_read_only', r.text);
  const login = await call('browser_login', { site: 'login.test', tab });
  t.equal(errorCode(login.text), 'site_read_only', `browser_login too: ${login.text}`);
  t.notOk(site.requests.some((q) => q.method === 'POST' && q.headers.host?.startsWith('login.test:') && q.path === '/save'), 'nothing was sent');
  // The policy also refuses scripts, so the field is read back once the rule is gone.
  await d.daemon.env.policies.remove('alice', 'login.test');
  t.equal(await fieldValue(tab, 'input[type=password]'), '0', 'the field stayed empty');
});

t.test('a non-password secret is masked in screenshots, even after the page restyles it', async (t) => {
  const shot = async (tab: string, ref: string) => (await call('browser_screenshot', { tab, ref })).raw.content.find((c: any) => c.type === 'image').data as string;
  // The same text filled ordinarily, and filled into a field the page itself draws as dots.
  const plainTab = await openAct(`${site.at('login.test')}/fields`);
  const plainRef = refOf((await call('browser_snapshot', { tab: plainTab })).text, /textbox "API key"/);
  await call('browser_fill', { tab: plainTab, ref: plainRef, value: API_KEY });
  const plain = await shot(plainTab, plainRef);
  const dotsTab = await openAct(`${site.at('login.test')}/fields-masked`);
  const dotsRef = refOf((await call('browser_snapshot', { tab: dotsTab })).text, /textbox "API key"/);
  await call('browser_fill', { tab: dotsTab, ref: dotsRef, value: API_KEY });
  const dots = await shot(dotsTab, dotsRef);
  t.not(plain, dots, 'the two looks differ at all');

  const tab = await openAct(`${site.at('login.test')}/fields`);
  const ref = refOf((await call('browser_snapshot', { tab })).text, /textbox "API key"/);
  const r = await call('browser_fill_secret', { tab, ref, site: 'login.test', field: 'api_key' });
  t.notOk(r.isError, r.text);
  const filled = await shot(tab, ref);
  t.not(filled, plain, 'not drawn in clear');
  t.equal(filled, dots, 'drawn as dots');
  // The page restyles the field (its own script; the agent's scripts are refused here).
  await pageEval(d, 'alice', tab, `(() => { const k = document.getElementById('key'); k.setAttribute('style', '-webkit-text-security: none'); return k.style.cssText; })()`);
  t.equal(await shot(tab, ref), dots, 'still dots after the page cleared the mask');
});

t.test('browser_login with no tab open opens an act tab at the login URL and signs in there', async (t) => {
  await d.daemon.env.vault.setFields('alice', 'notab.test', { loginUrl: `${site.at('notab.test')}/login`, fields: { username: 'alice', password: USERS.alice.password, totp: TOTP_SECRET } });
  t.teardown(() => d.daemon.env.vault.deleteEntry('alice', 'notab.test'));
  for (const tab of d.daemon.env.tabs.list('alice')) await call('browser_close_tab', { tab: tab.id });
  t.same(d.daemon.env.tabs.list('alice'), [], 'all tabs closed');
  const posts = () => site.requests.filter((q) => q.method === 'POST' && q.headers.host?.startsWith('notab.test:') && q.path === '/login').length;
  const r = await call('browser_login', { site: 'notab.test' });
  t.notOk(r.isError, r.text);
  t.match(r.text, 'Outcome: signed_in.');
  t.equal(posts(), 1, 'the site saw the login POST');
  t.match(site.signedIn.at(-1), { user: 'alice', host: 'notab.test', via: 'totp' });
  const tabs = d.daemon.env.tabs.list('alice');
  t.equal(tabs.length, 1, 'one tab was opened');
  t.equal(tabs[0].mode, 'act');
  t.equal(r.raw.structuredContent?.tab, tabs[0].id, 'the result names the new tab');
  t.match(r.text, new RegExp(`Opened act tab ${tabs[0].id}`));
});

t.test('browser_login with no tab open still refuses a login URL off the entry\'s site, opening nothing', async (t) => {
  for (const tab of d.daemon.env.tabs.list('alice')) await call('browser_close_tab', { tab: tab.id });
  const r = await call('browser_login', { site: 'login.test', loginUrl: `${site.at('evil.test')}/login` });
  t.equal(errorCode(r.text), 'refused', r.text);
  t.same(d.daemon.env.tabs.list('alice'), [], 'no tab was opened');
});

t.test('no result of this file holds a vault value or a filled code', async (t) => {
  const codes = d.daemon.env.filledCodes.list('alice');
  // Two sign-ins in one 30 s window fill the same code: it is remembered once.
  t.ok(codes.length >= 1, 'codes were filled and remembered');
  const secrets = ['forwarder-secret-123', USERS.alice.password, USERS.bob.password, 'not-the-password-1', TOTP_SECRET, API_KEY, ...codes];
  const all = results.join('\n');
  for (const s of secrets) t.notOk(all.includes(s), `no result holds ${s.slice(0, 3)}…`);
  t.ok(results.length > 40, `scanned ${results.length} results`);
  const audit = JSON.stringify(d.daemon.env.audit.all(10000));
  t.match(audit, /browser_login/, 'the audit holds the calls');
  for (const s of secrets) t.notOk(audit.includes(s), `no audit entry holds ${s.slice(0, 3)}…`);
});
