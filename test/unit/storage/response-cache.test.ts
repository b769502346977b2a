/** The response cache store: per user, bodies stored once, oldest evicted past the cap, files private. */
import t from 'tap';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb } from '../../../storage/db.js';
import { ResponseCacheStore } from '../../../storage/response-cache.js';

const dir = mkdtempSync(join(tmpdir(), 'browserd-cache-'));
const db = openDb(dir);
t.teardown(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

const res = (url: string, body: string) => ({ method: 'GET' as const, url, finalUrl: url, status: 200, headers: { 'content-type': 'text/plain' }, body: Buffer.from(body) });

t.test('per user and name; equal bodies once; delete', async (t) => {
  const store = new ResponseCacheStore(db, dir, { maxBytesPerUser: 1_000_000 });
  await store.put('alice', 'a', res('http://x.test/1', 'same body'));
  await store.put('alice', 'a', res('http://x.test/2', 'same body'));
  await store.put('alice', 'b', res('http://x.test/1', 'other body'));
  t.equal(store.get('alice', 'a', 'GET', 'http://x.test/1')!.body.toString(), 'same body');
  t.equal(store.get('alice', 'b', 'GET', 'http://x.test/1')!.body.toString(), 'other body');
  t.equal(store.get('bob', 'a', 'GET', 'http://x.test/1'), undefined, "another user's entries are not reachable");
  t.equal(store.get('alice', 'a', 'HEAD', 'http://x.test/1'), undefined, 'GET and HEAD are stored apart');
  const files = readdirSync(join(dir, 'cache'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  t.equal(files.length, 2, 'two distinct bodies, two files');
  for (const f of files) t.equal(statSync(join(f.parentPath, f.name)).mode & 0o777, 0o600);
  t.same(store.list('alice').map((c) => [c.name, c.entries]), [['a', 2], ['b', 1]]);
  t.ok(await store.delete('alice', 'a'));
  t.notOk(await store.delete('alice', 'a'));
  t.equal(readdirSync(join(dir, 'cache'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length, 1, "the deleted cache's body file is gone");
});

t.test('past the cap the oldest entries go first', async (t) => {
  const store = new ResponseCacheStore(db, dir, { maxBytesPerUser: 250 });
  for (let i = 0; i < 5; i++) await store.put('carol', 'c', res(`http://x.test/${i}`, String(i).repeat(100)));
  t.equal(store.get('carol', 'c', 'GET', 'http://x.test/0'), undefined);
  t.equal(store.get('carol', 'c', 'GET', 'http://x.test/2'), undefined);
  t.ok(store.get('carol', 'c', 'GET', 'http://x.test/3'));
  t.ok(store.get('carol', 'c', 'GET', 'http://x.test/4'));
  t.ok(store.list('carol')[0]!.bytes <= 250);
});
