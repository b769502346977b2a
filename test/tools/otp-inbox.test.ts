/**
 * One-time codes from inboxes, against a real daemon: a loopback IMAP server holding real MIME messages, and
 * the SMS forwarding endpoint. The engine under browser_fill_otp is called directly (waitForOtp), as the tool
 * calls it; what the agent would see of it is the tool's business.
 */
import t from 'tap';
import { createServer, type AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { SmsInboxStore, SMS_MAX_PER_INBOX } from '../../storage/sms-inbox.js';
import { Sealer } from '../../storage/seal.js';
import { startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { startImapServer, type ImapFixture } from '../fixtures/imap-server.js';
import { waitForOtp, type OtpWait } from '../../daemon/vault/otp/index.js';
import { mailboxAddress } from '../../daemon/vault/otp/mailbox-address.js';
import { mustUpgrade } from '../../daemon/vault/otp/imap.js';
import type { Platform } from '../../daemon/platform.js';
import { BrowserdError } from '../../protocol/errors.js';

let d: TestDaemon;
let env: Platform;
let imap: ImapFixture;
const SMS_SECRET = 'sms-secret-ana-7f3c9b1e5d';
const BOB_SECRET = 'sms-secret-bob-2a8e6c4f0b';

t.before(async () => {
  d = await startTestDaemon();
  env = d.daemon.env;
  imap = await startImapServer();
  for (const u of ['ana', 'bob', 'carol', 'dan']) await d.addUser(u);
  await env.vault.setFields('ana', 'example.com', { loginUrl: 'https://login.example.com/signin', fields: { username: 'ana', password: 'pw-ana-1' } });
  await env.vault.setInbox('ana', 'mail', { imap: { host: imap.host, port: imap.port, user: imap.user, password: imap.password, tls: false } });
  await env.vault.setInbox('ana', 'phone', { smsId: 'sms_ana_0001', smsSecret: SMS_SECRET });
  await env.vault.setInbox('bob', 'phone', { smsId: 'sms_bob_0001', smsSecret: BOB_SECRET });
  await env.vault.setInbox('carol', 'badmail', { imap: { host: imap.host, port: imap.port, user: imap.user, password: 'Wr0ng-Passw0rd-xyz', tls: false } });
});
t.teardown(async () => {
  await imap.close();
  await d.stop();
});

const wait = (over: Partial<OtpWait> & { site: string }): OtpWait => ({ since: new Date(), timeoutMs: 20_000, signal: new AbortController().signal, ...over });

async function rejection(p: Promise<unknown>): Promise<BrowserdError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof BrowserdError) return e;
    throw e;
  }
  throw new Error('expected a BrowserdError');
}

t.test('no inbox at all: not_found, and the next step is a person (hand-off, two_factor)', async (t) => {
  const e = await rejection(waitForOtp(env, 'dan', wait({ site: 'example.com' })));
  t.equal(e.code, 'not_found');
  t.match(e.next, /browser_handoff/);
  t.match(e.next, /two_factor/);
  const named = await rejection(waitForOtp(env, 'ana', wait({ site: 'example.com', inbox: 'nope' })));
  t.equal(named.code, 'not_found');
  t.match(named.next, /mail, phone|phone, mail/);
});

t.test('IMAP: a message arriving after the call started is read; an older one and other sites are not', async (t) => {
  imap.deliver({ from: 'Example <no-reply@example.com>', subject: 'Your Example sign-in code', text: 'Your verification code is 111111.', arrived: new Date(Date.now() - 10 * 60_000) });
  const before = imap.connections;
  const since = new Date();
  const pending = waitForOtp(env, 'ana', wait({ site: 'example.com', since }));
  await imap.connectionCount(before + 1);
  imap.deliver({ from: 'Other <no-reply@other.org>', subject: 'Your code', text: 'Your verification code is 222222.' });
  imap.deliver({
    from: 'Example Sicherheit <no-reply@mail.example.com>',
    subject: 'Ihr Bestätigungscode für Example',
    text: 'Hallo Ana,\n\nIhr Bestätigungscode lautet: 482913\n\nGültig bis 23.11.2026, 14:05 Uhr.\n\n© 2026 Example GmbH, Hauptstraße 5, 10115 Berlin · Abmelden',
    html: '<html><body><p>Hallo Ana,</p><table><tr><td>Ihr Bestätigungscode</td><td style="font-size:24px"><b>482913</b></td></tr></table><p style="color:#999">© 2026 Example GmbH, Hauptstraße 5, 10115 Berlin · <a href="https://example.com/unsub?id=99887766">Abmelden</a></p></body></html>',
  });
  const found = await pending;
  t.same(found, { code: '482913', inbox: 'mail', via: 'imap' });
  t.ok(env.filledCodes.list('ana').includes('482913'), 'the code is remembered for scrubbing');
});

