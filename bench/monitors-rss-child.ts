/**
 * Child process of bench/monitors.ts: holds 1,000 schedules one way and prints its memory as a JSON line.
 *   croner <n>:          n bare croner jobs ("*\/5 * * * *", each with its own timer), nothing else.
 *   monitors <dataDir>:  the monitor service over the data dir the parent filled (1,000 monitors), started.
 *   distinct <dataDir>:  the same with 1,000 monitors of 1,000 different daily schedules, written here first
 *                        (so no two share a croner rule: the service's worst case).
 * Both load the same modules first (croner, lmdb, the monitor service) so the process base is the same; the
 * RSS is read idle after two GCs, with `before` taken the same way right before the schedules were made.
 */
import { Cron } from 'croner';
import { openDb } from '../storage/db.js';
import { MonitorStore } from '../storage/monitors.js';
import { MonitorService } from '../daemon/monitors/service.js';
import type { Platform } from '../daemon/platform.js';

const [mode, arg] = process.argv.slice(2);
const gc = (globalThis as { gc?: () => void }).gc;
const settle = async () => {
  for (let i = 0; i < 2; i++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 200));
  }
};
const mem = () => ({ rss: process.memoryUsage().rss, heap: process.memoryUsage().heapUsed });

const keep: unknown[] = [];
if (mode === 'distinct') {
  const db = openDb(arg);
  const store = new MonitorStore(db);
  const at = new Date().toISOString();
  await Promise.all(
    Array.from({ length: 1000 }, (_, i) =>
      store.create({ id: `mon_${i.toString(16).padStart(16, '0')}`, user: `user${i % 10}`, url: 'https://example.com/', cron: `${i % 60} ${Math.floor(i / 60)} * * *`, timezone: 'UTC', compare: 'text', threshold: 0.01, ignore: [], createdAt: at, scheduledFrom: at, checkCount: 0, nextSeq: 1 }),
    ),
  );
  await db.close();
}
await settle();
const before = mem();
if (mode === 'croner') {
  for (let i = 0; i < Number(arg); i++) keep.push(new Cron('*/5 * * * *', () => undefined));
} else if (mode === 'monitors' || mode === 'distinct') {
  const db = openDb(arg);
  const service = new MonitorService(db, () => ({}) as Platform, { capture: async () => ({ kind: 'text', text: '' }) });
  service.start();
  keep.push(db, service);
} else {
  console.error('usage: monitors-rss-child.ts croner <n> | monitors <dataDir> | distinct <emptyDataDir>');
  process.exit(2);
}
await settle();
const after = mem();
console.log(JSON.stringify({ mode, before, after }));
process.exit(0);
