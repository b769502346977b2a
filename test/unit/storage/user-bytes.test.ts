/**
 * The per-user byte tally of the LMDB store (storage/user-bytes.ts), on a real store: every write of the
 * recordings, monitors, tasks and crawls stores moves the user's tally by exactly what their rows weigh (checked
 * against a count of the rows themselves), deletes give it back, a write the guard refuses leaves nothing of
 * itself (rows and tally as they were) while 'count' writes pass, two writes at once cannot both slip under the
 * limit, and a store written before the tally is counted at open.
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
import { BYTE_KINDS, TRACKED, type ByteKind } from '../../../storage/user-bytes.js';
import { BrowserdError } from '../../../protocol/errors.js';

function fresh(t: { teardown(fn: () => unknown): void }): { db: Db; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'browserd-user-bytes-'));
  const db = openDb(dir);
  t.teardown(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });
  return { db, dir };
}

/** The user's bytes by kind, counted from the rows themselves (key and stored value), not from the tally. */
function rowBytes(db: Db, user: string): Record<ByteKind, number> {
  const out = Object.fromEntries(BYTE_KINDS.map((k) => [k, 0])) as Record<ByteKind, number>;
  for (const tr of TRACKED) {
    const table = db.root.openDB<any, string>({ name: tr.name });
    for (const key of table.getKeys({})) {
      // A long key with NUL in it reads back as an array (storage/key-range.ts).
      const k = Array.isArray(key) ? key.join('\u0000') : String(key);
      if (tr.user(k) !== user) continue;
      out[tr.kind] += table.getBinary(key)!.length + Buffer.byteLength(k);
    }
  }
  return out;
}

const recording = (user: string, id: string): Recording => ({ id, user, state: 'recording', tab: 't1', mode: 'act', startUrl: 'http://site.test/', cache: 'off', video: false, steps: 0, createdAt: new Date().toISOString() });
const step = (seq: number): Step => ({ seq, tool: 'browser_click', args: { ref: 'e1' }, locators: {}, url: 'http://site.test/', at: new Date().toISOString(), ms: 5, outcome: 'ok', screenshot: true });
const monitor = (user: string, id: string): MonitorRecord => ({ id, user, url: 'http://site.test/', cron: '@hourly', timezone: 'UTC', compare: 'text', threshold: 0.01, ignore: [], createdAt: new Date().toISOString(), scheduledFrom: new Date().toISOString(), checkCount: 0, nextSeq: 1 });
const task = (user: string, id: string): TaskRecord => ({ id, user, goal: 'a goal', model: 'fake', maxSteps: 10, maxTokensTotal: 1000, state: 'queued', step: 0, messages: [], usage: { turns: 0, inputTokens: 0, outputTokens: 0 }, calls: [], createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() });
const crawl = (user: string, id: string): CrawlRecord => ({ id, user, spec: { startUrls: ['http://site.test/'] } as never, state: 'running', counters: { queued: 0, done: 0, failed: 0, blocked: 0 }, createdAt: new Date().toISOString(), updatedAt: new Date().toISOString(), nextQueueSeq: 1, nextItemSeq: 1 });