t.test('IMAP: the newest message wins, the sender filter skips others, base64 HTML-only mail is read', async (t) => {
  const since = new Date(Date.now() - 3000);
  imap.deliver({ from: 'Shop Co <alerts@shopco.de>', subject: 'Sign-in code', text: 'Code: 555555', arrived: new Date(Date.now() - 2000) });
  imap.deliver({ from: 'Shop Co <security@shopco.de>', subject: 'Sign-in code', text: '', html: '<div>Your one-time code is</div><div>606060</div>', encoding: 'base64', arrived: new Date(Date.now() - 1000) });
  await env.vault.setFields('ana', 'shop', { loginUrl: 'https://id.shopco.de/login', fields: { password: 'pw-shop' } });
  const newest = await waitForOtp(env, 'ana', wait({ site: 'shop', inbox: 'mail', since }));
  t.equal(newest.code, '606060');
  const filtered = await waitForOtp(env, 'ana', wait({ site: 'shop', inbox: 'mail', since, from: 'ALERTS@shopco.de' }));
  t.equal(filtered.code, '555555');
  const nobody = await rejection(waitForOtp(env, 'ana', wait({ site: 'shop', inbox: 'mail', since, from: 'nobody@shopco.de', timeoutMs: 1500 })));
  t.equal(nobody.code, 'timeout');
  t.match(nobody.next, /browser_handoff/);
});

t.test('IMAP: a cancelled call stops waiting and leaves the mailbox', async (t) => {
  const before = imap.connections;
  const caller = new AbortController();
  const pending = waitForOtp(env, 'ana', wait({ site: 'example.com', inbox: 'mail', signal: caller.signal }));
  await imap.connectionCount(before + 1);
  caller.abort();
  const e = await rejection(pending);
  t.equal(e.code, 'timeout');
  t.match(e.message, /cancelled/);
  await imap.allClosed();
  t.pass('the IMAP connection was closed');
});

t.test('IMAP: a wrong password is action_failed naming the inbox, never the password', async (t) => {
  const e = await rejection(waitForOtp(env, 'carol', wait({ site: 'example.com' })));
  t.equal(e.code, 'action_failed');
  t.match(e.message, /badmail/);
  t.match(e.message, /login failed/);
  t.notMatch(JSON.stringify(e.toBody()), /Wr0ng-Passw0rd-xyz/);

  // A mail server that is not there: a port that was free a moment ago.
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const freePort = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  await env.vault.setInbox('carol', 'down', { imap: { host: '127.0.0.1', port: freePort, user: 'carol', password: 'Down-Passw0rd-abc', tls: false } });
  const down = await rejection(waitForOtp(env, 'carol', wait({ site: 'example.com', inbox: 'down' })));
  t.equal(down.code, 'action_failed');
  t.match(down.message, /inbox down: the server refused the connection/);
  const both = await rejection(waitForOtp(env, 'carol', wait({ site: 'example.com' })));
  t.equal(both.code, 'action_failed', 'every inbox failed');
  t.match(both.message, /badmail.*down|down.*badmail/);
  t.notMatch(JSON.stringify(both.toBody()), /Passw0rd/);
});

