/**
 * The store's backstop against over-long keys (storage/key-size.ts): LMDB refuses a key past 1,978 bytes with a
 * plain Error, which the daemon answered as internal_error. Every database the store opens refuses such a key
 * first, as validation_error with a next step, and stores nothing; a read by such a key finds nothing (lmdb-js
 * threw past about 4 KB); a key at the limit still works. And the
 * response cache, whose keys hold URLs (a caller's or a page's, of any length), stores and finds a long URL.
 */
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb, type Db } from '../../../storage/db.js';
import { MAX_KEY_BYTES, keyBytes } from '../../../storage/key-size.js';
import { ResponseCacheStore } from '../../../storage/response-cache.js';
import { TaskStore } from '../../../storage/tasks.js';
import { MonitorStore } from '../../../storage/monitors.js';
import { BrowserdError } from '../../../protocol/errors.js';

const LONG = ['a'.repeat(3000), '\u{1F600}'.repeat(600), `u\u0000${'\u00e9'.repeat(1000)}`];

let dir: string;
let db: Db;
t.before(() => {
  dir = mkdtempSync(join(tmpdir(), 'browserd-key-size-'));
  db = openDb(dir);
});
t.teardown(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

function refusal(t: Pick<typeof import('tap').default, 'ok' | 'equal' | 'type'>, e: unknown, what: string) {
  t.ok(e instanceof BrowserdError, `${what}: a BrowserdError (got ${String(e)})`);
  t.equal((e as BrowserdError).code, 'validation_error', `${what}: validation_error`);
  t.type((e as BrowserdError).next, 'string', `${what}: with a next step`);
}

t.test('keyBytes counts what LMDB stores: UTF-8 bytes, not characters', async (t) => {
  t.equal(keyBytes('a'.repeat(100)), 100);
  t.equal(keyBytes('\u{1F600}'.repeat(600)), 2400);
  t.equal(keyBytes('\u00e9'.repeat(100)), 200);
  t.equal(keyBytes(`\u0001${'b'.repeat(99)}`), 101, 'a key starting below 28 gets a marker byte');
  t.ok(keyBytes('\u{1F600}'.repeat(600)) > MAX_KEY_BYTES, '600 emoji are past the limit though 1,200 UTF-16 units');
});

t.test('every database refuses an over-long key as validation_error, storing nothing', async (t) => {
  const stores: Record<string, object> = { db, tasks: new TaskStore(db), monitors: new MonitorStore(db), userBytes: db.userBytes };
  let seen = 0;
  for (const [name, store] of Object.entries(stores)) {
    for (const [field, value] of Object.entries(store)) {
      const table = value as any;
      if (!table || typeof table.putSync !== 'function' || typeof table.getRange !== 'function') continue;
      seen++;
      for (const k of LONG) {
        const what = `${name}.${field} ${k.length} units`;
        let e: unknown;
        try {
          table.putSync(k, 1);
        } catch (x) {
          e = x;
        }
        refusal(t, e, `${what} putSync`);
        e = undefined;
        try {
          await table.put(k, 1);
        } catch (x) {
          e = x;
        }
        refusal(t, e, `${what} put`);
        e = undefined;
        try {
          await table.remove(k);
        } catch (x) {
          e = x;
        }
        refusal(t, e, `${what} remove`);
        t.equal(table.get(k), undefined, `${what}: nothing stored`);
      }
    }
  }
  t.ok(seen >= 20, `the walk found the databases (${seen})`);
  // Reads by a key no row can have find nothing (lmdb-js threw past about 4 KB); a range bound past it is refused.
  const huge = 'h'.repeat(100_000);
  t.equal(db.meta.get(huge), undefined, 'get finds nothing');
  t.equal(db.meta.getEntry(huge), undefined, 'getEntry finds nothing');
  t.equal(db.meta.doesExist(huge), false, 'doesExist says no');
  let r: unknown;
  try {
    [...db.meta.getRange({ start: huge, end: `${huge}z` })];
  } catch (x) {
    r = x;
  }
  refusal(t, r, 'getRange with an over-long bound');
  // A key at the limit still passes (the guard refuses only what LMDB would).
  const atLimit = 'b'.repeat(MAX_KEY_BYTES);
  t.equal(keyBytes(atLimit), MAX_KEY_BYTES);
  await db.meta.put(atLimit, 7);
  t.equal(db.meta.get(atLimit), 7);
  await db.meta.remove(atLimit);
  // A sync transaction with an over-long key inside is refused whole.
  let e: unknown;
  try {
    db.meta.transactionSync(() => {
      db.meta.put('probe-before', 1);
      db.meta.put(LONG[0]!, 1);
    });
  } catch (x) {
    e = x;
  }
  refusal(t, e, 'transactionSync');
  t.equal(db.meta.get('probe-before'), undefined, 'the transaction wrote nothing');
});

t.test('the response cache stores and finds a response under a URL of any length', async (t) => {
  const cache = new ResponseCacheStore(db, dir, { maxBytesPerUser: 10_000_000 });
  const urls = [`https://example.test/${'p'.repeat(5000)}`, `https://example.test/?q=${'\u{1F600}'.repeat(600)}`, 'https://example.test/short'];
  for (const [i, url] of urls.entries()) {
    await cache.put('alice', 'c1', { method: 'GET', url, finalUrl: url, status: 200, headers: { 'content-type': 'text/plain' }, body: Buffer.from(`body ${i}`) });
  }
  for (const [i, url] of urls.entries()) {
    const hit = cache.get('alice', 'c1', 'GET', url);
    t.equal(hit?.body.toString(), `body ${i}`, `found under a ${url.length}-unit URL`);
    t.equal(hit?.url, url, 'with its URL as stored');
    t.equal(cache.get('alice', 'c1', 'HEAD', url), undefined, 'not under another method');
    t.equal(cache.get('alice', 'c2', 'GET', url), undefined, 'not in another cache');
    t.equal(cache.get('bob', 'c1', 'GET', url), undefined, "not in another user's");
  }
  t.equal(cache.get('alice', 'c1', 'GET', `${urls[0]}x`), undefined, 'a different long URL misses');
  t.same(cache.list('alice').map((c) => [c.name, c.entries]), [['c1', 3]]);
  t.ok(await cache.delete('alice', 'c1'));
  for (const url of urls) t.equal(cache.get('alice', 'c1', 'GET', url), undefined, 'gone with its cache');
});
