/**
 * Listings of users with long names (storage/key-range.ts): lmdb-js writes a key of 64+ characters in another
 * form than a shorter one, and the two sort apart, so a range read by user prefix missed the rows whose keys
 * crossed that length (a 40-character name: a recording's steps, a crawl's pages and queue, a monitor's checks,
 * audit entries; a 64-character name, the longest protocol/ids.ts allows: everything). Every listing here must
 * show each user exactly their own rows, whatever the length of their name, and nothing of a user whose name
 * starts with theirs. Files live on disk, not in the store: listed too, as the same promise.
 */
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb, type Db } from '../../../storage/db.js';
import { RecordStore, type Recording, type Step } from '../../../storage/records.js';
import { MonitorStore, type MonitorRecord } from '../../../storage/monitors.js';
import { TaskStore, type TaskRecord } from '../../../storage/tasks.js';
import { CrawlStore, type CrawlRecord } from '../../../storage/crawls.js';
import { AuditStore } from '../../../storage/audit.js';
import { FileStore } from '../../../storage/files.js';
import { USER_NAME } from '../../../protocol/ids.js';

function fresh(t: { teardown(fn: () => unknown): void }): { db: Db; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'browserd-long-users-'));
  const db = openDb(dir);
  t.teardown(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });
  return { db, dir };
}

const now = () => new Date().toISOString();
const recording = (user: string, id: string): Recording => ({ id, user, state: 'stopped', tab: 't1', mode: 'act', startUrl: 'http://site.test/', cache: 'off', video: false, steps: 0, createdAt: now() });
const step = (seq: number): Step => ({ seq, tool: 'browser_click', args: { ref: 'e1' }, locators: {}, url: 'http://site.test/', at: now(), ms: 5, outcome: 'ok', screenshot: false });
const task = (user: string, id: string): TaskRecord => ({ id, user, goal: 'a goal', model: 'fake', maxSteps: 10, maxTokensTotal: 1000, state: 'succeeded', step: 0, messages: [], usage: { turns: 0, inputTokens: 0, outputTokens: 0 }, calls: [], createdAt: now(), updatedAt: now() });
const crawl = (user: string, id: string): CrawlRecord => ({ id, user, spec: { startUrls: ['http://site.test/'] } as never, state: 'running', counters: { queued: 0, done: 0, failed: 0, blocked: 0 }, createdAt: now(), updatedAt: now(), nextQueueSeq: 1, nextItemSeq: 1 });
const monitor = (user: string, id: string): MonitorRecord => ({ id, user, url: 'http://site.test/', cron: '@hourly', timezone: 'UTC', compare: 'text', threshold: 0.01, ignore: [], createdAt: now(), scheduledFrom: now(), checkCount: 0, nextSeq: 1 });

// Every length around the ones where a row's key crosses 64 characters, up to the longest name there is; the
// names nest ('a', 'aa', ...), so a range that reaches past its user shows up as a neighbour's rows.
const LENGTHS = [1, 20, 27, 28, 29, 34, 35, 36, 40, 41, 42, 43, 50, 62, 63, 64];
const nameOf = (n: number) => 'a'.repeat(n);

t.test('the longest user name is 64 characters', async (t) => {
  t.ok(USER_NAME.test(nameOf(64)));
  t.notOk(USER_NAME.test(nameOf(65)));
});

