/**
 * Attack: POST /v1/admin/users/import with a crafted archive (admin key only, but the archive comes from another
 * host, and a move must not let it reach past the user it names). Each row passes the per-table owner rule, yet:
 * - a `users` row under the archive's name whose record says it is another user (id/name): every call with the
 *   archive user's token would run as that other user;
 * - a row whose key another user's row already has here (a token hash, an index row): the archive's user takes
 *   over that row, so another user's token or inbox would open the archive's user;
 * - a frame length of 4 GB in a 4-byte header: the reader allocates it before reading.
 * Held already (kept as proofs): a user who is here, a file path that climbs out, a row of another user by key.
 */
import t from 'tap';
import { pack } from 'msgpackr';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { openDb } from '../../storage/db.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { hashToken } from '../../storage/users.js';

let d: TestDaemon;
let admin: string;
let alice: string;

t.before(async () => {
  d = await startTestDaemon();
  admin = await d.daemon.env.users.replaceAdminKey();
  alice = await d.addUser('alice');
});
t.teardown(() => d?.stop());

const frame = (o: unknown) => {
  const body = pack(o);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(body.length);
  return Buffer.concat([len, body]);
};
const head = (user: string) => frame({ f: 'head', version: 1, user });
const end = (rows: number, files = 0, bytes = 0) => frame({ f: 'end', rows, files, bytes });
/** Values as a store writes them (records with their structure inline), written to a scratch store and read back as bytes. */
const scratchDir = mkdtempSync(join(tmpdir(), 'browserd-forge-'));
const scratch = openDb(scratchDir);
t.teardown(() => {
  scratch.close();
  rmSync(scratchDir, { recursive: true, force: true });
});
let n = 0;
const encoded = (table: string, value: unknown): Buffer => {
  const k = `forge${n++}`;
  scratch.table(table).putSync(k, value);
  return Buffer.from(scratch.table(table).getBinary(k)!);
};
const row = (table: string, key: unknown, value: unknown) => frame({ f: 'row', table, key, value: encoded(table, value) });

