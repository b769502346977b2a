/**
 * A disabled account's monitors check nothing on their schedule (no page load, no event) while it is disabled,
 * keep their schedule, and check again once the account is enabled. Real LMDB, a hand-moved clock.
 */
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { openDb } from '../../../storage/db.js';
import { MonitorService } from '../../../daemon/monitors/service.js';
import { ManualClock } from '../../../daemon/monitors/clock.js';
import type { Platform } from '../../../daemon/platform.js';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-03-28T12:00:00Z');

t.test('scheduled checks of a disabled account do not run; enabled again, they do', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'browserd-monitors-disabled-'));
  const db = openDb(dir);
  t.teardown(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });
  const disabled = new Set<string>();
  const captures: string[] = [];
  const env = { cfg: { quotas: { monitors: 10 } }, webhooks: { emit: async () => undefined }, log: pino({ level: 'silent' }), users: { isActive: (u: string) => !disabled.has(u) } } as unknown as Platform;
  const clock = new ManualClock(T0);
  const s = new MonitorService(db, () => env, { clock, capture: async (_env, user, spec) => (captures.push(`${user} ${spec.url}`), { kind: 'text', text: 'Price: 10' }) });
  s.start();
  const spec = { cron: '@hourly', timezone: 'UTC', compare: 'text' as const, threshold: 0.01, ignore: [] };
  const dave = await s.create('dave', { ...spec, url: 'http://site.test/dave' });
  await s.create('erin', { ...spec, url: 'http://site.test/erin' });

  disabled.add('dave');
  clock.advanceTo(T0 + HOUR);
  await s.settled();
  t.same(captures, ['erin http://site.test/erin'], "only the active account's monitor loaded its page");
  t.same(s.checks('dave', dave.id, { changedOnly: false, limit: 10 }), [], 'no check stored for the disabled account');
  t.equal(s.get('dave', dave.id).nextRunAt, '2026-03-28T14:00:00+00:00', 'the schedule is kept');

  disabled.delete('dave');
  captures.length = 0;
  clock.advanceTo(T0 + 2 * HOUR);
  await s.settled();
  t.same(captures.sort(), ['dave http://site.test/dave', 'erin http://site.test/erin'], 'enabled again, it checks');
  await s.stop();
});
