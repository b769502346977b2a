/** The vault over REST: values go in and never come out; bad input changes nothing; a lost key is a clear error. */
import t from 'tap';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';

let d: TestDaemon;
let alice: string;
let bob: string;
t.before(async () => {
  d = await startTestDaemon();
  alice = await d.addUser('alice');
  bob = await d.addUser('bob');
});
t.teardown(() => d.stop());

const PASSWORD = 'pw "quoted" & spaced/7Qx';
const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const put = (token: string, name: string, body: unknown) => d.rest(token, 'PUT', `/v1/vault/${encodeURIComponent(name)}`, body);
const list = async (token: string) => (await d.rest(token, 'GET', '/v1/vault')).json;
/** What the store holds, read behind the API: the proof that a refused change changed nothing. */
const stored = (user: string, name: string) => d.daemon.env.vault.secrets(user, name);

t.test('PUT creates an entry, a second PUT merges fields, GET lists names and never a value', async (t) => {
  const first = await put(alice, 'login.example', { loginUrl: 'https://login.example/signin', fields: { username: 'ada@example.org', password: PASSWORD } });
  t.equal(first.status, 200);
  t.same(first.json.entry.fields, ['password', 'username']);
  t.equal(first.json.entry.loginUrl, 'https://login.example/signin');
  const second = await put(alice, 'login.example', { fields: { totp: `  ${TOTP_SECRET.toLowerCase().match(/.{4}/g)!.join(' ')} ` } });
  t.equal(second.status, 200);
  t.same(second.json.entry.fields, ['password', 'totp', 'username'], 'merged, not replaced');
  t.equal(second.json.entry.loginUrl, 'https://login.example/signin', 'the login URL is kept');
  t.same(stored('alice', 'login.example')?.fields, { username: 'ada@example.org', password: PASSWORD, totp: TOTP_SECRET }, 'the totp secret is stored canonical');
  const all = await list(alice);
  t.same(all.entries.map((e: any) => [e.name, e.kind, e.fields]), [['login.example', 'login', ['password', 'totp', 'username']]]);
  for (const text of [JSON.stringify(first.json), JSON.stringify(second.json), JSON.stringify(all)]) {
    for (const v of [PASSWORD, 'ada@example.org', TOTP_SECRET, 'JBSW']) t.notOk(text.includes(v), `no value in an answer (${v.slice(0, 4)}...)`);
  }
});

t.test('an otpauth URI is accepted for totp; a bad secret is refused', async (t) => {
  const ok = await put(alice, 'otp.example', { fields: { totp: `otpauth://totp/Example:ada?secret=${TOTP_SECRET}&issuer=Example&digits=6&period=30` } });
  t.equal(ok.status, 200);
  // Stored normalised: an otpauth URI with every setting at its default is kept as the bare secret.
  t.equal(stored('alice', 'otp.example')?.fields.totp, TOTP_SECRET);
  for (const totp of ['not-base32!', 'ABCD', 'otpauth://hotp/x?secret=' + TOTP_SECRET, 'otpauth://totp/x?digits=6']) {
    const r = await put(alice, 'otp.example', { fields: { totp } });
    t.equal(r.status, 400, totp);
    t.equal(r.json.error.code, 'validation_error');
    t.ok(r.json.error.next);
    t.notOk(JSON.stringify(r.json).includes(totp), 'the refusal does not quote the value');
  }
  t.equal(stored('alice', 'otp.example')?.fields.totp, TOTP_SECRET, 'unchanged after the refusals');
});

