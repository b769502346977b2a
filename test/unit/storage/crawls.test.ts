/**
 * The durable crawl store on a real LMDB: a finished page is one transaction (item, queue entry, counters,
 * new links), a reopened store is a consistent point of the run, keys and cursors belong to one user and run,
 * and a final state leaves nothing queued.
 */
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb, type Db } from '../../../storage/db.js';
import { CrawlStore, type CrawlRecord } from '../../../storage/crawls.js';
import { InvalidCursorError } from '../../../storage/audit.js';
import type { CrawlSpec } from '../../../protocol/crawl.js';

const dir = mkdtempSync(join(tmpdir(), 'browserd-crawls-'));
let db: Db = openDb(dir);
t.teardown(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

const spec = { startUrls: ['http://site.test/'], allow: [], deny: [], sameDomain: true, maxPages: 100, maxDepth: 3, concurrency: 2, delayMs: 0, mode: 'http', format: 'markdown', maxChars: 0, obeyRobots: true, includeHidden: false, cache: 'off', cacheName: 'default', formats: [], topK: 5 } as unknown as CrawlSpec;

let n = 0;
function record(user: string, createdAt = new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString()): CrawlRecord {
  n++;
  return { id: `crawl_${String(n).padStart(16, '0')}`, user, spec, state: 'running', counters: { queued: 0, done: 0, failed: 0, blocked: 0 }, createdAt, updatedAt: createdAt, nextQueueSeq: 1, nextItemSeq: 1 };
}
const done = (url: string) => ({ url, depth: 0, at: new Date().toISOString(), status: 'done' as const, content: `read ${url}` });

/** Closes and opens the database again: what a restarted daemon would find. */
async function reopen(): Promise<CrawlStore> {
  await db.close();
  db = openDb(dir);
  return new CrawlStore(db);
}

t.test('a run and its first pages are stored together and survive a reopen', async (t) => {
  let store = new CrawlStore(db);
  const rec = record('alice');
  await store.create(rec, [{ url: 'http://site.test/', depth: 0 }, { url: 'http://site.test/b', depth: 0 }, { url: 'http://site.test/', depth: 0 }]);
  store = await reopen();
  const got = store.get('alice', rec.id)!;
  t.equal(got.state, 'running');
  t.same(got.counters, { queued: 2, done: 0, failed: 0, blocked: 0 }, 'a start URL given twice is queued once');
  t.same(store.queueHead('alice', rec.id, 10, new Set()).map((e) => [e.seq, e.url, e.depth]), [[1, 'http://site.test/', 0], [2, 'http://site.test/b', 0]]);
  t.equal(store.get('bob', rec.id), undefined, "another user's key does not reach the run");
  t.same(store.queueHead('bob', rec.id, 10, new Set()), [], "nor its queue");
});

t.test('a finished page is one step: item, queue entry, counters and new links; seen links are not queued again', async (t) => {
  let store = new CrawlStore(db);
  const rec = record('alice');
  await store.create(rec, [{ url: 'http://site.test/', depth: 0 }]);
  const [first] = store.queueHead('alice', rec.id, 10, new Set());
  const r1 = await store.finishPage('alice', rec.id, first!, done(first!.url), [
    { url: 'http://site.test/a', depth: 1 },
    { url: 'http://site.test/b', depth: 1 },
    { url: 'http://site.test/', depth: 1 },
  ]);
  t.equal(r1!.item.seq, 1);
  t.same(r1!.rec.counters, { queued: 2, done: 1, failed: 0, blocked: 0 }, 'the page already read is not queued again');
  // /a is in flight when the daemon dies: it is skipped by the scheduler but still queued.
  const head = store.queueHead('alice', rec.id, 10, new Set());
  t.same(head.map((e) => e.url), ['http://site.test/a', 'http://site.test/b']);
  t.same(store.queueHead('alice', rec.id, 10, new Set([head[0]!.seq])).map((e) => e.url), ['http://site.test/b'], 'pages in flight are skipped');
  await store.finishPage('alice', rec.id, head[1]!, { ...done(head[1]!.url), status: 'failed', error: 'HTTP 500' }, [{ url: 'http://site.test/a', depth: 2 }, { url: 'http://site.test/c', depth: 2 }]);

  store = await reopen();
  const after = store.get('alice', rec.id)!;
  t.same(after.counters, { queued: 2, done: 1, failed: 1, blocked: 0 });
  t.same(store.queueHead('alice', rec.id, 10, new Set()).map((e) => e.url), ['http://site.test/a', 'http://site.test/c'], 'the page in flight at the "crash" is queued again, nothing else is lost or repeated');
  t.same([...store.iterItems('alice', rec.id)].map((i) => [i.seq, i.url, i.status]), [[1, 'http://site.test/', 'done'], [2, 'http://site.test/b', 'failed']]);
  t.same([...store.iterItems('alice', rec.id, { status: 'failed' })].map((i) => i.url), ['http://site.test/b']);
});

t.test('a final state drops the queue; a late page keeps its item but queues nothing, and a late retry does not come back', async (t) => {
  const store = new CrawlStore(db);
  const rec = record('alice');
  await store.create(rec, [{ url: 'http://site.test/1', depth: 0 }, { url: 'http://site.test/2', depth: 0 }]);
  const [inFlight, limited] = store.queueHead('alice', rec.id, 10, new Set());
  const cancelled = await store.setState('alice', rec.id, 'cancelled', 'cancelled by the caller');
  t.equal(cancelled!.state, 'cancelled');
  t.ok(cancelled!.finishedAt);
  t.equal(cancelled!.counters.queued, 0);
  t.same(store.queueHead('alice', rec.id, 10, new Set()), []);
  // Pages that were in flight when the run was cancelled finish afterwards.
  const late = await store.finishPage('alice', rec.id, inFlight!, done(inFlight!.url), [{ url: 'http://site.test/3', depth: 1 }]);
  t.equal(late!.rec.counters.done, 1, 'the page read is kept');
  t.equal(late!.rec.counters.queued, 0);
  await store.retryLater('alice', rec.id, { ...limited!, tries: 1 });
  t.same(store.queueHead('alice', rec.id, 10, new Set()), [], 'neither its links nor a page answered 429 are queued in a cancelled run');
});

t.test('a page put back after 429 keeps its place and counts its tries', async (t) => {
  const store = new CrawlStore(db);
  const rec = record('alice');
  await store.create(rec, [{ url: 'http://site.test/limited', depth: 0 }]);
  const [e] = store.queueHead('alice', rec.id, 10, new Set());
  await store.retryLater('alice', rec.id, { ...e!, tries: 1 });
  t.same(store.queueHead('alice', rec.id, 10, new Set()).map((x) => [x.seq, x.tries]), [[e!.seq, 1]]);
  t.equal(store.get('alice', rec.id)!.counters.queued, 1, 'still counted once');
});

t.test('runs newest first, per user; runsIn finds the ones to resume', async (t) => {
  const store = new CrawlStore(db);
  const older = record('carol', '2026-02-01T00:00:00.000Z');
  const newer = record('carol', '2026-02-02T00:00:00.000Z');
  await store.create(older, []);
  await store.create(newer, []);
  await store.setState('carol', older.id, 'paused');
  t.same(store.runs('carol').map((r) => r.id), [newer.id, older.id]);
  t.same(store.runs('caro').map((r) => r.id), [], 'a user id that is a prefix of another reaches none of its runs');
  t.ok(store.runsIn('running').some((r) => r.id === newer.id));
  t.notOk(store.runsIn('running').some((r) => r.id === older.id));
});

t.test('item cursors are signed for one user and one run', async (t) => {
  const store = new CrawlStore(db);
  const rec = record('dave');
  const other = record('dave');
  const urls = Array.from({ length: 5 }, (_, i) => ({ url: `http://site.test/p${i}`, depth: 0 }));
  await store.create(rec, urls);
  await store.create(other, []);
  for (const e of store.queueHead('dave', rec.id, 10, new Set())) await store.finishPage('dave', rec.id, e, done(e.url), []);
  const p1 = store.items('dave', rec.id, { limit: 2 });
  t.same(p1.items.map((i) => i.seq), [1, 2]);
  t.ok(p1.next);
  const p2 = store.items('dave', rec.id, { limit: 2, cursor: p1.next });
  t.same(p2.items.map((i) => i.seq), [3, 4]);
  const p3 = store.items('dave', rec.id, { limit: 2, cursor: p2.next });
  t.same(p3.items.map((i) => i.seq), [5]);
  t.equal(p3.next, undefined, 'the last page has no cursor');
  t.throws(() => store.items('erin', rec.id, { limit: 2, cursor: p1.next }), InvalidCursorError, "another user's cursor is refused");
  t.throws(() => store.items('dave', other.id, { limit: 2, cursor: p1.next }), InvalidCursorError, "another run's cursor is refused");
  const [seq, sig] = p1.next!.split('.');
  t.throws(() => store.items('dave', rec.id, { limit: 2, cursor: `${(parseInt(seq!, 36) + 1).toString(36)}.${sig}` }), InvalidCursorError, 'an edited cursor is refused');
  t.throws(() => store.items('dave', rec.id, { limit: 2, cursor: 'garbage' }), InvalidCursorError);
  t.same(store.items('erin', rec.id, { limit: 10 }).items, [], "another user's key reads no items");
});

t.test('delete removes the run, its queue, seen set and items', async (t) => {
  const store = new CrawlStore(db);
  const rec = record('frank');
  await store.create(rec, [{ url: 'http://site.test/', depth: 0 }, { url: 'http://site.test/x', depth: 0 }]);
  const [e] = store.queueHead('frank', rec.id, 1, new Set());
  await store.finishPage('frank', rec.id, e!, done(e!.url), []);
  await store.delete('frank', rec.id);
  t.equal(store.get('frank', rec.id), undefined);
  t.same(store.queueHead('frank', rec.id, 10, new Set()), []);
  t.same([...store.iterItems('frank', rec.id)], []);
  const prefix = `frank\u0000${rec.id}\u0000`;
  t.same([...db.crawlSeen.getKeys({ start: prefix, end: `frank\u0000${rec.id}\u0001` })], [], 'the seen set is gone too');
});
