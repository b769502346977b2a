/**
 * The storage quota (--max-storage-mb-per-user 1) counts what a user keeps inside the store, not only files:
 * a crawl whose next page would pass it pauses with a note naming the flag and stores nothing of that page;
 * GET /v1/me shows the bytes by where they are, the store's rows included; deleting the crawl gives them back;
 * at the quota a new crawl, monitor or task is refused with the storage quota's error, and nothing of it is
 * stored; a task whose conversation would pass it fails with that error. No browser: the crawl reads over HTTP.
 */
import t from 'tap';
import { startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { startSite, html, type FixtureSite } from '../fixtures/site.js';
import { startFakeModels, type FakeModels } from '../fixtures/fake-models.js';
import { loadConfig } from '../../daemon/config.js';

const MB = 1024 * 1024;
const PAGES = 10;
let d: TestDaemon;
let site: FixtureSite;
let fake: FakeModels;
let alice: string;

t.before(async () => {
  site = await startSite();
  // Ten pages of about 180 KB of text each: together far past 1 MB.
  for (let i = 0; i < PAGES; i++) site.route(`/p${i}`, html(`<h1>Page ${i}</h1><p>${`page ${i} words `.repeat(12_000)}</p>`));
  fake = await startFakeModels();
  fake.delayMs = 600_000;
  fake.fallback = () => ({ text: 'done' });
  d = await startTestDaemon({ quotas: loadConfig({ listen: '127.0.0.1:0', 'max-storage-mb-per-user': '1' }).quotas, models: fake.config });
  alice = await d.addUser('alice');
});
t.teardown(async () => {
  await d.stop();
  await fake.close();
  await site.close();
});

const me = async () => (await d.rest(alice, 'GET', '/v1/me')).json;

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string): Promise<T> {
  const end = Date.now() + 60_000;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`not reached: ${what}: ${JSON.stringify(v).slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let crawlId = '';

t.test('a crawl whose next page would pass the quota pauses, naming the flag; the store stays within it', async (t) => {
  const startUrls = Array.from({ length: PAGES }, (_, i) => `${site.url}/p${i}`);
  const r = await d.rest(alice, 'POST', '/v1/crawls', { startUrls, mode: 'http', delayMs: 0, maxDepth: 0, maxPages: PAGES, concurrency: 1, maxChars: 200_000, obeyRobots: false });
  t.equal(r.status, 201, JSON.stringify(r.json).slice(0, 300));
  crawlId = r.json.id;
  const run = await until(() => d.rest(alice, 'GET', `/v1/crawls/${crawlId}`).then((x) => x.json), (j) => j.state !== 'running', 'the crawl leaves running');
  t.equal(run.state, 'paused', 'paused, not finished');
  t.match(run.note, '--max-storage-mb-per-user', 'the note names the flag');
  t.ok(run.counters.done >= 1 && run.counters.done < PAGES, `some pages stored (${run.counters.done})`);
  t.equal(run.counters.queued, PAGES - run.counters.done, 'the page refused is still queued');
  const items = (await d.rest(alice, 'GET', `/v1/crawls/${crawlId}/items?limit=100`)).json.items;
  t.equal(items.length, run.counters.done, 'an item for each page counted, none for the refused one');

  const u = await me();
  t.ok(u.usage.storage.crawls > 500 * 1024, `GET /v1/me counts the crawl's rows (${u.usage.storage.crawls})`);
  t.equal(u.usage.storageBytes, Object.values(u.usage.storage as Record<string, number>).reduce((a, b) => a + b, 0), 'storageBytes is every place together');
  t.ok(u.usage.storageBytes <= MB, `within the quota (${u.usage.storageBytes})`);
});

t.test('at the quota a new crawl, monitor or task is refused with the storage quota error; nothing is stored', async (t) => {
  // Fill what is left with a file of the exact size.
  const room = MB - (await me()).usage.storageBytes;
  const fill = await d.rest(alice, 'POST', '/v1/tools/browser_convert', { base64: Buffer.from('f'.repeat(room)).toString('base64'), name: 'fill.txt', store: true, maxChars: 100 });
  t.equal(fill.status, 200, JSON.stringify(fill.json).slice(0, 300));
  const refused = (r: { status: number; json: any }, what: string) => {
    t.equal(r.status, 403, `${what}: ${JSON.stringify(r.json).slice(0, 300)}`);
    t.equal(r.json.error?.code, 'refused');
    t.match(r.json.error?.message, '--max-storage-mb-per-user');
    t.match(r.json.error?.details, { quota: 'storageBytes', flag: '--max-storage-mb-per-user' });
  };
  const crawls = (await d.rest(alice, 'GET', '/v1/crawls')).json.crawls.length;
  refused(await d.rest(alice, 'POST', '/v1/crawls', { startUrls: [`${site.url}/p0`], mode: 'http', obeyRobots: false }), 'crawl');
  t.equal((await d.rest(alice, 'GET', '/v1/crawls')).json.crawls.length, crawls, 'no crawl stored');
  refused(await d.rest(alice, 'POST', '/v1/tools/browser_monitor', { action: 'create', url: `${site.url}/p0`, cron: '@daily' }), 'monitor');
  t.equal((await d.rest(alice, 'POST', '/v1/tools/browser_monitor', { action: 'list' })).json.monitors.length, 0, 'no monitor stored');
  refused(await d.rest(alice, 'POST', '/v1/tasks', { goal: 'over the quota' }), 'task');
  t.equal((await d.rest(alice, 'GET', '/v1/tasks')).json.tasks.length, 0, 'no task stored');
  t.equal((await me()).usage.storageBytes, MB, 'exactly at the quota, not past it');
});

t.test('deleting the crawl gives its bytes back; then a monitor can be made', async (t) => {
  t.equal((await d.rest(alice, 'DELETE', `/v1/crawls/${crawlId}`)).status, 200);
  const u = await me();
  t.equal(u.usage.storage.crawls, 0, 'the crawl weighs nothing once deleted');
  const m = await d.rest(alice, 'POST', '/v1/tools/browser_monitor', { action: 'create', url: `${site.url}/p0`, cron: '@daily' });
  t.equal(m.status, 200, JSON.stringify(m.json).slice(0, 300));
  t.ok((await me()).usage.storage.monitors > 0, 'the monitor counts');
});

t.test('a task whose conversation would pass the quota fails with the storage quota error', async (t) => {
  const used = (await me()).usage.storageBytes;
  // Room for the task's record (its 3,000-character goal) but not for its first step, which quotes the goal again.
  const fill = await d.rest(alice, 'POST', '/v1/tools/browser_convert', { base64: Buffer.from('g'.repeat(MB - used - 5000)).toString('base64'), name: 'fill2.txt', store: true, maxChars: 100 });
  t.equal(fill.status, 200, JSON.stringify(fill.json).slice(0, 300));
  const r = await d.rest(alice, 'POST', '/v1/tasks', { goal: `find ${'the answer '.repeat(299)}` });
  t.equal(r.status, 201, JSON.stringify(r.json).slice(0, 300));
  const id = r.json.task?.id ?? r.json.id;
  const done = await until(() => d.rest(alice, 'GET', `/v1/tasks/${id}`).then((x) => x.json.task ?? x.json), (v: any) => v.state !== 'queued' && v.state !== 'running', 'the task ends');
  t.equal(done.state, 'failed');
  t.equal(done.error?.code, 'refused');
  t.match(done.error?.message, '--max-storage-mb-per-user', 'the error names the flag');
  t.ok((await me()).usage.storageBytes <= MB, 'the store stays within the quota');
});