t.test('bad input is a validation_error with a next step, and changes nothing', async (t) => {
  const before = JSON.stringify(await list(alice));
  const beforeSecrets = JSON.stringify(stored('alice', 'login.example'));
  const bodies: [string, unknown][] = [
    ['login.example', { fields: { password: '' } }],
    ['login.example', { fields: { password: 'x'.repeat(4097) } }],
    ['login.example', { fields: { password: 12345 } }],
    ['login.example', { fields: { '1bad': 'value1' } }],
    ['login.example', { fields: { 'bad name': 'value1' } }],
    ['login.example', { fields: { password: 'good-new-value', totp: 'nope nope' } }],
    ['login.example', { loginUrl: 'javascript:alert(1)' }],
    ['login.example', { loginUrl: 'ftp://login.example/' }],
    ['login.example', { loginUrl: 'https://u:p@login.example/' }],
    ['login.example', { fields: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`f${i}`, 'value'])) }],
    ['login.example', { fields: { password: 'new' }, extra: 1 }],
    ['login.example', {}],
    ['login.example', ['fields']],
    ['login.example', { kind: 'otp_inbox' }],
    ['login.example', { kind: 'otp_inbox', sms: true }],
    ['login.example', { kind: 'bogus', fields: { a: 'bcd' } }],
    ['bad name', { fields: { password: 'abcdef' } }],
    ['.dot-first', { fields: { password: 'abcdef' } }],
    ['mail.example', { kind: 'otp_inbox', imap: { host: 'imap.example', port: 99999, user: 'u', password: 'p' } }],
    ['mail.example', { kind: 'otp_inbox', imap: { host: 'imap.example', port: 993, user: 'u' } }],
    ['mail.example', { kind: 'otp_inbox', imap: { host: 'imap.example', port: 993, user: 'u', password: 'p', tls: 'yes' } }],
    ['mail.example', { kind: 'otp_inbox', sms: true, imap: { host: 'h', port: 1, user: 'u', password: 'p' } }],
    ['mail.example', { kind: 'otp_inbox', sms: 'yes' }],
    // A lone surrogate: JSON carries it escaped, but it is no text a page can be given or UTF-8 can store.
    ['login.example', { fields: { password: 'good\ud800value' } }],
    ['mail.example', { kind: 'otp_inbox', imap: { host: 'imap.example', port: 993, user: 'u', password: 'p\udc00w' } }],
  ];
  for (const [name, body] of bodies) {
    const r = await put(alice, name, body);
    t.equal(r.status, 400, `${name} ${JSON.stringify(body).slice(0, 80)}`);
    t.equal(r.json.error.code, 'validation_error');
    t.type(r.json.error.next, 'string');
  }
  const notJson = await d.rest(alice, 'PUT', '/v1/vault/login.example', undefined, { 'Content-Type': 'application/json' });
  t.equal(notJson.status, 400, 'an empty body');
  const garbled = await fetch(`${d.url}/v1/vault/login.example`, { method: 'PUT', headers: { Authorization: `Bearer ${alice}`, 'Content-Type': 'application/json' }, body: '{"fields":' });
  t.equal(garbled.status, 400, 'a body that is not JSON');
  t.equal(JSON.stringify(await list(alice)), before, 'the listing is unchanged');
  t.equal(JSON.stringify(stored('alice', 'login.example')), beforeSecrets, 'the stored values are unchanged');
  t.notOk(d.daemon.env.vault.info('alice', 'mail.example'), 'no entry was created by a refused PUT');
});

t.test('a login entry cannot be turned into an inbox (or back) by a PUT', async (t) => {
  const r = await put(alice, 'login.example', { kind: 'otp_inbox', imap: { host: 'imap.example', port: 993, user: 'u', password: 'inbox-pass-1', tls: true } });
  t.equal(r.status, 400);
  t.equal(d.daemon.env.vault.info('alice', 'login.example')?.kind, 'login');
});

t.test('DELETE a field, then the entry; unknown ones are not_found', async (t) => {
  await put(alice, 'gone.example', { fields: { username: 'someone', password: 'throwaway-pass' } });
  const field = await d.rest(alice, 'DELETE', '/v1/vault/gone.example/fields/password');
  t.equal(field.status, 200);
  t.same(d.daemon.env.vault.info('alice', 'gone.example')?.fields, ['username']);
  t.same(stored('alice', 'gone.example')?.fields, { username: 'someone' }, 'the value is gone from the store too');
  t.notOk(d.daemon.env.vault.values('alice').includes('throwaway-pass'), 'and from the values scrubbed');
  const again = await d.rest(alice, 'DELETE', '/v1/vault/gone.example/fields/password');
  t.equal(again.status, 404);
  t.equal(again.json.error.code, 'not_found');
  t.match(again.json.error.next, /GET \/v1\/vault/);
  t.equal((await d.rest(alice, 'DELETE', '/v1/vault/gone.example/fields/bad%20name')).status, 400);
  const entry = await d.rest(alice, 'DELETE', '/v1/vault/gone.example');
  t.equal(entry.status, 200);
  t.notOk(d.daemon.env.vault.info('alice', 'gone.example'));
  t.equal((await d.rest(alice, 'DELETE', '/v1/vault/gone.example')).status, 404);
  t.equal((await d.rest(alice, 'DELETE', '/v1/vault/nope.example/fields/password')).json.error.code, 'not_found');
});

t.test('an IMAP inbox keeps its password sealed; GET shows where, not the password', async (t) => {
  const r = await put(alice, 'mail.example', { kind: 'otp_inbox', imap: { host: '127.0.0.1', port: 1143, user: 'ada@mail.example', password: 'imap-secret-9', tls: false } });
  t.equal(r.status, 200);
  t.equal(r.json.entry.kind, 'otp_inbox');
  t.equal(r.json.entry.inbox, 'imap');
  t.same(stored('alice', 'mail.example')?.imap, { host: '127.0.0.1', port: 1143, user: 'ada@mail.example', password: 'imap-secret-9', tls: false });
  const entry = (await list(alice)).entries.find((e: any) => e.name === 'mail.example');
  t.equal(entry.imapHost, '127.0.0.1:1143');
  t.notOk(JSON.stringify(r.json).includes('imap-secret-9'));
  t.notOk(JSON.stringify(await list(alice)).includes('imap-secret-9'));
});

