/**
 * The scheduler on a hand-moved clock: one timer for the earliest run, runs at their times, a bounded queue
 * (each monitor at most once, at most `concurrency` running), and a process that slept through runs runs once.
 */
import t from 'tap';
import { MonitorScheduler } from '../../../daemon/monitors/scheduler.js';
import { ManualClock } from '../../../daemon/monitors/clock.js';
import { RunHeap } from '../../../daemon/monitors/heap.js';

const MIN = 60_000;
const T0 = Date.parse('2026-03-28T12:00:00Z');
/** Every 5 minutes on the clock, like "*\/5 * * * *". */
const every5 = (after: number) => (Math.floor(after / (5 * MIN)) + 1) * 5 * MIN;
const flush = () => new Promise((r) => setImmediate(r));

t.test('the heap gives the earliest first and moves and removes entries', async (t) => {
  const h = new RunHeap();
  const times = [50, 10, 40, 30, 20, 60, 5];
  times.forEach((at, i) => h.set(`k${i}`, at));
  h.set('k5', 1);
  h.delete('k2');
  const out: number[] = [];
  for (let e = h.pop(); e; e = h.pop()) out.push(e.at);
  t.same(out, [1, 5, 10, 20, 30, 50]);
});

t.test('runs come at their times from one timer', async (t) => {
  const clock = new ManualClock(T0);
  const ran: { key: string; scheduledAt: number; at: number }[] = [];
  const s = new MonitorScheduler({ clock, concurrency: 4, nextAfter: (_k, after) => every5(after), run: async (key, scheduledAt) => void ran.push({ key, scheduledAt, at: clock.now() }) });
  for (let i = 0; i < 50; i++) s.schedule(`m${i}`, every5(T0));
  t.equal(clock.pending(), 1, 'fifty monitors, one timer');
  clock.advanceTo(T0 + 4 * MIN);
  await flush();
  t.equal(ran.length, 0, 'nothing before its time');
  clock.advanceTo(T0 + 5 * MIN);
  for (let i = 0; i < 20 && ran.length < 50; i++) await flush();
  t.equal(ran.length, 50, 'all fifty at the boundary');
  t.ok(ran.every((r) => r.scheduledAt === T0 + 5 * MIN && r.at === T0 + 5 * MIN));
  t.equal(s.nextRunOf('m0'), T0 + 10 * MIN, 'and the next run is the next boundary');
  t.equal(clock.pending(), 1);
  s.remove('m0');
  clock.advanceTo(T0 + 10 * MIN);
  for (let i = 0; i < 20 && ran.length < 99; i++) await flush();
  t.equal(ran.filter((r) => r.key === 'm0').length, 1, 'a removed monitor runs no more');
  t.equal(ran.length, 99);
  await s.stop();
  t.equal(clock.pending(), 0, 'stop leaves no timer');
});

t.test('the queue is bounded: concurrency at most, each monitor queued once however late', async (t) => {
  const clock = new ManualClock(T0);
  let running = 0;
  let most = 0;
  const release: (() => void)[] = [];
  const runs = new Map<string, number>();
  const s = new MonitorScheduler({
    clock,
    concurrency: 2,
    nextAfter: (_k, after) => every5(after),
    run: (key) => {
      runs.set(key, (runs.get(key) ?? 0) + 1);
      running++;
      most = Math.max(most, running);
      return new Promise<void>((r) => release.push(() => { running--; r(); }));
    },
  });
  for (let i = 0; i < 6; i++) s.schedule(`m${i}`, every5(T0));
  clock.advanceTo(T0 + 5 * MIN);
  await flush();
  t.equal(running, 2, 'two running');
  t.equal(s.queued, 4, 'four waiting');
  // The checks are so slow that the next boundary comes while all six are still running or waiting.
  clock.advanceTo(T0 + 10 * MIN);
  await flush();
  t.equal(s.queued, 4, 'none of them queued a second time');
  while (release.length) {
    release.shift()!();
    await flush();
    await flush();
  }
  t.equal(most, 2, 'never more than two at once');
  t.same([...runs.values()], [1, 1, 1, 1, 1, 1], 'each ran once for the two boundaries it was busy through');
  await s.stop();
});

t.test('a clock that jumps over many runs runs each monitor once, then goes on from now', async (t) => {
  const clock = new ManualClock(T0);
  const ran: number[] = [];
  const s = new MonitorScheduler({ clock, concurrency: 4, nextAfter: (_k, after) => every5(after), run: async (_k, at) => void ran.push(at) });
  s.schedule('m', every5(T0));
  clock.jumpTo(T0 + 60 * MIN + 30_000);
  await flush();
  t.same(ran, [T0 + 5 * MIN], 'one run for the twelve it slept through');
  t.equal(s.nextRunOf('m'), T0 + 65 * MIN);
  await s.stop();
});