t.test('every write moves the tally by what the rows weigh; deletes give it back', async (t) => {
  const { db } = fresh(t);
  const records = new RecordStore(db);
  const monitors = new MonitorStore(db);
  const tasks = new TaskStore(db);
  const crawls = new CrawlStore(db);
  const same = (what: string) => {
    for (const u of ['alice', 'bob']) t.same(db.userBytes.byKind(u), rowBytes(db, u), `${what}: ${u}'s tally equals their rows`);
  };

  const rec = recording('alice', 'rec_1');
  await records.put(rec);
  for (let i = 1; i <= 3; i++) {
    rec.steps = i;
    await records.addStep(rec, step(i), Buffer.alloc(5000 * i, i));
  }
  await records.putReplay({ id: 'rpl_1', user: 'alice', recording: 'rec_1', cache: 'off', state: 'queued', steps: [], createdAt: new Date().toISOString() }, 'refuse');
  same('recordings');
  t.ok(db.userBytes.byKind('alice').records > 30_000, 'the JPEGs are counted');

  await monitors.create(monitor('alice', 'mon_1'));
  for (let i = 0; i < 3; i++) await monitors.addCheck('alice', 'mon_1', { at: new Date().toISOString(), changed: i > 0, status: 'ok', summary: `check ${i}`, trigger: 'run' }, { baseline: { kind: 'png', png: Buffer.alloc(8000 + i) } });
  await monitors.create(monitor('bob', 'mon_2'));
  same('monitors');

  await tasks.create(task('alice', 'task_1'));
  await tasks.update('alice', 'task_1', () => ({ state: 'running', messages: [{ role: 'user', content: 'x'.repeat(20_000) }] }));
  await tasks.update('alice', 'task_1', () => ({ state: 'failed', messages: [] }), 'count');
  same('tasks');

  const c = crawl('alice', 'crawl_0123456789abcdef');
  await crawls.create(c, [{ url: 'http://site.test/', depth: 0 }]);
  const [entry] = crawls.queueHead('alice', 'crawl_0123456789abcdef', 1, new Set());
  await crawls.finishPage('alice', 'crawl_0123456789abcdef', entry!, { url: 'http://site.test/', depth: 0, at: '', status: 'done', markdown: 'y'.repeat(30_000) } as never, [{ url: 'http://site.test/a', depth: 1 }, { url: 'http://site.test/b', depth: 1 }]);
  await crawls.setState('alice', 'crawl_0123456789abcdef', 'finished');
  same('crawls');
  t.ok(db.userBytes.used('alice') > 60_000);
  t.equal(db.userBytes.used('alice'), Object.values(rowBytes(db, 'alice')).reduce((a, b) => a + b, 0), 'used is every kind together');

  await records.delete('alice', 'rec_1');
  await monitors.delete('alice', 'mon_1');
  await crawls.delete('alice', 'crawl_0123456789abcdef');
  same('after deletes');
  const left = db.userBytes.byKind('alice');
  t.same({ monitors: left.monitors, crawls: left.crawls }, { monitors: 0, crawls: 0 }, 'deleted monitors and crawls weigh nothing');
  t.equal([...db.crawlSeen.getKeys({})].length, 0, "the crawl's seen set went with it (its keys are long)");
  t.ok(left.records > 0 && left.records < 1000, 'the replay record stays (replays are their own records)');
});