t.test('the mailbox host goes through the private-network guard', async (t) => {
  const before = imap.connections;
  const strict = { ...env, cfg: { ...env.cfg, allowPrivateNetwork: false, allowTargets: [] } } as Platform;
  const e = await rejection(waitForOtp(strict, 'ana', wait({ site: 'example.com', inbox: 'mail' })));
  t.equal(e.code, 'blocked');
  t.match(e.message, /loopback/);
  t.equal(imap.connections, before, 'refused before connecting');

  // Other ranges through the classifier alone: nothing is sent anywhere (the lookup is ours).
  const guard = { allowPrivateNetwork: false };
  for (const host of ['10.0.0.5', '192.168.1.20', '172.16.9.9', '169.254.169.254', '[::ffff:127.0.0.1]', '0x7f.1', 'fd00::1', '0.0.0.0']) {
    t.equal((await rejection(mailboxAddress('mail', host, 993, guard))).code, 'blocked', host);
  }
  const rebinding = { allowPrivateNetwork: false, lookup: async () => [{ address: '203.0.113.1' }, { address: '10.1.2.3' }] };
  t.equal((await rejection(mailboxAddress('mail', 'imap.corp.test', 993, rebinding))).code, 'blocked', 'one private address among several is enough to refuse');
  const publicName = { allowPrivateNetwork: false, lookup: async () => [{ address: '93.184.216.34' }] };
  t.equal(await mailboxAddress('mail', 'imap.mail.test', 993, publicName), '93.184.216.34', 'the checked address is what is connected to');
  t.equal(await mailboxAddress('mail', '10.0.0.5', 993, { allowPrivateNetwork: false, allowTargets: ['10.0.0.5:993'] }), '10.0.0.5', 'an allowed target passes');
  t.equal((await rejection(mailboxAddress('mail', '10.0.0.5', 143, { allowPrivateNetwork: false, allowTargets: ['10.0.0.5:993'] }))).code, 'blocked', 'only on its port');
  t.equal((await rejection(mailboxAddress('mail', '127.0.0.1', 8787, { allowPrivateNetwork: true, deniedPorts: new Set([8787]) }))).code, 'blocked', "the daemon's own port");
  t.equal((await rejection(mailboxAddress('mail', 'nowhere.invalid', 993, { allowPrivateNetwork: false, lookup: async () => [] }))).code, 'action_failed');
  t.ok(mustUpgrade(false, '93.184.216.34'), 'plain IMAP across the internet must upgrade before the password goes out');
  t.notOk(mustUpgrade(true, '93.184.216.34'), 'implicit TLS needs no upgrade');
  t.notOk(mustUpgrade(false, '127.0.0.1'), 'plain IMAP on loopback (allowed by the admin) may stay plain');
});

const post = (id: string, secret: string | undefined, body: unknown, headers: Record<string, string> = {}) => d.rest(secret, 'POST', `/v1/inbox/sms/${id}`, body, headers);
async function postRaw(id: string, secret: string, body: string, type: string) {
  const res = await fetch(`${d.url}/v1/inbox/sms/${id}`, { method: 'POST', headers: { Authorization: `Bearer ${secret}`, 'Content-Type': type }, body });
  return { status: res.status, json: await res.json() };
}

t.test('SMS endpoint: wrong secret, unknown inbox, a user token and another user\'s inbox all get the same 401 and store nothing', async (t) => {
  const text = { from: '+15550100', text: 'Your Example code is 918273' };
  const anaToken = await d.addUser('erin');
  const answers = [
    await post('sms_ana_0001', 'not-the-secret', text),
    await post('sms_ana_0001', undefined, text),
    await post('sms_nobody_99', SMS_SECRET, text),
    await post('sms_bob_0001', SMS_SECRET, text),
    await post('sms_ana_0001', anaToken, text),
    await post('sms_ana_0001', `${SMS_SECRET}x`, text),
  ];
  for (const a of answers) {
    t.equal(a.status, 401);
    t.same(a.json, answers[0]!.json, 'one answer for every refusal');
  }
  t.equal(answers[0]!.json.error.code, 'unauthorized');
  t.same(env.smsInbox.list('ana', 'phone'), []);
  t.same(env.smsInbox.list('bob', 'phone'), []);
});

t.test('SMS endpoint: the right secret wakes a waiting call at once', async (t) => {
  const pending = waitForOtp(env, 'ana', wait({ site: 'example.com', inbox: 'phone' }));
  const other = await post('sms_ana_0001', SMS_SECRET, { from: 'OtherBank', text: 'OtherBank: your code is 101010' });
  t.equal(other.status, 202);
  const res = await post('sms_ana_0001', SMS_SECRET, { from: '+15550100', text: '918273 is your Example verification code. Do not share it.', receivedAt: new Date().toISOString() });
  t.equal(res.status, 202);
  t.same(res.json, { ok: true });
  t.same(await pending, { code: '918273', inbox: 'phone', via: 'sms' });
  t.ok(env.filledCodes.list('ana').includes('918273'));
  t.equal(env.smsInbox.list('ana', 'phone').length, 2, 'stored for the inbox');
  t.same(env.smsInbox.list('bob', 'phone'), [], "not in another user's inbox");
});