t.test('an SMS inbox answers its forwarding URL and secret once; a second PUT replaces both', async (t) => {
  const first = await put(alice, 'sms.example', { kind: 'otp_inbox', sms: true });
  t.equal(first.status, 200);
  const { forwardUrl, secret } = first.json;
  t.match(forwardUrl, new RegExp(`^${d.url.replace(/[.]/g, '\\.')}/v1/inbox/sms/[a-z2-7]{10}\\.[A-Za-z0-9_-]{22}$`), 'absolute, on this daemon');
  t.ok(Buffer.from(secret, 'base64url').length >= 16, 'the secret has at least 128 bits');
  const smsId = forwardUrl.split('/').pop();
  t.same(d.daemon.env.vault.findSmsInbox(smsId), { user: 'alice', name: 'sms.example' });
  t.equal(stored('alice', 'sms.example')?.smsSecret, secret);
  const listed = (await list(alice)).entries.find((e: any) => e.name === 'sms.example');
  t.equal(listed.forwardUrl, forwardUrl, 'the listing names the forwarding URL');
  t.notOk(JSON.stringify(await list(alice)).includes(secret), 'but never the secret');
  const second = await put(alice, 'sms.example', { kind: 'otp_inbox', sms: true });
  t.not(second.json.forwardUrl, forwardUrl, 'a new forwarding URL');
  t.not(second.json.secret, secret, 'a new secret');
  t.notOk(d.daemon.env.vault.findSmsInbox(smsId), 'the old inbox id leads nowhere');
  t.equal(stored('alice', 'sms.example')?.smsSecret, second.json.secret);
});

t.test('texts forwarded to an SMS inbox go with it when it is replaced or deleted', async (t) => {
  const sms = d.daemon.env.smsInbox;
  const post = (url: string, secret: string, text: string) =>
    fetch(url, { method: 'POST', headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ from: 'Example', text }) });
  const first = await put(alice, 'texts.example', { kind: 'otp_inbox', sms: true });
  t.equal((await post(first.json.forwardUrl, first.json.secret, 'Your code is 481516')).status, 202);
  t.equal(sms.list('alice', 'texts.example').length, 1, 'the text is kept for a waiting call');
  const second = await put(alice, 'texts.example', { kind: 'otp_inbox', sms: true });
  t.equal(sms.list('alice', 'texts.example').length, 0, 'a replaced inbox starts empty');
  t.equal((await post(second.json.forwardUrl, second.json.secret, 'Your code is 623342')).status, 202);
  t.equal((await d.rest(alice, 'DELETE', '/v1/vault/texts.example')).status, 200);
  t.equal(sms.list('alice', 'texts.example').length, 0, 'a deleted inbox keeps no texts');
});

t.test("another user's vault is invisible and untouchable", async (t) => {
  t.same((await list(bob)).entries, [], 'bob lists nothing of alice');
  t.equal((await d.rest(bob, 'DELETE', '/v1/vault/login.example')).status, 404, "bob cannot delete alice's entry");
  t.equal((await d.rest(bob, 'DELETE', '/v1/vault/login.example/fields/password')).status, 404);
  const own = await put(bob, 'login.example', { fields: { password: 'bobs-own-pass' } });
  t.equal(own.status, 200, 'bob has his own entry of the same name');
  t.equal(stored('alice', 'login.example')?.fields.password, PASSWORD, "alice's is untouched");
  t.same((await list(bob)).entries.map((e: any) => e.fields), [['password']]);
});

t.test('vault changes are audited by entry and field names, never a value', async (t) => {
  const entries = d.daemon.env.audit.all(1000).filter((e) => e.user === 'alice' && e.tool.startsWith('vault_'));
  const puts = entries.filter((e) => e.tool === 'vault_put' && e.outcome === 'ok');
  t.ok(puts.some((e) => (e.args as any).name === 'login.example' && JSON.stringify((e.args as any).fields) === JSON.stringify(['totp'])), 'a field merge names its fields');
  t.ok(entries.some((e) => e.tool === 'vault_put' && e.outcome === 'validation_error'), 'refused changes are audited too');
  t.ok(entries.some((e) => e.tool === 'vault_delete_field' && (e.args as any).field === 'password'));
  t.ok(entries.some((e) => e.tool === 'vault_delete' && (e.args as any).name === 'gone.example'));
  const text = JSON.stringify(entries);
  for (const v of [PASSWORD, 'ada@example.org', TOTP_SECRET, 'imap-secret-9', 'throwaway-pass']) t.notOk(text.includes(v), `no value in the audit (${v.slice(0, 4)}...)`);
});