const importArchive = async (bytes: Buffer) => {
  const res = await fetch(`${d.url}/v1/admin/users/import`, { method: 'POST', headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/octet-stream' }, body: new Uint8Array(bytes) });
  return { status: res.status, json: (await res.json().catch(() => undefined)) as any };
};

/** A user `name` with token `token`, as an archive's rows spell them. */
const userRowsOf = (name: string, token: string, record: Record<string, unknown> = {}) => [
  row('users', name, { id: name, name, createdAt: new Date().toISOString(), approvals: false, takeover: true, key: 'mmmmmmmmmm', ...record }),
  row('tokens', hashToken(token), { user: name, hash: hashToken(token), createdAt: new Date().toISOString() }),
  row('tokens', `user:${name}`, hashToken(token)),
];

t.test("a users row that names another user inside its record does not make the archive's token theirs", async (t) => {
  const token = 'bd_mmmmmmmmmm.mallory-chosen-token-0000000000000000';
  const rows = userRowsOf('mallory', token, { id: 'alice', name: 'alice' });
  const r = await importArchive(Buffer.concat([head('mallory'), ...rows, end(rows.length)]));
  t.equal(r.status, 400, `refused: ${JSON.stringify(r.json?.error?.message)}`);
  t.notOk(d.daemon.env.users.get('mallory'), 'nothing of it was taken');
  const me = await d.rest(token, 'GET', '/v1/tabs');
  t.equal(me.status, 401, 'the chosen token opens nothing');
  t.not(d.daemon.env.users.authenticate(token)?.id, 'alice', 'and never alice');
});

t.test("an archive cannot take over a row another user has here (alice's token hash)", async (t) => {
  const token = 'bd_mmmmmmmmmm.mallory-chosen-token-1111111111111111';
  const rows = [...userRowsOf('mallory2', token), row('tokens', hashToken(alice), { user: 'mallory2', hash: hashToken(alice), createdAt: 'x' })];
  const r = await importArchive(Buffer.concat([head('mallory2'), ...rows, end(rows.length)]));
  t.equal(r.status, 400, `refused: ${JSON.stringify(r.json?.error?.message)}`);
  t.equal(d.daemon.env.users.authenticate(alice)?.id, 'alice', "alice's token is still alice's");
  t.notOk(d.daemon.env.users.get('mallory2'), 'nothing of it was taken');
});

t.test('a frame that claims 4 GB in a 4-byte header is refused without allocating it, and the daemon answers on', async (t) => {
  const bogus = Buffer.concat([head('mallory3'), Buffer.from([0xff, 0xff, 0xff, 0xff]), Buffer.from('x')]);
  const before = process.memoryUsage().arrayBuffers;
  const r = await importArchive(bogus);
  t.equal(r.status, 400, `refused: ${JSON.stringify(r.json?.error?.message)}`);
  t.ok(process.memoryUsage().arrayBuffers - before < 512 * 1024 * 1024, 'no gigabytes were allocated');
  t.equal((await fetch(`${d.url}/health`)).status, 200);
});

t.test('held: a user who is here already, a path that climbs out, a row of another user by its key', async (t) => {
  const here = await importArchive(Buffer.concat([head('alice'), end(0)]));
  t.equal(here.status, 403, 'alice is here: refused');
  t.equal(d.daemon.env.users.authenticate(alice)?.id, 'alice');

  const climb = Buffer.concat([head('mallory4'), frame({ f: 'file', path: 'files/mallory4/../../share-link.key', mode: 0o600 }), frame({ f: 'data', b: Buffer.alloc(32) }), end(0, 1, 32)]);
  t.equal((await importArchive(climb)).status, 400, 'a file path that climbs out');
  const abs = Buffer.concat([head('mallory4'), frame({ f: 'file', path: '/files/mallory4/x', mode: 0o600 }), end(0, 1, 0)]);
  t.equal((await importArchive(abs)).status, 400, 'an absolute path');

  const alicesTab = row('tabs', 'alice\u0000t1', { user: 'alice', id: 't1' });
  t.equal((await importArchive(Buffer.concat([head('mallory4'), alicesTab, end(1)]))).status, 400, "alice's row by its key");
  t.notOk(existsSync(join(d.dataDir, 'files', 'mallory4')), 'and nothing was placed');
});

t.test("a forged record of the archive's own key that names another user inside is refused (a hand-off of alice's)", async (t) => {
  const token = 'bd_mmmmmmmmmm.mallory-chosen-token-2222222222222222';
  const rows = [...userRowsOf('mallory5', token, { key: 'nnnnnnnnnn' }), row('handoffs', 'mallory5\u0000ho_1', { user: 'alice', id: 'ho_1', tabId: 't1', status: 'open' })];
  const r = await importArchive(Buffer.concat([head('mallory5'), ...rows, end(rows.length)]));
  t.equal(r.status, 400, `refused: ${JSON.stringify(r.json?.error?.message)}`);
  t.notOk(d.daemon.env.users.get('mallory5'));
});

t.test("an archive whose user carries alice's routing key is refused (the router could send only one of them home)", async (t) => {
  const token = 'bd_mmmmmmmmmm.mallory-chosen-token-3333333333333333';
  const rows = userRowsOf('mallory6', token, { key: d.daemon.env.users.routingKey('alice') });
  const r = await importArchive(Buffer.concat([head('mallory6'), ...rows, end(rows.length)]));
  t.equal(r.status, 400, `refused: ${JSON.stringify(r.json?.error?.message)}`);
  t.notOk(d.daemon.env.users.get('mallory6'));
});

t.test('held while moving, then a real archive goes out and comes back whole: the checks refuse no genuine row', async (t) => {
  const bob = await d.addUser('bob');
  const adminCall = (method: string, path: string) => fetch(`${d.url}${path}`, { method, headers: { Authorization: `Bearer ${admin}` } });
  t.equal((await d.rest(bob, 'PUT', '/v1/vault/login.example', { fields: { username: 'robert.b', password: 'Bobs-Pass-77' } })).status, 200);
  const sms = await d.rest(bob, 'PUT', '/v1/vault/phone', { kind: 'otp_inbox', sms: true });
  t.equal(sms.status, 200);
  t.equal((await d.rest(bob, 'GET', '/v1/vault')).status, 200, 'an audited call or two');

  t.equal((await adminCall('POST', '/v1/admin/users/bob/hold?to=elsewhere')).status, 200);
  // Moving: nothing of bob's answers (REST, MCP, the SMS inbox's forwarder), each told to retry or refused.
  const rest = await d.rest(bob, 'GET', '/v1/vault');
  t.equal(rest.status, 503, 'REST: 503 while moving');
  t.equal(rest.json?.error?.code, 'browser_capacity');
  const mcp = await fetch(`${d.url}/mcp`, { method: 'POST', headers: { Authorization: `Bearer ${bob}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }) });
  t.equal(mcp.status, 503, 'MCP: 503 while moving');
  const text = await fetch(sms.json.forwardUrl, { method: 'POST', headers: { Authorization: `Bearer ${sms.json.secret}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ text: 'Your code is 1234' }) });
  t.equal(text.status, 403, 'the SMS forwarder: not stored while moving');

  const archive = Buffer.from(await (await adminCall('GET', '/v1/admin/users/bob/archive')).arrayBuffer());
  t.equal((await adminCall('DELETE', '/v1/admin/users/bob')).status, 200);
  t.equal((await d.rest(bob, 'GET', '/v1/vault')).status, 401, 'gone from here');
  const back = await importArchive(archive);
  t.equal(back.status, 200, `the genuine archive is taken: ${JSON.stringify(back.json?.error?.message ?? back.json)}`);
  const list = await d.rest(bob, 'GET', '/v1/vault');
  t.equal(list.status, 200, 'the same token works again');
  t.same(list.json.entries.map((e: any) => e.name).sort(), ['login.example', 'phone']);
  t.same(d.daemon.env.vault.findSmsInbox(sms.json.forwardUrl.split('/').pop()), { user: 'bob', name: 'phone' }, 'the inbox index came back');
  t.equal(d.daemon.env.vault.secrets('bob', 'login.example')?.fields?.password, 'Bobs-Pass-77', 'sealed values open');
});
