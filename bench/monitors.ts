/**
 * Monitors (npm run bench -- --only monitors):
 *  - Start drift: 1,000 monitors ("*\/5 * * * *", ten users of 100) all due at the same 5-minute boundary,
 *    over five boundaries in a row. A check's start is when its capture begins; drift is that minus the
 *    boundary. The page load is replaced by an instant capture (a real one takes seconds in Chromium, and
 *    1,000 of them cannot all start within a second on any queue bounded to a few browsers tabs): what is
 *    measured is the daemon's own path, the one timer, the heap, the run queue and each check's LMDB write.
 *    Time is warped between boundaries (the clock jumps to a second before the next one), real timers fire.
 *  - Idle memory: in child processes, 1,000 bare croner jobs against the monitor service holding the same
 *    1,000 monitors (which share one rule), and holding 1,000 monitors of distinct schedules (one croner
 *    rule each, the worst case) (bench/monitors-rss-child.ts), same run.
 * Prints numbers; asserts nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { openDb } from '../storage/db.js';
import { MonitorService } from '../daemon/monitors/service.js';
import type { Clock } from '../daemon/monitors/clock.js';
import type { Platform } from '../daemon/platform.js';
import { printTable, quantile, median } from './lib.js';

const MONITORS = 1000;
const USERS = 10;
const ROUNDS = 5;
const FIVE_MIN = 5 * 60_000;

/**
 * Real time shifted by a skew, with real timers; warp() moves the skew and re-arms every timer for its
 * target in the new time, so the bench reaches five boundaries in seconds.
 */
class WarpClock implements Clock {
  private skew = 0;
  private timers = new Map<number, { at: number; fn: () => void; handle: NodeJS.Timeout }>();
  private seq = 0;
  now(): number {
    return Date.now() + this.skew;
  }
  setTimer(fn: () => void, ms: number): () => void {
    const id = ++this.seq;
    const at = this.now() + Math.max(0, ms);
    this.timers.set(id, { at, fn, handle: this.arm(id, at, fn) });
    return () => {
      clearTimeout(this.timers.get(id)?.handle);
      this.timers.delete(id);
    };
  }
  warpTo(virtual: number) {
    this.skew = virtual - Date.now();
    for (const [id, t] of this.timers) {
      clearTimeout(t.handle);
      t.handle = this.arm(id, t.at, t.fn);
    }
  }
  private arm(id: number, at: number, fn: () => void) {
    return setTimeout(() => {
      this.timers.delete(id);
      fn();
    }, Math.max(0, at - this.now()));
  }
}

async function drift(dataDir: string): Promise<{ rows: (string | number)[][]; p99s: number[] }> {
  const db = openDb(dataDir);
  const clock = new WarpClock();
  const firstBoundary = Math.ceil((Date.now() + 60_000) / FIVE_MIN) * FIVE_MIN;
  // Created 4 minutes before the first boundary: it is their first run, and nothing is missed at start.
  clock.warpTo(firstBoundary - 4 * 60_000);
  let boundary = firstBoundary;
  let started: number[] = [];
  let done!: () => void;
  let allStarted = new Promise<void>((r) => (done = r));
  const env = { cfg: { quotas: { monitors: MONITORS } }, webhooks: { emit: async () => undefined }, users: { isActive: () => true }, log: pino({ level: 'silent' }) } as unknown as Platform;
  const service = new MonitorService(db, () => env, {
    clock,
    capture: async () => {
      started.push(clock.now() - boundary);
      if (started.length === MONITORS) done();
      return { kind: 'text', text: `round ${boundary}` };
    },
  });
  service.start();
  await Promise.all(
    Array.from({ length: MONITORS }, (_, i) => service.create(`user${i % USERS}`, { url: 'https://example.com/', cron: '*/5 * * * *', timezone: 'UTC', compare: 'text', threshold: 0.01, ignore: [] })),
  );
  const rows: (string | number)[][] = [];
  const p99s: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    clock.warpTo(boundary - 1000);
    await allStarted;
    await service.settled();
    const s = started;
    rows.push([round, s.length, `${median(s).toFixed(1)} ms`, `${quantile(s, 0.99).toFixed(1)} ms`, `${Math.max(...s).toFixed(1)} ms`]);
    p99s.push(quantile(s, 0.99));
    started = [];
    allStarted = new Promise<void>((r) => (done = r));
    boundary += FIVE_MIN;
  }
  await service.stop();
  await db.close();
  return { rows, p99s };
}

function child(args: string[]): { before: { rss: number; heap: number }; after: { rss: number; heap: number } } {
  const script = fileURLToPath(new URL('./monitors-rss-child.ts', import.meta.url));
  const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', script, ...args], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!);
}

const mb = (b: number) => `${(b / 1048576).toFixed(1)} MB`;

export async function run(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'browserd-bench-monitors-'));
  try {
    const { rows, p99s } = await drift(dataDir);
    printTable(`Monitors: start drift, ${MONITORS} monitors due at one 5-minute boundary (instant capture, ${ROUNDS} boundaries)`, ['boundary', 'checks', 'p50', 'p99', 'max'], rows, [
      `p99 first ${p99s[0].toFixed(1)} ms, last ${p99s[p99s.length - 1].toFixed(1)} ms (target: p99 <= 1000 ms, not growing)`,
    ]);
    const memRows: (string | number)[][] = [];
    const croner = child(['croner', String(MONITORS)]);
    const ours = child(['monitors', dataDir]);
    const distinctDir = mkdtempSync(join(tmpdir(), 'browserd-bench-monitors-'));
    let distinct;
    try {
      distinct = child(['distinct', distinctDir]);
    } finally {
      rmSync(distinctDir, { recursive: true, force: true });
    }
    for (const [name, m] of [[`${MONITORS} bare croner jobs`, croner], [`monitor service, ${MONITORS} monitors (one schedule)`, ours], [`monitor service, ${MONITORS} distinct schedules`, distinct]] as const) {
      memRows.push([name, mb(m.after.rss), mb(m.after.rss - m.before.rss), mb(m.after.heap - m.before.heap)]);
    }
    printTable('Monitors: idle memory (child processes, same modules loaded in both)', ['holder', 'RSS', 'RSS added', 'heap added'], memRows, [
      `RSS ours / croner: ${(ours.after.rss / croner.after.rss).toFixed(2)}x with one shared schedule, ${(distinct.after.rss / croner.after.rss).toFixed(2)}x with 1,000 distinct ones (target <= 1.5x)`,
    ]);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