t.test('SMS endpoint: form-encoded forwarders, a text forwarded late, bad bodies', async (t) => {
  const since = new Date();
  const form = await postRaw('sms_bob_0001', BOB_SECRET, new URLSearchParams({ From: 'Example', Body: 'Example: use 246810 to sign in' }).toString(), 'application/x-www-form-urlencoded');
  t.equal(form.status, 202);
  t.same(await waitForOtp(env, 'bob', wait({ site: 'example.com', since })), { code: '246810', inbox: 'phone', via: 'sms' });

  const late = await post('sms_bob_0001', BOB_SECRET, { text: 'Shopco code 135790', receivedAt: new Date(Date.now() - 20 * 60_000).toISOString() });
  t.equal(late.status, 202);
  const e = await rejection(waitForOtp(env, 'bob', wait({ site: 'shopco.de', since: new Date(), timeoutMs: 500 })));
  t.equal(e.code, 'timeout', 'a text the phone received long before the call does not count');

  const count = env.smsInbox.list('bob', 'phone').length;
  for (const body of [{}, { text: '' }, { text: 42 }, { text: 'x', receivedAt: 'yesterday-ish' }, []]) {
    const r = await post('sms_bob_0001', BOB_SECRET, body);
    t.equal(r.status, 400, JSON.stringify(body));
    t.equal(r.json.error.code, 'validation_error');
  }
  const big = await post('sms_bob_0001', BOB_SECRET, { text: 'x'.repeat(20_000) });
  t.equal(big.status, 413, 'a body over 16 KB is payload_too_large');
  t.equal(env.smsInbox.list('bob', 'phone').length, count, 'nothing stored for a bad body');
});

t.test('SMS store: sealed at rest, bound to its inbox, kept minutes, at most a few dozen per inbox', async (t) => {
  // What the endpoint stored earlier is not in the LMDB file in the clear.
  t.ok(env.smsInbox.list('ana', 'phone').some((m) => m.text.includes('918273')));
  const file = readFileSync(join(d.dataDir, 'browserd.lmdb'));
  t.notOk(file.includes(Buffer.from('918273 is your Example')), 'the text is not in the data file');

  // A store of its own over the same database, with its own key and a short keep time.
  const store = new SmsInboxStore(env.db, { ok: true, sealer: new Sealer(randomBytes(32)), source: 'test' }, 60_000);
  const now = Date.now();
  await store.add('zoe', 'old', { text: 'Example code 121212' }, now - 120_000);
  await store.add('zoe', 'old', { text: 'Example code 343434' }, now);
  t.same(store.list('zoe', 'old', now).map((m) => m.text), ['Example code 343434'], 'older than the keep time: gone from reads');
  t.equal(await store.prune(now), 1, 'and pruned from disk');

  // A row copied under another inbox's key does not open there.
  const [row] = [...env.db.smsMessages.getRange({ start: 'zoe\u0000old\u0000', end: 'zoe\u0000old\u0000\uffff' })];
  await env.db.smsMessages.put(`zoe\u0000other\u0000${'0'.repeat(9)}z\u0000moved`, row!.value);
  t.same(store.list('zoe', 'other', now), [], 'a moved row is not read');

  for (let i = 0; i < SMS_MAX_PER_INBOX + 5; i++) await store.add('zoe', 'busy', { text: `Example code ${100000 + i}` }, now + i);
  const kept = store.list('zoe', 'busy', now + 100);
  t.equal(kept.length, SMS_MAX_PER_INBOX);
  t.equal(kept[0]!.text, `Example code ${100000 + SMS_MAX_PER_INBOX + 4}`, 'the newest are kept, newest first');
  await store.forget('zoe', 'busy');
  t.same(store.list('zoe', 'busy', now + 100), []);
});