t.test('every listing shows each user all their own rows, whatever the length of their name', async (t) => {
  const { db, dir } = fresh(t);
  const records = new RecordStore(db);
  const tasks = new TaskStore(db);
  const crawls = new CrawlStore(db);
  const monitors = new MonitorStore(db);
  const audit = new AuditStore(db);
  const files = new FileStore(dir);
  const id16 = (p: string, n: number) => `${p}_${String(n).padStart(16, '0')}`;

  for (const n of LENGTHS) {
    const u = nameOf(n);
    await tasks.create(task(u, id16('task', n)));
    const rec = recording(u, id16('rec', n));
    await records.put(rec);
    for (const seq of [1, 2, 3]) {
      rec.steps = seq;
      await records.addStep(rec, step(seq));
    }
    await records.putReplay({ id: id16('rpl', n), user: u, recording: rec.id, cache: 'off', state: 'done', steps: [], createdAt: now() });
    const c = crawl(u, id16('crawl', n));
    await crawls.create(c, [0, 1, 2, 3].map((i) => ({ url: `http://site.test/${n}/${i}`, depth: 0 })));
    const head = crawls.queueHead(u, c.id, 10, new Set());
    t.equal(head.length, 4, `${n}: the crawl's queue shows its four pages`);
    for (const e of head.slice(0, 2)) await crawls.finishPage(u, c.id, e, { url: e.url, depth: 0, at: now(), status: 'done', content: 'x' } as never, []);
    await monitors.create(monitor(u, id16('mon', n)));
    for (let i = 0; i < 3; i++) await monitors.addCheck(u, id16('mon', n), { at: now(), status: 'ok', changed: i === 1 } as never);
    for (let i = 0; i < 3; i++) await audit.append({ at: now(), user: u, tool: 'browser_navigate', outcome: 'ok' } as never);
    files.write(u, 'note.txt', Buffer.from(`file of ${n}`));
  }

  for (const n of LENGTHS) {
    const u = nameOf(n);
    t.same(tasks.list(u).map((x) => x.id), [id16('task', n)], `${n}: tasks`);
    t.same(records.list(u).map((x) => x.id), [id16('rec', n)], `${n}: recordings`);
    t.same(records.steps(u, id16('rec', n)).map((s) => s.seq), [1, 2, 3], `${n}: a recording's steps, in order`);
    t.same(crawls.runs(u).map((x) => x.id), [id16('crawl', n)], `${n}: crawl runs`);
    const items = crawls.items(u, id16('crawl', n), { limit: 10 }).items;
    t.same(items.map((i) => i.seq), [1, 2], `${n}: a crawl's pages, in order`);
    t.same(crawls.queueHead(u, id16('crawl', n), 10, new Set()).map((e) => e.seq), [3, 4], `${n}: a crawl's queue, in order`);
    const firstPage = crawls.items(u, id16('crawl', n), { limit: 1 });
    t.same(firstPage.items.map((i) => i.seq), [1], `${n}: a page of one item`);
    t.same(crawls.items(u, id16('crawl', n), { limit: 10, cursor: firstPage.next }).items.map((i) => i.seq), [2], `${n}: the next page by its cursor`);
    t.same(monitors.list(u).map((x) => x.id), [id16('mon', n)], `${n}: monitors`);
    t.equal(monitors.count(u), 1, `${n}: monitor count`);
    t.same(monitors.checks(u, id16('mon', n), { limit: 10 }).map((c) => c.seq), [3, 2, 1], `${n}: a monitor's checks, newest first`);
    const page1 = audit.page(u, { limit: 2 });
    t.equal(page1.entries.length, 2, `${n}: audit, first page`);
    t.ok(page1.entries.every((e) => e.user === u), `${n}: audit shows only the user's own entries`);
    t.equal(audit.page(u, { limit: 2, cursor: page1.next }).entries.length, 1, `${n}: audit, the page after by its cursor`);
    t.same(files.list(u).map((f) => f.name), ['note.txt'], `${n}: files`);
  }

  // Deletes leave nothing behind of a long name's rows, and nothing of a neighbour's is touched.
  const u = nameOf(64);
  await records.delete(u, id16('rec', 64));
  await crawls.delete(u, id16('crawl', 64));
  t.same(records.steps(u, id16('rec', 64)), [], 'the deleted recording has no steps left');
  t.same(crawls.runs(u), [], 'the deleted crawl is gone');
  t.same(records.steps(nameOf(63), id16('rec', 63)).length, 3, "the neighbour's steps are still there");
});
