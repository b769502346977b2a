/** Response caches count toward the storage quota, and a response past it is not stored (the page read goes on). */
import t from 'tap';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb } from '../../../storage/db.js';
import { ResponseCacheStore } from '../../../storage/response-cache.js';
import { StorageQuota } from '../../../daemon/quotas/storage.js';
import { record, withResponseCache } from '../../../daemon/cache/index.js';

const dir = mkdtempSync(join(tmpdir(), 'browserd-cache-quota-'));
const db = openDb(dir);
t.teardown(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

const responseCache = new ResponseCacheStore(db, dir, { maxBytesPerUser: 1_000_000 });
const storageQuota = new StorageQuota({ dataDir: dir, limit: 1000, cacheBytes: (u) => responseCache.usedBytes(u) });
const env = { responseCache, storageQuota, vault: { values: () => [] }, filledCodes: { list: () => [] } } as never;
const answer = (body: string) => ({ url: 'http://x.test/', status: 200, headers: { 'content-type': 'text/plain' }, body: Buffer.from(body) });

t.test('stored responses count; past the quota the next is refused and not stored', async (t) => {
  await record(env, 'alice', 'c', 'GET', 'http://x.test/1', answer('a'.repeat(400)));
  t.equal(storageQuota.used('alice'), responseCache.usedBytes('alice'));
  t.ok(storageQuota.used('alice') >= 400, 'the cache bytes count');
  mkdirSync(join(dir, 'files', 'alice'), { recursive: true });
  writeFileSync(join(dir, 'files', 'alice', 'doc.pdf'), Buffer.alloc(400));
  await t.rejects(record(env, 'alice', 'c', 'GET', 'http://x.test/2', answer('b'.repeat(400))), { code: 'refused', details: { quota: 'storageBytes' } });
  t.equal(responseCache.get('alice', 'c', 'GET', 'http://x.test/2'), undefined, 'nothing stored');
  // Through the fetcher the page is still answered: only the storing is skipped.
  const fetch = withResponseCache(env, 'alice', 'record', 'c', async (url) => ({ requestedUrl: url, ...answer('c'.repeat(400)) }));
  t.equal((await fetch('http://x.test/3')).status, 200);
  t.equal(responseCache.get('alice', 'c', 'GET', 'http://x.test/3'), undefined);
  await record(env, 'bob', 'c', 'GET', 'http://x.test/1', answer('d'.repeat(400)));
  t.ok(responseCache.get('bob', 'c', 'GET', 'http://x.test/1'), "bob's quota is his own");
});
