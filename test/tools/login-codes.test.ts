/**
 * The login tools with the pieces around them, end to end through the real MCP client and REST: a code that
 * arrives by e-mail (a loopback IMAP server with real MIME mail) or by SMS (the forwarding endpoint) is read
 * and filled without the agent seeing it, and a code nobody can fill becomes a hand-off a person resolves.
 * Inboxes are made the way a user makes them, with PUT /v1/vault.
 */
import t from 'tap';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { pageEval } from '../fixtures/page-eval.js';
import { startLoginSite, TOTP_SECRET, USERS, type LoginSite } from '../fixtures/login-site.js';
import { startImapServer, type ImapFixture } from '../fixtures/imap-server.js';
import { totpCode } from '../../daemon/vault/totp.js';
import { noteSignInStep } from '../../daemon/vault/sign-in-steps.js';

let d: TestDaemon;
let site: LoginSite;
let imap: ImapFixture;
let client: Client;
let token: string;
const codesSent: string[] = [];

const tabOf = (text: string) => /\b(t\d+)\b/.exec(text)![1];
const put = (name: string, body: unknown) => d.rest(token, 'PUT', `/v1/vault/${name}`, body);

/** The code the site would send: its own TOTP, which its /2fa page checks. */
function siteCode(): string {
  const code = totpCode(TOTP_SECRET);
  codesSent.push(code);
  return code;
}

t.before(async () => {
  site = await startLoginSite();
  imap = await startImapServer();
  d = await startTestDaemon();
  token = await d.addUser('alice');
  client = await d.mcp(token);
  const { password } = USERS.alice;
  for (const host of ['mailcode.test', 'person.test']) {
    t.equal((await put(host, { loginUrl: `${site.at(host)}/login`, fields: { username: 'alice', password } })).status, 200);
  }
});
t.teardown(async () => {
  await d.stop();
  await imap.close();
  await site.close();
});