t.test('PUT is routed like any method: wrong methods are 405 with Allow, and Host/Origin checks apply', async (t) => {
  const post = await d.rest(alice, 'POST', '/v1/vault/login.example', { fields: { password: 'abcdef' } });
  t.equal(post.status, 405);
  t.equal(post.headers.get('allow'), 'PUT, DELETE');
  const putTabs = await d.rest(alice, 'PUT', '/v1/tabs', {});
  t.equal(putTabs.status, 405);
  t.equal(putTabs.headers.get('allow'), 'GET, POST');
  const cross = await d.rest(alice, 'PUT', '/v1/vault/evil.example', { fields: { password: 'abcdef' } }, { Origin: 'https://evil.example' });
  t.equal(cross.status, 403, 'a page on another origin cannot write the vault');
  t.notOk(d.daemon.env.vault.info('alice', 'evil.example'));
  const anon = await d.rest(undefined, 'PUT', '/v1/vault/anon.example', { fields: { password: 'abcdef' } });
  t.equal(anon.status, 401);
});

t.test('a wrong BROWSERD_VAULT_KEY locks the vault with a clear not_configured; the right key opens it again', async (t) => {
  const saved = process.env.BROWSERD_VAULT_KEY;
  t.teardown(() => {
    if (saved === undefined) delete process.env.BROWSERD_VAULT_KEY;
    else process.env.BROWSERD_VAULT_KEY = saved;
  });
  process.env.BROWSERD_VAULT_KEY = 'ab'.repeat(32);
  await d.restart();
  for (const [method, path, body] of [['GET', '/v1/vault'], ['PUT', '/v1/vault/login.example', { fields: { password: 'abcdef' } }], ['DELETE', '/v1/vault/login.example'], ['DELETE', '/v1/vault/login.example/fields/password']] as const) {
    const r = await d.rest(alice, method, path, body);
    t.equal(r.status, 501, `${method} ${path}`);
    t.equal(r.json.error.code, 'not_configured');
    t.match(r.json.error.message, /vault is locked: .*not the key this vault was sealed with/);
    t.match(r.json.error.next, /Restore the original key/);
  }
  delete process.env.BROWSERD_VAULT_KEY;
  await d.restart();
  t.equal((await list(alice)).ok, true, 'the key file opens it again');
  t.equal(stored('alice', 'login.example')?.fields.password, PASSWORD, 'nothing was lost or re-keyed');
});

t.test('a deleted key file locks the vault, saying the key is missing', async (t) => {
  rmSync(join(d.dataDir, 'vault.key'));
  await d.restart();
  const r = await d.rest(alice, 'GET', '/v1/vault');
  t.equal(r.status, 501);
  t.equal(r.json.error.code, 'not_configured');
  t.match(r.json.error.message, /vault key is missing/);
  t.match(r.json.error.next, /Restore .*vault\.key/);
  const w = await put(alice, 'new.example', { fields: { password: 'abcdef' } });
  t.equal(w.json.error.code, 'not_configured', 'and nothing can be written under a new key');
  t.equal(d.daemon.env.vault.problem !== undefined, true);
});

t.test('the whole-run scan fails a test file whose audit, results or logs held a vault value', async (t) => {
  const other = await startTestDaemon();
  const tok = await other.addUser('carol');
  await other.rest(tok, 'PUT', '/v1/vault/leak.example', { fields: { password: 'Leaky-Value-31' } });
  // A writer that forgot to redact: the scan at stop() must catch it, whatever the channel.
  await other.daemon.env.audit.append({ at: new Date().toISOString(), user: 'carol', tool: 'careless', via: 'internal', args: { note: 'it was Leaky-Value-31' }, outcome: 'ok', ms: 0 });
  await t.rejects(other.stop(), /a vault value or filled code appeared in: audit entry careless/);
});

t.test('with a public URL written with a trailing slash, handed-out links have exactly one slash', async (t) => {
  const pub = await startTestDaemon({ publicUrl: 'https://browserd.example.test/' });
  t.teardown(() => pub.stop());
  const token = await pub.addUser('carol');
  t.equal(pub.daemon.env.baseUrl(), 'https://browserd.example.test', 'the one base every link starts from');
  const made = await pub.rest(token, 'PUT', '/v1/vault/phone', { kind: 'otp_inbox', sms: true });
  t.match(made.json.forwardUrl, /^https:\/\/browserd\.example\.test\/v1\/inbox\/sms\/[a-z2-7]{10}\.[A-Za-z0-9_-]{22}$/);
});
