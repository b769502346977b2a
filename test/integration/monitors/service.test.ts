/**
 * The monitor service on real LMDB and a hand-moved clock, with the page replaced by a function the test
 * switches: baseline first, an event only on a change, ignore, failed loads keep the baseline, checks order,
 * filter, limit and cap, other users, the per-user cap, and runs missed while the daemon was down run once.
 */
import t, { type Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { openDb, type Db } from '../../../storage/db.js';
import { MonitorService } from '../../../daemon/monitors/service.js';
import { ManualClock } from '../../../daemon/monitors/clock.js';
import type { Platform } from '../../../daemon/platform.js';
import { MAX_CHECKS_KEPT, MAX_MONITORS_PER_USER, type MonitorSpec } from '../../../storage/monitors.js';
import { BrowserdError } from '../../../protocol/errors.js';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-03-28T12:00:00Z');
const spec = (over: Partial<MonitorSpec> = {}): MonitorSpec => ({ url: 'http://site.test/page', cron: '@hourly', timezone: 'UTC', compare: 'text', threshold: 0.01, ignore: [], ...over });

interface Rig { db: Db; dir: string; clock: ManualClock; page: { text: string; fail?: string }; events: { user: string; type: string; data: any }[]; captures: string[]; service(): MonitorService }

function rig(t: Test): Rig {
  const dir = mkdtempSync(join(tmpdir(), 'browserd-monitors-'));
  const db = openDb(dir);
  const r: Rig = {
    db,
    dir,
    clock: new ManualClock(T0),
    page: { text: 'Price: 10\nUpdated 3 minutes ago' },
    events: [],
    captures: [],
    service() {
      const env = { cfg: { quotas: { monitors: MAX_MONITORS_PER_USER } }, webhooks: { emit: async (user: string, type: string, data: any) => void r.events.push({ user, type, data }) }, log: pino({ level: 'silent' }), users: { isActive: () => true } } as unknown as Platform;
      return new MonitorService(db, () => env, {
        clock: r.clock,
        capture: async (_env, user, s) => {
          r.captures.push(`${user} ${s.url}`);
          if (r.page.fail) throw new BrowserdError('navigation_failed', r.page.fail);
          return { kind: 'text', text: r.page.text };
        },
      });
    },
  };
  t.teardown(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });
  return r;
}

t.test('via run: baseline first, an event only on a change, ignore, failures keep the baseline', async (t) => {
  const r = rig(t);
  const s = r.service();
  s.start();
  const m = await s.create('alice', spec({ ignore: ['^Updated \\d+ minutes ago$'] }));
  t.match(m.id, /^mon_[0-9a-f]{16}$/);
  t.equal(m.nextRunAt, '2026-03-28T13:00:00+00:00');
  const first = await s.run('alice', m.id);
  t.same([first.status, first.changed], ['ok', false], 'the first check is the baseline');
  t.match(first.summary, /baseline recorded: 1 line/);
  r.page.text = 'Price: 10\nUpdated 9 minutes ago';
  const same = await s.run('alice', m.id);
  t.equal(same.changed, false, 'an ignored line changing is no change');
  t.equal(r.events.length, 0, 'no event without a change');
  r.page.fail = 'http://site.test/page did not load: net::ERR_CONNECTION_REFUSED';
  const failed = await s.run('alice', m.id);
  t.same([failed.status, failed.changed], ['failed', false]);
  t.match(failed.summary, /ERR_CONNECTION_REFUSED/);
  r.page.fail = undefined;
  r.page.text = 'Price: 12\nUpdated 2 minutes ago';
  const changed = await s.run('alice', m.id);
  t.same([changed.status, changed.changed], ['ok', true], 'compared with the baseline from before the failure');
  t.match(changed.summary, /1 line\(s\) added, 1 removed; first: \+ Price: 12/);
  t.equal(r.events.length, 1, 'one event');
  t.same(r.events[0], { user: 'alice', type: 'monitor.changed', data: { monitorId: m.id, url: 'http://site.test/page', compare: 'text', at: changed.at, summary: changed.summary, added: ['Price: 12'], removed: ['Price: 10'] } });
  const again = await s.run('alice', m.id);
  t.equal(again.changed, false, 'the change became the baseline');
  t.equal(r.events.length, 1);
  await s.stop();
});