t.test('a refused write leaves nothing of itself; a counted write passes; another user is not refused', async (t) => {
  const { db } = fresh(t);
  const LIMIT = 50_000;
  const refusals: number[] = [];
  db.userBytes.guard = (user, adding) => {
    if (user !== 'alice') return;
    const used = db.userBytes.used(user);
    if (used + adding > LIMIT) {
      refusals.push(adding);
      throw new BrowserdError('refused', `over: ${used} + ${adding}`, { details: { quota: 'storageBytes' } });
    }
  };
  const records = new RecordStore(db);
  const crawls = new CrawlStore(db);
  const rec = recording('alice', 'rec_1');
  await records.put(rec);
  rec.steps = 1;
  await records.addStep(rec, step(1), Buffer.alloc(30_000));
  const before = db.userBytes.used('alice');
  rec.steps = 2;
  await t.rejects(records.addStep(rec, step(2), Buffer.alloc(30_000)), { code: 'refused', details: { quota: 'storageBytes' } });
  t.equal(refusals.length, 1);
  t.equal(db.userBytes.used('alice'), before, 'the tally is as it was');
  t.same(records.steps('alice', 'rec_1').map((s) => s.seq), [1], 'the refused step is not stored');
  t.notOk(records.screenshot('alice', 'rec_1', 2), 'nor its JPEG');
  t.equal(records.get('alice', 'rec_1')!.steps, 1, "nor the recording's new count");
  t.same(db.userBytes.byKind('alice'), rowBytes(db, 'alice'));

  // A crawl page past the limit: item, queue removal and counters all undone; the page stays queued.
  const c = crawl('alice', 'crawl_0123456789abcdef');
  await crawls.create(c, [{ url: 'http://site.test/', depth: 0 }]);
  const [entry] = crawls.queueHead('alice', 'crawl_0123456789abcdef', 1, new Set());
  await t.rejects(crawls.finishPage('alice', 'crawl_0123456789abcdef', entry!, { url: 'http://site.test/', depth: 0, at: '', status: 'done', markdown: 'z'.repeat(30_000) } as never, []), { code: 'refused' });
  t.same(crawls.items('alice', 'crawl_0123456789abcdef', { limit: 10 }).items, [], 'no item');
  t.equal(crawls.queueHead('alice', 'crawl_0123456789abcdef', 10, new Set()).length, 1, 'the page is still queued');
  t.match(crawls.get('alice', 'crawl_0123456789abcdef')!.counters, { queued: 1, done: 0 });

  // Bookkeeping is counted, never refused: the run can still be paused with a note.
  const paused = await crawls.setState('alice', 'crawl_0123456789abcdef', 'paused', 'n'.repeat(2000));
  t.equal(paused!.state, 'paused');
  t.same(db.userBytes.byKind('alice'), rowBytes(db, 'alice'), 'and the tally still equals the rows');

  // A task whose conversation would pass the limit: refused, the record as it was; its end is still recorded.
  const tasks = new TaskStore(db);
  await tasks.create(task('alice', 'task_1'));
  await t.rejects(tasks.update('alice', 'task_1', () => ({ state: 'running', messages: [{ role: 'user', content: 'm'.repeat(40_000) }] })), { code: 'refused' });
  t.match(tasks.get('alice', 'task_1'), { state: 'queued', messages: [] }, 'the task is as it was');
  t.match((await tasks.update('alice', 'task_1', () => ({ state: 'failed', error: { code: 'refused', message: 'over' } }), 'count'))!.rec, { state: 'failed' });

  const bobs = recording('bob', 'rec_2');
  await records.put(bobs);
  bobs.steps = 1;
  await records.addStep(bobs, step(1), Buffer.alloc(80_000));
  t.ok(db.userBytes.used('bob') > LIMIT, "bob's bytes are bob's");
});

t.test('two writes at once cannot both pass under the limit', async (t) => {
  const { db } = fresh(t);
  const LIMIT = 100_000;
  db.userBytes.guard = (user, adding) => {
    if (db.userBytes.used(user) + adding > LIMIT) throw new BrowserdError('refused', 'over', { details: { quota: 'storageBytes' } });
  };
  const records = new RecordStore(db);
  const recs = [recording('alice', 'rec_a'), recording('alice', 'rec_b')];
  for (const r of recs) await records.put(r);
  // Each fits alone (60 KB of 100 KB); both do not.
  const results = await Promise.allSettled(recs.map((r) => ((r.steps = 1), records.addStep(r, step(1), Buffer.alloc(60_000)))));
  t.same(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
  t.ok(db.userBytes.used('alice') <= LIMIT);
  t.same(db.userBytes.byKind('alice'), rowBytes(db, 'alice'));
});

t.test('a store written before the tally is counted when it opens', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'browserd-user-bytes-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
  let db = openDb(dir);
  const records = new RecordStore(db);
  const rec = recording('alice', 'rec_1');
  await records.put(rec);
  rec.steps = 1;
  await records.addStep(rec, step(1), Buffer.alloc(12_345));
  await new TaskStore(db).create(task('bob', 'task_1'));
  const want = { alice: rowBytes(db, 'alice'), bob: rowBytes(db, 'bob') };
  // As a store from before the tally: no tally rows, no version mark.
  const tally = db.root.openDB<number, string>({ name: 'userBytes' });
  await db.root.transaction(() => {
    for (const k of [...tally.getKeys({})]) tally.remove(k);
    db.meta.remove('userBytesVersion');
  });
  t.equal(db.userBytes.used('alice'), 0, 'no tally');
  await db.close();
  db = openDb(dir);
  t.teardown(() => db.close());
  t.same(db.userBytes.byKind('alice'), want.alice, "alice's rows counted at open");
  t.same(db.userBytes.byKind('bob'), want.bob, "bob's too");
});