t.test('a code prompt and no totp or inbox: browser_login hands off to a person, whose Done wakes the wait', async (t) => {
  const tab = tabOf((await call(client, 'browser_open', { url: 'about:blank', mode: 'act' })).text);
  const r = await call(client, 'browser_login', { site: 'person.test', tab });
  t.notOk(r.isError, r.text);
  t.match(r.text, 'Outcome: two_factor_needed.');
  const link = /send the user this link \((\S+), until/.exec(r.text)?.[1];
  const id = /browser_handoff_wait\{id: "(ho_[0-9a-f]{16})"\}/.exec(r.text)?.[1];
  t.match(link, new RegExp(`^${d.url}/handoff/[a-z2-7]{10}\\.[A-Za-z0-9_-]{43}$`), 'a link to the Your turn page');
  t.ok(id, 'and the id to wait on');
  const listed = (await d.rest(token, 'POST', '/v1/tools/browser_handoffs', {})).json.handoffs.find((h: any) => h.id === id);
  t.equal(listed.reason, 'two_factor');
  t.equal(listed.tab, tab, 'the hand-off shows the tab at the code prompt');
  const page = await (await fetch(link!)).text();
  t.match(page, /Enter the sign-in code for person\.test/);
  t.match(page, /<iframe id="live" src="[^"]+\/live\//, 'the page carries the live browser of that tab');
  const waiting = client.callTool({ name: 'browser_handoff_wait', arguments: { id, timeoutS: 60 } }, undefined, { timeout: 40_000 });
  // The person presses Done (same-origin post, as the page's form sends it).
  const done = await fetch(`${link}/done`, { method: 'POST', headers: { Origin: d.url, 'Content-Type': 'application/x-www-form-urlencoded' }, body: '' });
  t.equal(done.status, 200);
  const w: any = await waiting;
  t.match(w.content[0].text, /is resolved/, 'the waiting agent hears it at once');
});

t.test('browser_login reads the code from the e-mail the site sends and signs in; the agent sees no code', async (t) => {
  t.equal((await put('mail', { kind: 'otp_inbox', imap: { host: imap.host, port: imap.port, user: imap.user, password: imap.password, tls: false } })).status, 200);
  t.teardown(() => d.rest(token, 'DELETE', '/v1/vault/mail'));
  const tab = tabOf((await call(client, 'browser_open', { url: 'about:blank', mode: 'act' })).text);
  const before = imap.connections;
  const login = call(client, 'browser_login', { site: 'mailcode.test', tab });
  // The site mails its code once the daemon is watching the mailbox, as a real one would after the password.
  await imap.connectionCount(before + 1);
  const code = siteCode();
  imap.deliver({ from: 'Mailcode <no-reply@mailcode.test>', subject: 'Your sign-in code', text: `Hello,\n\nyour mailcode.test sign-in code is ${code}.\nIt expires in 10 minutes.\n\nMailcode, 12 Example Street, 10115 Berlin`, encoding: 'quoted-printable' });
  const r = await login;
  t.notOk(r.isError, r.text);
  t.match(r.text, 'Outcome: signed_in.');
  t.match(r.text, /answered with a code from inbox mail/);
  t.ok(site.signedIn.some((s) => s.host === 'mailcode.test' && s.via === 'totp'), 'the site accepted the mailed code');
  t.notOk(JSON.stringify(r.raw).includes(code), 'the code is in no part of the result');
});

t.test('browser_fill_otp fills the code of a forwarded SMS into the code field; the agent sees neither', async (t) => {
  const made = await put('phone', { kind: 'otp_inbox', sms: true });
  t.equal(made.status, 200);
  t.teardown(() => d.rest(token, 'DELETE', '/v1/vault/phone'));
  const tab = tabOf((await call(client, 'browser_open', { url: `${site.at('mailcode.test')}/code-by-label`, mode: 'act' })).text);
  const fill = call(client, 'browser_fill_otp', { tab, site: 'mailcode.test', inbox: 'phone', timeoutS: 30, submit: false });
  const code = siteCode();
  const text = `${code} is your Mailcode verification code. Do not share it.`;
  const sent = await fetch(made.json.forwardUrl, { method: 'POST', headers: { Authorization: `Bearer ${made.json.secret}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ from: 'Mailcode', text }) });
  t.equal(sent.status, 202);
  const r = await fill;
  t.notOk(r.isError, r.text);
  t.notOk(JSON.stringify(r.raw).includes(code), 'the code is not in the result');
  t.notOk(JSON.stringify(r.raw).includes('verification code. Do not'), 'nor the message');
  const filled = await call(client, 'browser_evaluate', { tab, js: `document.getElementById('code').value` });
  t.match(filled.text, /^Error \[refused\]/m, 'no script reads the field back');
  t.notOk(filled.text.includes(code));
  const length = await pageEval(d, 'alice', tab, `'n=' + document.getElementById('code').value.length + ':' + /^\\d{6}$/.test(document.getElementById('code').value)`);
  t.equal(length, 'n=6:true', 'six digits went into the field');
});

t.test('browser_fill_otp takes a text that came before the call: within sinceSeconds, or since the sign-in step began', async (t) => {
  t.equal((await put('phone3', { kind: 'otp_inbox', sms: true })).status, 200);
  t.teardown(() => d.rest(token, 'DELETE', '/v1/vault/phone3'));
  const sms = d.daemon.env.smsInbox;
  const codeIn = (tab: string) => pageEval(d, 'alice', tab, `document.getElementById('code').value.length`);
  // Arrival times are set on the store (its clock parameter): no test waits in real time.
  const tab = tabOf((await call(client, 'browser_open', { url: `${site.at('mailcode.test')}/code-by-label`, mode: 'act' })).text);
  await sms.add('alice', 'phone3', { from: 'Mailcode', text: '246810 is your Mailcode verification code.' }, Date.now() - 8_000);
  const r = await call(client, 'browser_fill_otp', { tab, site: 'mailcode.test', inbox: 'phone3', sinceSeconds: 30, timeoutS: 1, submit: false });
  t.notOk(r.isError, r.text);
  t.equal(await codeIn(tab), 6, 'the text of 8 s ago was used');

  // Another inbox, so the text just used is not in the window.
  t.equal((await put('phone5', { kind: 'otp_inbox', sms: true })).status, 200);
  t.teardown(() => d.rest(token, 'DELETE', '/v1/vault/phone5'));
  const old = tabOf((await call(client, 'browser_open', { url: `${site.at('mailcode.test')}/code-by-label`, mode: 'act' })).text);
  await sms.add('alice', 'phone5', { from: 'Mailcode', text: '975310 is your Mailcode verification code.' }, Date.now() - 120_000);
  await sms.add('alice', 'phone5', { from: 'Mailcode', text: '864200 is your Mailcode verification code.' }, Date.now() - 90_000);
  const late = await call(client, 'browser_fill_otp', { tab: old, site: 'mailcode.test', inbox: 'phone5', sinceSeconds: 30, timeoutS: 1, submit: false });
  t.match(late.text, /^Error \[timeout\]/m, 'a text older than the window is not used');
  t.equal(await codeIn(old), 0);
  const none = await call(client, 'browser_fill_otp', { tab: old, site: 'mailcode.test', inbox: 'phone5', timeoutS: 1, submit: false });
  t.match(none.text, /^Error \[timeout\]/m, 'nor, without a window, a text of 90 s ago in a tab where no sign-in step ran');
});

t.test('browser_fill_otp takes a text sent for the sign-in step of this tab, however long the agent looked first', async (t) => {
  t.equal((await put('phone4', { kind: 'otp_inbox', sms: true })).status, 200);
  t.teardown(() => d.rest(token, 'DELETE', '/v1/vault/phone4'));
  const tab = tabOf((await call(client, 'browser_open', { url: `${site.at('mailcode.test')}/fields`, mode: 'act' })).text);
  const snap = (await call(client, 'browser_snapshot', { tab })).text;
  const ref = /textbox "Password" \[ref=(e\d+)\]/.exec(snap)![1];
  t.notOk((await call(client, 'browser_fill_secret', { tab, ref, site: 'mailcode.test', field: 'password' })).isError);
  // The step began 20 s ago; the site's text came 8 s ago (both set on the clocks, not waited for).
  noteSignInStep('alice', tab, 'mailcode.test', Date.now() - 20_000);
  await d.daemon.env.smsInbox.add('alice', 'phone4', { from: 'Mailcode', text: '135791 is your Mailcode verification code.' }, Date.now() - 8_000);
  t.notOk((await call(client, 'browser_navigate', { tab, url: `${site.at('mailcode.test')}/code-by-label` })).isError);
  const r = await call(client, 'browser_fill_otp', { tab, site: 'mailcode.test', inbox: 'phone4', timeoutS: 1, submit: false });
  t.notOk(r.isError, r.text);
  t.equal(await pageEval(d, 'alice', tab, `document.getElementById('code').value.length`), 6);
  // A text from before the step began belongs to an earlier attempt.
  noteSignInStep('alice', tab, 'mailcode.test', Date.now() - 2_000);
  await d.daemon.env.smsInbox.add('alice', 'phone4', { from: 'Mailcode', text: '112233 is your Mailcode verification code.' }, Date.now() - 30_000);
  const again = tabOf((await call(client, 'browser_open', { url: `${site.at('mailcode.test')}/code-by-label`, mode: 'act' })).text);
  noteSignInStep('alice', again, 'mailcode.test', Date.now() - 2_000);
  const stale = await call(client, 'browser_fill_otp', { tab: again, site: 'mailcode.test', inbox: 'phone4', timeoutS: 1, submit: false });
  t.match(stale.text, /^Error \[timeout\]/m, stale.text);
});

t.test('browser_fill_otp reads a mailed code from the IMAP inbox and filters by sender', async (t) => {
  t.equal((await put('mail2', { kind: 'otp_inbox', imap: { host: imap.host, port: imap.port, user: imap.user, password: imap.password, tls: false } })).status, 200);
  t.teardown(() => d.rest(token, 'DELETE', '/v1/vault/mail2'));
  const tab = tabOf((await call(client, 'browser_open', { url: `${site.at('mailcode.test')}/code-by-label`, mode: 'act' })).text);
  const before = imap.connections;
  const fill = call(client, 'browser_fill_otp', { tab, site: 'mailcode.test', inbox: 'mail2', from: 'security@mailcode.test', timeoutS: 30, submit: false });
  await imap.connectionCount(before + 1);
  // A message from another sender comes first and must be passed over.
  imap.deliver({ from: 'Newsletter <news@mailcode.test>', subject: 'Mailcode news', text: 'Our promo code is 777777 this week.' });
  const code = siteCode();
  imap.deliver({ from: 'Mailcode Security <security@mailcode.test>', subject: 'Verification', text: `Use ${code} to finish signing in to mailcode.test.`, html: `<p>Use <b>${code}</b> to finish signing in.</p>`, encoding: 'base64' });
  const r = await fill;
  t.notOk(r.isError, r.text);
  t.match(r.text, /from inbox mail2 \(imap\)/);
  t.notOk(JSON.stringify(r.raw).includes(code), 'the code is not in the result');
  const check = await pageEval(d, 'alice', tab, `document.getElementById('code').value === ${JSON.stringify(code)} ? 'the mailed code' : document.getElementById('code').value === '777777' ? 'the promo' : 'other'`);
  t.equal(check, 'the mailed code', 'the sender filter kept the newsletter number out');
});

t.test('every code filled here is remembered for scrubbing, so the whole-run scan looks for each', async (t) => {
  t.equal(codesSent.length, 3);
  const remembered = d.daemon.env.filledCodes.list('alice');
  for (const code of codesSent) t.ok(remembered.includes(code), 'a code the daemon filled is on its list');
});
