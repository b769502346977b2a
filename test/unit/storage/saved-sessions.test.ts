/**
 * The saved-session store: contents are sealed (no cookie or storage value in the LMDB file), bound to user
 * and name (a record moved to another user or name does not open), and unreadable while the vault is locked.
 */
import t from 'tap';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb } from '../../../storage/db.js';
import { Sealer } from '../../../storage/seal.js';
import { SavedSessionStore, type SessionContents } from '../../../storage/saved-sessions.js';
import { BrowserdError } from '../../../protocol/errors.js';

const root = mkdtempSync(join(tmpdir(), 'browserd-saved-'));
t.teardown(() => rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));

const COOKIE_VALUE = 'cookie-value-7f3a91c2e5';
const STORAGE_VALUE = 'storage-value-b81d44e0aa';
const contents = (): SessionContents => ({
  cookies: [{ name: 'sid', value: COOKIE_VALUE, domain: '127.0.0.1', path: '/', httpOnly: true, secure: false, sourceScheme: 'NonSecure', sourcePort: 8080 }],
  origins: [{ origin: 'http://127.0.0.1:8080', localStorage: [['token', STORAGE_VALUE]] }],
});
/** Where the store keeps a record (the layout is private to the store; the swap tests need to reach it). */
const slot = (user: string, name: string) => `${user}\u0000${name}`;

t.test('the LMDB file holds no cookie or storage value, and a listing shows none', async (t) => {
  const dir = join(root, 'sealed');
  const db = openDb(dir);
  const sealer = new Sealer(randomBytes(32));
  const store = new SavedSessionStore(db, () => sealer);
  const { info, replaced } = await store.save('alice', 'work', ['127.0.0.1'], contents());
  t.equal(replaced, false);
  t.same(info, { name: 'work', sites: ['127.0.0.1'], cookies: 1, storageOrigins: ['http://127.0.0.1:8080'], savedAt: info.savedAt });
  t.same(store.open('alice', 'work'), contents(), 'it opens to what was saved');
  const listed = JSON.stringify(store.list('alice'));
  t.notMatch(listed, COOKIE_VALUE);
  t.notMatch(listed, STORAGE_VALUE);
  await db.close();
  const bytes = readFileSync(join(dir, 'browserd.lmdb'));
  t.equal(bytes.indexOf(COOKIE_VALUE), -1, 'no cookie value in the file');
  t.equal(bytes.indexOf(STORAGE_VALUE), -1, 'no storage value in the file');
  t.not(bytes.indexOf('127.0.0.1'), -1, 'the file is readable as bytes at all (the listing part is there)');
});

t.test('a record moved to another user or another name does not open', async (t) => {
  const db = openDb(join(root, 'swap'));
  t.teardown(() => db.close());
  const sealer = new Sealer(randomBytes(32));
  const store = new SavedSessionStore(db, () => sealer);
  await store.save('alice', 'work', ['127.0.0.1'], contents());
  const record = db.savedSessions.get(slot('alice', 'work'));
  await db.savedSessions.put(slot('bob', 'work'), record);
  await db.savedSessions.put(slot('alice', 'other'), record);
  t.equal(store.list('bob').length, 1, 'the moved record is listed for bob...');
  for (const [user, name] of [['bob', 'work'], ['alice', 'other']]) {
    let err: unknown;
    try {
      store.open(user, name);
    } catch (e) {
      err = e;
    }
    t.ok(err instanceof BrowserdError, `...but ${user}/${name} does not open`);
    t.equal((err as BrowserdError).code, 'internal_error');
    t.match((err as BrowserdError).message, /altered or does not belong to this user/);
    t.notMatch(String((err as BrowserdError).message), COOKIE_VALUE);
  }
  t.same(store.open('alice', 'work'), contents(), "alice's own record still opens");
});

t.test('another key does not open a record; a locked vault refuses every sealed use with its own error', async (t) => {
  const db = openDb(join(root, 'keys'));
  t.teardown(() => db.close());
  await new SavedSessionStore(db, () => new Sealer(randomBytes(32))).save('alice', 'work', ['127.0.0.1'], contents());
  const otherKey = new SavedSessionStore(db, () => new Sealer(randomBytes(32)));
  t.throws(() => otherKey.open('alice', 'work'), { code: 'internal_error' });
  const locked = new SavedSessionStore(db, () => {
    throw new BrowserdError('not_configured', 'the vault key is missing', { next: 'Restore it.' });
  });
  t.throws(() => locked.open('alice', 'work'), { code: 'not_configured' });
  await t.rejects(locked.save('alice', 'new', ['127.0.0.1'], contents()), { code: 'not_configured' });
  t.equal(locked.info('alice', 'new'), undefined, 'a refused save wrote nothing');
});

t.test('saving over a name replaces it and says so; delete removes it', async (t) => {
  const db = openDb(join(root, 'replace'));
  t.teardown(() => db.close());
  const sealer = new Sealer(randomBytes(32));
  const store = new SavedSessionStore(db, () => sealer);
  await store.save('alice', 'work', ['127.0.0.1'], contents());
  const second = await store.save('alice', 'work', ['example.com'], { cookies: [], origins: [{ origin: 'https://example.com', localStorage: [['a', 'b']] }] });
  t.equal(second.replaced, true);
  t.same(store.list('alice').map((i) => i.sites), [['example.com']]);
  t.same(store.open('alice', 'work')?.cookies, []);
  t.equal(await store.delete('alice', 'work'), true);
  t.equal(await store.delete('alice', 'work'), false);
  t.equal(store.open('alice', 'work'), undefined);
  t.same(store.list('alice'), []);
});

t.test("one user's listing never holds another's sessions", async (t) => {
  const db = openDb(join(root, 'users'));
  t.teardown(() => db.close());
  const sealer = new Sealer(randomBytes(32));
  const store = new SavedSessionStore(db, () => sealer);
  await store.save('alice', 'a', ['127.0.0.1'], contents());
  await store.save('alice2', 'b', ['127.0.0.1'], contents());
  await store.save('al', 'c', ['127.0.0.1'], contents());
  t.same(store.list('alice').map((i) => i.name), ['a']);
  t.same(store.list('al').map((i) => i.name), ['c']);
  t.equal(store.info('al', 'a'), undefined);
});
