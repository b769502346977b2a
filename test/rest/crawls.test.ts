/**
 * Crawls over REST against a real daemon and the loopback crawl site: start, read, page items, steer, delete,
 * export in three formats that parse to the same items, every route closed to another user, bad input refused.
 */
import t from 'tap';
import { startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { startCrawlSite, type CrawlSite } from '../fixtures/crawl-site.js';
import { csvRecordOf, csvRecords } from '../fixtures/csv.js';
import type { CrawlItem } from '../../daemon/crawl/types.js';

const BULK = 2000;

let d: TestDaemon;
let site: CrawlSite;
let alice: string;
let bob: string;
t.before(async () => {
  site = await startCrawlSite({ bulk: BULK });
  d = await startTestDaemon();
  alice = await d.addUser('alice');
  bob = await d.addUser('bob');
});
t.teardown(async () => {
  await d.stop();
  await site.close();
});

/** A raw GET, for bodies that are not one JSON document. */
async function download(token: string, path: string) {
  const res = await fetch(`${d.url}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** Waits on the service's own signal (no polling, no sleep) until the run stops running. */
async function finished(token: string, id: string) {
  const user = token === alice ? 'alice' : 'bob';
  await d.daemon.features.crawls.waitWhileRunning(user, id, 120_000);
  return (await d.rest(token, 'GET', `/v1/crawls/${id}`)).json;
}

/** Every item through GET items, page by page with the cursor. */
async function allItems(token: string, id: string, query = '') {
  const items: CrawlItem[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const r = await d.rest(token, 'GET', `/v1/crawls/${id}/items?limit=500${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (r.status !== 200) throw new Error(`items page: ${r.status} ${JSON.stringify(r.json)}`);
    items.push(...r.json.items);
    cursor = r.json.cursor;
    pages++;
  } while (cursor && pages < 100);
  return items;
}

const blogCrawl = () => ({ startUrls: [`${site.base}/`], mode: 'http', delayMs: 0, maxDepth: 2, maxPages: 40, concurrency: 4, name: 'blog, "quoted", tree', fields: { heading: 'h1', links: { css: 'a', attr: 'href', all: true } } });

let blogId: string;

t.test('POST /v1/crawls starts a crawl through browser_crawl and answers 201 with its id, state and links', async (t) => {
  const r = await d.rest(alice, 'POST', '/v1/crawls', blogCrawl());
  t.equal(r.status, 201, JSON.stringify(r.json));
  t.match(r.json.id, /^crawl_[0-9a-f]{16}$/);
  t.ok(['running', 'finished'].includes(r.json.state));
  t.same(Object.keys(r.json.counters).sort(), ['blocked', 'done', 'failed', 'queued']);
  t.same(r.json.links, { self: `/v1/crawls/${r.json.id}`, items: `/v1/crawls/${r.json.id}/items`, export: `/v1/crawls/${r.json.id}/export?format=jsonl` });
  blogId = r.json.id;
  const run = await finished(alice, blogId);
  t.equal(run.state, 'finished');
  t.equal(run.name, 'blog, "quoted", tree');
  t.equal(run.spec.delayMs, 0, 'the spec is the one given');
  t.equal(run.spec.sameDomain, true, 'with defaults filled');
  t.ok(run.counters.done > 10, `pages read: ${run.counters.done}`);
  t.equal(run.counters.blocked, 1, '/private/ is blocked by robots.txt');
  const audit = (await d.rest(alice, 'GET', '/v1/audit?limit=20')).json.entries;
  t.ok(audit.some((e: any) => e.tool === 'browser_crawl' && e.via === 'rest' && e.outcome === 'ok'), 'audited as the tool, via rest');
});

t.test('POST /v1/crawls refuses bad parameters the way the tool does, and starts nothing', async (t) => {
  const before = (await d.rest(alice, 'GET', '/v1/crawls?limit=500')).json.crawls.length;
  for (const body of [{}, { startUrls: [] }, { startUrls: [`${site.base}/`], maxPages: 0 }, { startUrls: [`${site.base}/`], mode: 'teleport' }, { startUrls: [`${site.base}/`], bogus: 1 }]) {
    const r = await d.rest(alice, 'POST', '/v1/crawls', body);
    t.equal(r.status, 400, JSON.stringify(body));
    t.equal(r.json.error.code, 'validation_error');
    t.ok(r.json.error.next, 'with a next step');
  }
  // An address no page may open is `blocked`, whichever tool or route was asked (the one address check).
  const js = await d.rest(alice, 'POST', '/v1/crawls', { startUrls: ['javascript:alert(1)'] });
  t.equal(js.status, 403);
  t.equal(js.json.error.code, 'blocked');
  const r = await d.rest(alice, 'POST', '/v1/crawls', { startUrls: [`${site.base}/`], collect: { images: true, caption: true } });
  t.equal(r.json.error.code, 'not_configured');
  t.equal((await d.rest(alice, 'GET', '/v1/crawls?limit=500')).json.crawls.length, before, 'no run was made');
});

t.test('GET /v1/crawls lists the caller\'s runs newest first, paged with a signed cursor', async (t) => {
  const second = await d.rest(alice, 'POST', '/v1/crawls', { startUrls: [`${site.base}/about`], mode: 'http', delayMs: 0, maxDepth: 0, name: 'about only' });
  t.equal(second.status, 201);
  await finished(alice, second.json.id);
  const one = await d.rest(alice, 'GET', '/v1/crawls?limit=1');
  t.equal(one.status, 200);
  t.same(one.json.crawls.map((c: any) => c.id), [second.json.id], 'newest first');
  t.ok(one.json.cursor, 'a cursor for the next page');
  const two = await d.rest(alice, 'GET', `/v1/crawls?limit=1&cursor=${encodeURIComponent(one.json.cursor)}`);
  t.same(two.json.crawls.map((c: any) => c.id), [blogId]);
  const bobs = await d.rest(bob, 'GET', '/v1/crawls');
  t.same(bobs.json.crawls, [], 'bob sees none of alice\'s runs');
  const stolen = await d.rest(bob, 'GET', `/v1/crawls?limit=1&cursor=${encodeURIComponent(one.json.cursor)}`);
  t.equal(stolen.status, 400, 'alice\'s cursor is not bob\'s');
  t.equal(stolen.json.error.code, 'validation_error');
  t.notOk(JSON.stringify(stolen.json).includes(blogId), 'and shows nothing of alice\'s');
  for (const q of ['limit=0', 'limit=501', 'limit=abc', 'limit=1.5', 'cursor=garbage', 'cursor=']) {
    const r = await d.rest(alice, 'GET', `/v1/crawls?${q}`);
    t.equal(r.status, 400, q);
    t.equal(r.json.error.code, 'validation_error', q);
    t.ok(r.json.error.next, q);
  }
});

t.test('GET items pages through whole items with a cursor; status filters', async (t) => {
  const run = (await d.rest(alice, 'GET', `/v1/crawls/${blogId}`)).json;
  const first = await d.rest(alice, 'GET', `/v1/crawls/${blogId}/items?limit=3`);
  t.equal(first.status, 200);
  t.equal(first.json.items.length, 3);
  t.ok(first.json.cursor);
  const second = await d.rest(alice, 'GET', `/v1/crawls/${blogId}/items?limit=3&cursor=${encodeURIComponent(first.json.cursor)}`);
  t.same(second.json.items.map((i: CrawlItem) => i.seq), first.json.items.map((i: CrawlItem) => i.seq + 3), 'the next page follows on');
  const all = await allItems(alice, blogId);
  t.equal(all.length, run.counters.done + run.counters.failed + run.counters.blocked, 'every item once');
  t.same(all.map((i) => i.seq), all.map((_, n) => n + 1), 'in finishing order');
  const post = all.find((i) => i.url.endsWith('/blog/post-1'))!;
  t.ok(post, 'a post was read');
  t.match(post.content, /Part 3 of post 1/, 'whole content');
  t.equal(post.fields?.heading, 'Post 1', 'fields filled');
  const blocked = await allItems(alice, blogId, '&status=blocked');
  t.same(blocked.map((i) => new URL(i.url).pathname), ['/private/secret']);
  t.same(blocked.map((i) => i.status), ['blocked']);
  for (const q of ['status=bogus', 'limit=0', 'limit=501', 'limit=x', 'cursor=nope']) {
    const r = await d.rest(alice, 'GET', `/v1/crawls/${blogId}/items?${q}`);
    t.equal(r.status, 400, q);
    t.equal(r.json.error.code, 'validation_error', q);
    t.ok(r.json.error.next, q);
  }
});

t.test('exports in JSONL, CSV and JSON stream the same items as GET items', async (t) => {
  const items = await allItems(alice, blogId);
  const fieldNames = ['heading', 'links'];
  const jsonl = await download(alice, `/v1/crawls/${blogId}/export?format=jsonl`);
  t.equal(jsonl.status, 200);
  t.equal(jsonl.headers.get('content-type'), 'application/x-ndjson');
  t.equal(jsonl.headers.get('content-disposition'), `attachment; filename="${blogId}.jsonl"`);
  t.same(jsonl.text.trimEnd().split('\n').map((l) => JSON.parse(l)), items);
  const json = await download(alice, `/v1/crawls/${blogId}/export?format=json`);
  t.equal(json.headers.get('content-type'), 'application/json');
  t.equal(json.headers.get('content-disposition'), `attachment; filename="${blogId}.json"`);
  t.same(JSON.parse(json.text), items);
  const csv = await download(alice, `/v1/crawls/${blogId}/export?format=csv`);
  t.equal(csv.headers.get('content-type'), 'text/csv; charset=utf-8');
  t.equal(csv.headers.get('content-disposition'), `attachment; filename="${blogId}.csv"`);
  t.same(csvRecords(csv.text), items.map((i) => csvRecordOf(i, fieldNames)));
  const dflt = await download(alice, `/v1/crawls/${blogId}/export`);
  t.equal(dflt.text, jsonl.text, 'JSONL when no format is given');
  const blocked = await download(alice, `/v1/crawls/${blogId}/export?format=jsonl&status=blocked`);
  t.same(blocked.text.trimEnd().split('\n').map((l) => JSON.parse(l).status), ['blocked']);
  for (const q of ['format=xml', 'format=', 'status=bogus']) {
    const r = await d.rest(alice, 'GET', `/v1/crawls/${blogId}/export?${q}`);
    t.equal(r.status, 400, q);
    t.equal(r.json.error.code, 'validation_error', q);
    t.ok(r.json.error.next, q);
  }
});

t.test('pause, resume and cancel steer a run; cancel keeps its items; delete removes it', async (t) => {
  const release = site.holdSlow();
  const started = await d.rest(alice, 'POST', '/v1/crawls', { startUrls: [`${site.base}/slow`, `${site.base}/`], mode: 'http', delayMs: 0, concurrency: 1, maxDepth: 1, maxPages: 30 });
  t.equal(started.status, 201);
  const id = started.json.id;
  const paused = await d.rest(alice, 'POST', `/v1/crawls/${id}/pause`);
  t.equal(paused.status, 200, JSON.stringify(paused.json));
  t.equal(paused.json.state, 'paused');
  const resumed = await d.rest(alice, 'POST', `/v1/crawls/${id}/resume`);
  t.equal(resumed.json.state, 'running');
  const cancelled = await d.rest(alice, 'POST', `/v1/crawls/${id}/cancel`);
  t.equal(cancelled.json.state, 'cancelled');
  const late = await d.rest(alice, 'POST', `/v1/crawls/${id}/resume`);
  t.equal(late.status, 400, 'a cancelled run cannot be resumed');
  t.equal(late.json.error.code, 'validation_error');
  t.ok(late.json.error.next);
  release();
  const after = await finished(alice, id);
  t.equal(after.state, 'cancelled');
  const kept = await d.rest(alice, 'GET', `/v1/crawls/${id}/items`);
  t.equal(kept.status, 200, 'a cancelled run keeps its items');
  const del = await d.rest(alice, 'DELETE', `/v1/crawls/${id}`);
  t.equal(del.status, 200);
  t.same(del.json, { ok: true, id, deleted: true });
  t.equal((await d.rest(alice, 'GET', `/v1/crawls/${id}`)).status, 404, 'gone');
  t.equal((await d.rest(alice, 'GET', `/v1/crawls/${id}/items`)).status, 404, 'items gone with it');
  t.equal((await d.rest(alice, 'DELETE', `/v1/crawls/${id}`)).status, 404, 'a second delete finds nothing');
});

t.test('another user reaches none of alice\'s crawl on any route: not_found, never her data', async (t) => {
  const routes: [string, string][] = [
    ['GET', `/v1/crawls/${blogId}`],
    ['POST', `/v1/crawls/${blogId}/pause`],
    ['POST', `/v1/crawls/${blogId}/resume`],
    ['POST', `/v1/crawls/${blogId}/cancel`],
    ['GET', `/v1/crawls/${blogId}/items`],
    ['GET', `/v1/crawls/${blogId}/export?format=jsonl`],
    ['GET', `/v1/crawls/${blogId}/export?format=csv`],
    ['DELETE', `/v1/crawls/${blogId}`],
  ];
  const before = await download(alice, `/v1/crawls/${blogId}/export?format=jsonl`);
  for (const [method, path] of routes) {
    const r = await d.rest(bob, method, path);
    t.equal(r.status, 404, `${method} ${path}`);
    t.equal(r.json?.error?.code, 'not_found', `${method} ${path}`);
    t.notMatch(JSON.stringify(r.json), /Post 1|blog, /, 'nothing of alice\'s run');
  }
  const run = (await d.rest(alice, 'GET', `/v1/crawls/${blogId}`)).json;
  t.equal(run.state, 'finished', 'bob\'s actions changed nothing');
  t.equal((await download(alice, `/v1/crawls/${blogId}/export?format=jsonl`)).text, before.text, 'and deleted nothing');
  const unknown = await d.rest(alice, 'GET', '/v1/crawls/crawl_0123456789abcdef');
  t.equal(unknown.status, 404);
  t.equal(unknown.json.error.code, 'not_found');
  t.ok(unknown.json.error.next);
  for (const bad of ['nope', 'crawl_123', 'crawl_0123456789ABCDEF', 'crawl_0123456789abcdef0', '%E0%A4%A']) {
    for (const suffix of ['', '/items', '/export', '/pause']) {
      const r = await d.rest(alice, suffix === '/pause' ? 'POST' : 'GET', `/v1/crawls/${bad}${suffix}`);
      t.equal(r.status, 400, `${bad}${suffix}`);
      t.equal(r.json.error.code, 'validation_error');
      t.ok(r.json.error.next);
    }
  }
});

t.test(`a ${BULK}-page crawl exports streamed, and every format parses to all its items`, async (t) => {
  const r = await d.rest(alice, 'POST', '/v1/crawls', { startUrls: [`${site.base}/bulk/1`], allow: ['/bulk/*'], mode: 'http', delayMs: 0, concurrency: 8, maxDepth: 20, maxPages: BULK, obeyRobots: false });
  t.equal(r.status, 201, JSON.stringify(r.json));
  const run = await finished(alice, r.json.id);
  t.equal(run.counters.done, BULK, 'every bulk page read');
  const items = await allItems(alice, r.json.id);
  t.equal(items.length, BULK);
  const jsonl = await download(alice, `/v1/crawls/${r.json.id}/export?format=jsonl`);
  t.equal(jsonl.headers.get('transfer-encoding'), 'chunked', 'streamed, not sized up front');
  const lines = jsonl.text.trimEnd().split('\n');
  t.equal(lines.length, BULK);
  t.same(lines.map((l) => JSON.parse(l)), items);
  const json = JSON.parse((await download(alice, `/v1/crawls/${r.json.id}/export?format=json`)).text);
  t.same(json, items);
  const csv = csvRecords((await download(alice, `/v1/crawls/${r.json.id}/export?format=csv`)).text);
  t.same(csv, items.map((i) => csvRecordOf(i, [])));
  t.ok(jsonl.text.length > 1_000_000, `a sizeable export (${jsonl.text.length} bytes)`);
});