t.test('checks: newest first, changedOnly, limit; 500 kept', async (t) => {
  const r = rig(t);
  const s = r.service();
  const m = await s.create('alice', spec());
  for (let i = 0; i < 6; i++) {
    r.page.text = `v${Math.floor(i / 2)}`;
    r.clock.advanceTo(T0 + i * 1000);
    await s.run('alice', m.id);
  }
  const all = s.checks('alice', m.id, { changedOnly: false, limit: 10 });
  t.same(all.map((c) => c.changed), [false, true, false, true, false, false], 'newest first');
  t.same(all.map((c) => c.at), [5, 4, 3, 2, 1, 0].map((i) => new Date(T0 + i * 1000).toISOString()));
  t.same(s.checks('alice', m.id, { changedOnly: true, limit: 10 }).map((c) => c.at), [4, 2].map((i) => new Date(T0 + i * 1000).toISOString()));
  t.equal(s.checks('alice', m.id, { changedOnly: false, limit: 3 }).length, 3);
  t.same(s.checks('alice', m.id, { changedOnly: true, limit: 1 }).map((c) => c.at), [new Date(T0 + 4000).toISOString()]);
  for (let i = 0; i < MAX_CHECKS_KEPT; i++) await s.store.addCheck('alice', m.id, { at: new Date(T0 + 10_000 + i).toISOString(), changed: false, status: 'ok', summary: `n${i}`, trigger: 'run' });
  t.equal(s.get('alice', m.id).checksKept, MAX_CHECKS_KEPT);
  const kept = s.checks('alice', m.id, { changedOnly: false, limit: 50 });
  t.equal(kept[0].summary, `n${MAX_CHECKS_KEPT - 1}`);
  t.same(s.checks('alice', m.id, { changedOnly: true, limit: 50 }), [], 'the six oldest (two of them changes) were dropped');
  await s.stop();
});

t.test('other users get not_found; the per-user cap refuses the 101st', async (t) => {
  const r = rig(t);
  const s = r.service();
  const m = await s.create('alice', spec());
  for (const call of [() => s.get('bob', m.id), () => s.checks('bob', m.id, { changedOnly: false, limit: 10 })]) {
    t.throws(call, { code: 'not_found' });
  }
  await t.rejects(s.run('bob', m.id), { code: 'not_found' });
  await t.rejects(s.delete('bob', m.id), { code: 'not_found' });
  t.same(s.list('bob', 10), { monitors: [], total: 0 });
  t.equal(r.captures.length, 0, "bob's attempts loaded nothing");
  t.ok(s.get('alice', m.id), 'still there for alice');
  for (let i = 1; i < MAX_MONITORS_PER_USER; i++) await s.create('alice', spec());
  await t.rejects(s.create('alice', spec()), { code: 'refused' });
  t.equal(s.list('alice', 50).total, MAX_MONITORS_PER_USER);
  t.ok(await s.create('bob', spec()), 'the cap is per user');
  await s.delete('alice', m.id);
  t.throws(() => s.get('alice', m.id), { code: 'not_found' });
  t.same(s.store.checks('alice', m.id, { limit: 10 }), []);
  await s.stop();
});

t.test('the schedule runs checks; runs missed while down run once at start', async (t) => {
  const r = rig(t);
  let s = r.service();
  s.start();
  const hourly = await s.create('alice', spec());
  const daily = await s.create('alice', spec({ cron: '0 9 * * *', timezone: 'Europe/Berlin', url: 'http://site.test/daily' }));
  t.equal(daily.nextRunAt, '2026-03-29T09:00:00+02:00');
  r.clock.advanceTo(T0 + HOUR);
  await s.settled();
  t.same(r.captures, ['alice http://site.test/page'], 'the hourly ran at 13:00');
  t.equal(s.checks('alice', hourly.id, { changedOnly: false, limit: 10 })[0].trigger, 'schedule');
  await s.stop();
  // Down from 13:00 to 16:10: three hourly runs (14, 15, 16) and no daily one fell in between.
  r.clock.jumpTo(T0 + 4 * HOUR + 10 * 60_000);
  r.captures.length = 0;
  s = r.service();
  s.start();
  await s.settled();
  t.same(r.captures, ['alice http://site.test/page'], 'the hourly ran once for the three it missed; the daily was not due');
  t.equal(s.get('alice', hourly.id).nextRunAt, '2026-03-28T17:00:00+00:00');
  r.clock.advanceTo(T0 + 5 * HOUR);
  await s.settled();
  t.equal(r.captures.length, 2, 'and on at 17:00');
  await s.stop();
  // Restarted before the next run: nothing runs at start.
  r.captures.length = 0;
  s = r.service();
  s.start();
  await s.settled();
  t.same(r.captures, [], 'nothing was missed');
  await s.stop();
});
