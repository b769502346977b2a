/** The quota table: defaults, flags over environment, bad values stop the start, refusals name the flag. */
import t from 'tap';
import { flagUsage } from '../../../daemon/settings.js';
import { QUOTAS, loadQuotaLimits, quotaError, quotaView, PendingCount } from '../../../daemon/quotas/limits.js';
import { SERVE_FLAGS } from '../../../bin/args.js';

t.test('defaults, a flag over its environment variable, megabytes as bytes', async (t) => {
  const d = loadQuotaLimits({}, {});
  t.same(d, { crawls: 4, tasks: 20, monitors: 100, recordings: 200, harRecordings: 10, storageBytes: 4096 * 1024 * 1024 });
  const set = loadQuotaLimits({ 'max-crawls-per-user': '1', 'max-storage-mb-per-user': '3' }, { BROWSERD_MAX_CRAWLS_PER_USER: '9', BROWSERD_MAX_TASKS_PER_USER: '5' });
  t.equal(set.crawls, 1, 'the flag wins');
  t.equal(set.tasks, 5, 'else the environment');
  t.equal(set.storageBytes, 3 * 1024 * 1024);
  t.same(quotaView(set), { crawlsPerUser: 1, tasksPerUser: 5, monitorsPerUser: 100, recordingsPerUser: 200, harRecordingsPerUser: 10, storageBytesPerUser: 3 * 1024 * 1024 });
});

t.test('anything but a whole number >= 1 stops the start, naming the flag', async (t) => {
  for (const q of Object.values(QUOTAS)) {
    for (const bad of ['0', '-1', '1.5', 'x', '']) t.throws(() => loadQuotaLimits({ [q.flag]: bad }, {}), new RegExp(`--${q.flag}`));
    t.throws(() => loadQuotaLimits({ [q.flag]: true }, {}), new RegExp(`--${q.flag}`), 'a flag without its value');
  }
});

t.test('every quota flag is one serve accepts and its usage lists', async (t) => {
  // The usage is made from the settings table (test/contract/settings.test.ts runs --help itself).
  const usage = flagUsage(118, '  ', 'browserd serve');
  for (const q of Object.values(QUOTAS)) {
    t.ok(SERVE_FLAGS[q.flag], `--${q.flag} parses`);
    t.match(usage, `--${q.flag}`, `--${q.flag} is in the usage`);
  }
});

t.test('a refusal is `refused` and names the limit, its flag and the numbers', async (t) => {
  const e = quotaError('crawls', 4, 4, 'Cancel one.');
  t.equal(e.code, 'refused');
  t.equal(e.status, 403);
  t.match(e.message, /4 crawls running or paused.*--max-crawls-per-user = 4/);
  t.match(e.next, /^Cancel one\. An admin can raise --max-crawls-per-user\.$/);
  t.same(e.details, { quota: 'crawls', flag: '--max-crawls-per-user', limit: 4, used: 4 });
  const b = quotaError('storageBytes', 900 * 1024, 1024 * 1024, 'Delete files.', 200 * 1024);
  t.match(b.message, /storing 0\.2 MB more would pass your storage quota: you store 0\.9 MB of 1 MB/);
  t.same(b.details, { quota: 'storageBytes', flag: '--max-storage-mb-per-user', limit: 1024 * 1024, used: 900 * 1024, adding: 200 * 1024 });
});

t.test('creations under way count until released, once', async (t) => {
  const p = new PendingCount();
  const a = p.hold('alice');
  const b = p.hold('alice');
  p.hold('bob');
  t.equal(p.of('alice'), 2);
  a();
  a();
  t.equal(p.of('alice'), 1, 'a second release changes nothing');
  b();
  t.equal(p.of('alice'), 0);
  t.equal(p.of('bob'), 1);
});
