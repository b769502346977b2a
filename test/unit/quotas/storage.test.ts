/** The storage quota counts a user's bytes where they lie: files (downloads under way too), uploads, HAR files, caches. */
import t, { type Test } from 'tap';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StorageQuota } from '../../../daemon/quotas/storage.js';
import { bytesUnder } from '../../../storage/dir-bytes.js';
import { FileStore } from '../../../storage/files.js';

function rig(t: Test, limit = 10_000, cache: Record<string, number> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'browserd-quota-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const put = (rel: string, bytes: number) => {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), Buffer.alloc(bytes));
    return join(dir, rel);
  };
  return { dir, put, quota: new StorageQuota({ dataDir: dir, limit, cacheBytes: (u) => cache[u] ?? 0 }) };
}

t.test('every place a user stores bytes counts, and only theirs', async (t) => {
  const { put, quota, dir } = rig(t, 10_000, { alice: 700 });
  put('files/alice/report.pdf', 1000);
  put('files/alice/.downloading/default/1234.crdownload', 2000);
  put('uploads/alice/form.csv', 300);
  put('har/alice/t1.jsonl', 400);
  put('files/bob/big.bin', 5000);
  put('har/al%2Eice/t1.jsonl', 99);
  t.equal(quota.used('alice'), 1000 + 2000 + 300 + 400 + 700);
  t.equal(quota.used('bob'), 5000);
  t.equal(quota.used('al.ice'), 99, 'HAR dirs are named as the recordings name them');
  t.equal(quota.used('nobody'), 0);
  t.equal(quota.room('alice'), 10_000 - 4400);
  t.equal(bytesUnder(join(dir, 'missing')), 0);
});

t.test('check refuses past the limit, counts a staged file once, and allows up to the limit exactly', async (t) => {
  const { put, quota } = rig(t, 5000);
  put('files/alice/a.bin', 3000);
  quota.check('alice', 2000);
  const e = t.throws(() => quota.check('alice', 2001)) as any;
  t.equal(e.code, 'refused');
  t.match(e.details, { quota: 'storageBytes', used: 3000, limit: 5000, adding: 2001 });
  const staged = put('files/alice/.downloading/default/guid', 1500);
  t.throws(() => quota.check('alice', 1500), 'counted twice it would not fit');
  quota.check('alice', 1500, staged);
});

t.test('FileStore asks its guard before it writes, and a refusal leaves no file', async (t) => {
  const { dir, quota } = rig(t, 1000);
  const files = new FileStore(dir);
  files.guard = (user, bytes, staged) => quota.check(user, bytes, staged);
  await files.addBytes('alice', 'a.txt', Buffer.alloc(800, 1));
  await t.rejects(files.addBytes('alice', 'b.txt', Buffer.alloc(300, 2)), { code: 'refused' });
  t.same(files.list('alice').map((f) => f.name), ['a.txt']);
  t.equal((await files.addBytes('alice', 'c.txt', Buffer.alloc(800, 1))).existing, true, 'the same bytes take no room');
  t.throws(() => files.write('alice', 'p.pdf', Buffer.alloc(300)), { code: 'refused' });
  // Replacing a file counts only its growth: 800 -> 900 fits under 1000.
  t.equal(files.write('alice', 'a.txt', Buffer.alloc(900)).size, 900);
  const stagedDir = files.stagingDir('alice', 'default');
  writeFileSync(join(stagedDir, 'guid'), Buffer.alloc(200));
  await t.rejects(files.addFile('alice', 'dl.bin', join(stagedDir, 'guid')), { code: 'refused' });
  t.same(files.list('alice').map((f) => f.name), ['a.txt'], 'the download was not moved in');
});
