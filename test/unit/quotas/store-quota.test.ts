/**
 * The storage quota counts a user's rows in the store as the daemon wires it (main.ts: the store's guard is the
 * quota's check, the quota adds the store's tally): a monitor check that would pass it is not kept, a short
 * failed check naming the flag is, the baseline stays and the monitor keeps its schedule; with room again the
 * next check is stored. Files and store rows share the one limit. Real LMDB, a fake capture.
 */
import t from 'tap';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { openDb } from '../../../storage/db.js';
import { MonitorService } from '../../../daemon/monitors/service.js';
import { ManualClock } from '../../../daemon/monitors/clock.js';
import { StorageQuota } from '../../../daemon/quotas/storage.js';
import type { Platform } from '../../../daemon/platform.js';

const KB = 1024;

t.test('a monitor check past the storage quota is recorded as such, not stored; with room it is', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'browserd-store-quota-'));
  const db = openDb(dir);
  t.teardown(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });
  const quota = new StorageQuota({ dataDir: dir, limit: 1000 * KB, cacheBytes: () => 0, storeBytes: (u) => db.userBytes.byKind(u) });
  db.userBytes.guard = (user, bytes) => quota.check(user, bytes);
  const env = { cfg: { quotas: { monitors: 10 } }, webhooks: { emit: async () => undefined }, log: pino({ level: 'silent' }), users: { isActive: () => true } } as unknown as Platform;
  let text = `Price: 10\n${'word '.repeat((500 * KB) / 5)}`;
  const s = new MonitorService(db, () => env, { clock: new ManualClock(Date.parse('2026-03-28T12:00:00Z')), capture: async () => ({ kind: 'text', text }) });
  s.start();
  t.teardown(() => s.stop());

  // 600 KB of files already: the 500 KB baseline does not fit the 1000 KB quota.
  const files = join(dir, 'files', 'alice');
  mkdirSync(files, { recursive: true });
  writeFileSync(join(files, 'big.bin'), Buffer.alloc(600 * KB));
  const m = await s.create('alice', { url: 'http://site.test/', cron: '@hourly', timezone: 'UTC', compare: 'text', threshold: 0.01, ignore: [] });
  const first = await s.run('alice', m.id);
  t.equal(first.status, 'failed', 'the check is recorded as failed');
  t.match(first.summary, '--max-storage-mb-per-user', 'naming the flag');
  t.notOk(s.store.baseline('alice', m.id), 'no baseline was stored');
  t.ok(quota.used('alice') <= 1000 * KB, `the user stays within the quota (${quota.used('alice')})`);
  t.ok(quota.use('alice').monitors > 0, "the monitor's own rows count");
  t.ok(s.get('alice', m.id).nextRunAt, 'the monitor keeps its schedule');

  rmSync(join(files, 'big.bin'));
  const second = await s.run('alice', m.id);
  t.equal(second.status, 'ok', 'with room again the check is stored');
  t.equal(s.store.baseline('alice', m.id)?.kind, 'text', 'with its baseline');
  t.ok(quota.use('alice').monitors > 500 * KB, 'which counts toward the quota');
  t.equal(quota.used('alice'), Object.values(quota.use('alice')).reduce((a, b) => a + b, 0));

  // The quota is shared: now the files cannot take what the monitor holds.
  t.throws(() => quota.check('alice', 600 * KB), { code: 'refused', details: { quota: 'storageBytes' } });
  text = `Price: 11\n${'word '.repeat((500 * KB) / 5)}`;
  const third = await s.run('alice', m.id);
  t.equal(third.status, 'ok', 'a new baseline that replaces the old one takes no more room');
});
