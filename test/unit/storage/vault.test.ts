/** The vault store on a real LMDB: sealed at rest, a key check that refuses the wrong key, values bound to their owner. */
import t from 'tap';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb, type Db } from '../../../storage/db.js';
import { loadVaultKey, vaultKeyPath } from '../../../storage/vault-key.js';
import { VaultStore } from '../../../storage/vault.js';
import { Sealer, SealError } from '../../../storage/seal.js';
import { checkLoginEntryWrite } from '../../../daemon/secrets/site-match.js';

const root = mkdtempSync(join(tmpdir(), 'browserd-vault-'));
t.teardown(() => rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
let n = 0;
const fresh = () => join(root, `d${++n}`);

async function withDb<T>(dir: string, fn: (db: Db) => Promise<T>): Promise<T> {
  const db = openDb(dir);
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

const open = (db: Db, dir: string, envKey?: string) => {
  const state = loadVaultKey(db, dir, envKey);
  return { state, vault: new VaultStore(db, state, checkLoginEntryWrite) };
};

t.test('values are sealed at rest: the LMDB file holds no value, the key file is private', async (t) => {
  const dir = fresh();
  await withDb(dir, async (db) => {
    const { state, vault } = open(db, dir, '');
    t.ok(state.ok);
    await vault.setFields('alice', 'site.example', { fields: { password: 'Plaintext-Canary-1' } });
    t.same(vault.secrets('alice', 'site.example')?.fields, { password: 'Plaintext-Canary-1' });
    const raw = db.vault.get('alice\u0000site.example');
    t.notOk(JSON.stringify(raw).includes('Plaintext-Canary-1'), 'the stored record holds no value');
  });
  t.notOk(readFileSync(join(dir, 'browserd.lmdb')).includes('Plaintext-Canary-1'), 'nor does the database file');
  t.equal(statSync(vaultKeyPath(dir)).mode & 0o777, 0o600);
});

t.test('the key check: the same key opens, a different key or a missing key file is refused, never re-keyed', async (t) => {
  const dir = fresh();
  const key = 'cd'.repeat(32);
  await withDb(dir, async (db) => {
    const { vault } = open(db, dir, key);
    await vault.setFields('alice', 'site.example', { fields: { password: 'kept-secret' } });
  });
  await withDb(dir, async (db) => {
    const { state, vault } = open(db, dir, key);
    t.ok(state.ok, 'the same key opens');
    t.equal(vault.secrets('alice', 'site.example')?.fields.password, 'kept-secret');
  });
  await withDb(dir, async (db) => {
    const { state, vault } = open(db, dir, 'ef'.repeat(32));
    t.notOk(state.ok);
    if (!state.ok) t.equal(state.problem, 'wrong');
    t.match(vault.problem?.message, /not the key this vault was sealed with/);
    t.throws(() => vault.secrets('alice', 'site.example'), { code: 'not_configured' }, 'every use says why');
    await t.rejects(vault.setFields('alice', 'x.example', { fields: { a: 'bcd' } }), { code: 'not_configured' }, 'and nothing is written under the wrong key');
    t.same(vault.values('alice'), [], 'a locked vault has nothing to scrub: nothing could be filled');
  });
  await withDb(dir, async (db) => {
    // No env key and no key file (this dir never had one): the sealed data says a key existed.
    const { state } = open(db, dir, '');
    t.notOk(state.ok);
    if (!state.ok) t.equal(state.problem, 'missing');
  });
  await withDb(dir, async (db) => {
    const { state } = open(db, dir, 'short');
    if (!state.ok) t.equal(state.problem, 'malformed');
    else t.fail('a malformed key is refused');
  });
  await withDb(dir, async (db) => {
    t.ok(open(db, dir, key).state.ok, 'the original key still opens: nothing was re-keyed by the refusals');
  });
});

t.test("a ciphertext moved to another user's or another entry's slot does not open", async (t) => {
  const dir = fresh();
  await withDb(dir, async (db) => {
    const { vault } = open(db, dir, '');
    await vault.setFields('alice', 'bank.example', { fields: { password: 'alices-bank-pass' } });
    await vault.setFields('mallory', 'bank.example', { fields: { password: 'mallorys-own' } });
    const alices = db.vault.get('alice\u0000bank.example');
    const mallorys = db.vault.get('mallory\u0000bank.example');
    await db.vault.put('mallory\u0000bank.example', { ...mallorys, sealed: alices.sealed });
    t.throws(() => vault.secrets('mallory', 'bank.example'), SealError, "alice's sealed value does not open as mallory's");
    await db.vault.put('alice\u0000other.example', { ...alices, name: 'other.example' });
    t.throws(() => vault.secrets('alice', 'other.example'), SealError, 'nor under another entry name');
    t.equal(vault.secrets('alice', 'bank.example')?.fields.password, 'alices-bank-pass', 'in place it still opens');
  });
});

t.test('a Sealer binds what it seals to its purpose', async (t) => {
  const s = new Sealer(Buffer.alloc(32, 7));
  const sealed = s.seal(Buffer.from('x'), 'vault:alice:a');
  t.equal(s.open(sealed, 'vault:alice:a').toString(), 'x');
  t.throws(() => s.open(sealed, 'vault:bob:a'), SealError);
  t.throws(() => new Sealer(Buffer.alloc(32, 8)).open(sealed, 'vault:alice:a'), SealError, 'another key');
  t.throws(() => s.open({ ...sealed, ct: Buffer.from([sealed.ct[0] ^ 1]) }, 'vault:alice:a'), SealError, 'an altered ciphertext');
});

t.test('values() follows every change: set, merge, delete field, delete entry, inbox', async (t) => {
  const dir = fresh();
  await withDb(dir, async (db) => {
    const { vault } = open(db, dir, '');
    t.same(vault.values('alice'), []);
    await vault.setFields('alice', 'a.example', { fields: { password: 'first-pass' } });
    t.same(vault.values('alice'), ['first-pass']);
    await vault.setFields('alice', 'a.example', { fields: { password: 'second-pass-longer', username: 'ada' } });
    t.same(vault.values('alice'), ['second-pass-longer', 'ada'], 'replaced, longest first');
    await vault.setInbox('alice', 'mail.example', { imap: { host: 'h', port: 1, user: 'u', password: 'imap-pass' } as never });
    t.ok(vault.values('alice').includes('imap-pass'), 'an inbox password is a value');
    await vault.setInbox('alice', 'sms.example', { smsId: 'id1', smsSecret: 'sms-secret-xyz' });
    t.ok(vault.values('alice').includes('sms-secret-xyz'), 'so is an SMS secret');
    await vault.deleteField('alice', 'a.example', 'password');
    t.notOk(vault.values('alice').includes('second-pass-longer'), 'a deleted field is gone at once');
    await vault.deleteEntry('alice', 'mail.example');
    t.notOk(vault.values('alice').includes('imap-pass'), 'a deleted entry too');
    t.same(vault.values('bob'), [], "another user's list is their own");
  });
});
