/**
 * browser_crawl and browser_crawl_status against a real daemon and the loopback crawl site, whose link graph is
 * known (test/fixtures/crawl-site.ts): depth, same-domain (www counted, other hosts not), allow/deny, robots.txt
 * (blocked items, Crawl-delay spacing seen in the site's own request times), 429 back-off, pause/resume/cancel,
 * maxPages, sitemaps, modes (http, auto, browser on the user's profile in read mode), output options, and
 * another user's crawl out of reach.
 */
import t from 'tap';
import { call, startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { startCrawlSite, type CrawlSite } from '../fixtures/crawl-site.js';
import type { CrawlItem, CrawlRunInfo } from '../../daemon/crawl/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

let d: TestDaemon;
let site: CrawlSite;
let alice: string;
let bob: string;
let client: Client;

t.before(async () => {
  site = await startCrawlSite({ bulk: 40, slowMs: 0 });
  d = await startTestDaemon();
  alice = await d.addUser('alice');
  bob = await d.addUser('bob');
  client = await d.mcp(alice);
});
t.teardown(async () => {
  await d.stop();
  await site.close();
});

async function crawl(args: Record<string, unknown>, token = alice): Promise<string> {
  const r = await d.rest(token, 'POST', '/v1/tools/browser_crawl', { delayMs: 0, mode: 'http', ...args });
  if (r.status !== 200) throw new Error(JSON.stringify(r.json));
  return r.json.id as string;
}

/** Waits on the service's own change events (no polling) until the run stops running. */
async function finished(id: string, user = 'alice'): Promise<CrawlRunInfo> {
  const info = await d.daemon.features.crawls.waitWhileRunning(user, id, 120_000);
  t.not(info.state, 'running', `${id} stopped running`);
  return info;
}

const items = (id: string, user = 'alice'): CrawlItem[] => [...d.daemon.features.crawls.iterateItems(user, id)];
const pathsOf = (list: CrawlItem[], status?: string) => list.filter((i) => !status || i.status === status).map((i) => { const u = new URL(i.url); return `${u.hostname === 'site.test' ? '' : u.hostname}${u.pathname}`; }).sort();

t.test('depth, same domain with www, robots.txt and hidden links', async (t) => {
  const before = site.requests.length;
  const id = await crawl({ startUrls: [`${site.base}/`], maxDepth: 1 });
  const run = await finished(id);
  t.equal(run.state, 'finished');
  const list = items(id);
  t.same(pathsOf(list, 'done'), ['/', '/about', '/app', '/blog/', '/login', '/products', '/search', 'www.site.test/about'].sort(), 'the start page and its visible same-site links, www counted as the same site');
  t.same(pathsOf(list, 'blocked'), ['/private/secret'], 'robots.txt disallows /private/');
  t.same(run.counters, { queued: 0, done: 8, failed: 0, blocked: 1 });
  const reached = site.requests.slice(before).map((r) => `${String(r.headers.host).split(':')[0]}${r.path}`);
  t.notOk(reached.some((p) => p.endsWith('/private/secret')), 'a blocked page is never fetched');
  t.notOk(reached.some((p) => p.endsWith('/hidden-trap')), 'a link only hidden text carries is not followed');
  t.notOk(reached.some((p) => p.startsWith('other.test')), 'another host is not visited');
  t.notOk(reached.some((p) => p.includes('/blog/post-')), 'nothing deeper than maxDepth');
  const blog = list.find((i) => i.url.endsWith('/blog/'))!;
  t.match(blog.content, /Post 1/, 'items hold the page as Markdown');
  t.equal(blog.depth, 1);
  t.equal(blog.via, 'http');
});

t.test('sameDomain false follows other hosts', async (t) => {
  const id = await crawl({ startUrls: [`${site.base}/`], maxDepth: 1, sameDomain: false });
  await finished(id);
  t.ok(pathsOf(items(id), 'done').includes('other.test/elsewhere'));
});

t.test('allow and deny: deny wins, start URLs are always crawled', async (t) => {
  const id = await crawl({ startUrls: [`${site.base}/`], maxDepth: 2, allow: ['/blog/*'], deny: ['*post-2'] });
  await finished(id);
  t.same(pathsOf(items(id), 'done'), ['/', '/blog/', '/blog/page-2', '/blog/post-1', '/blog/post-3', '/blog/post-4', '/blog/post-5'].sort());
  const whole = await crawl({ startUrls: [`${site.base}/about`], maxDepth: 1, deny: ['/about', `${site.base}/team`] });
  await finished(whole);
  t.same(pathsOf(items(whole)), ['/about'], 'a denied start URL is still read; a whole-URL pattern denies /team');
});

t.test('a sitemap index with a gzipped child gives the pages at depth 0', async (t) => {
  const id = await crawl({ sitemap: `${site.base}/sitemap.xml`, maxDepth: 0 });
  await finished(id);
  const list = items(id);
  t.same(pathsOf(list), ['/', '/about', '/team', ...Array.from({ length: 8 }, (_, i) => `/blog/post-${i + 1}`)].sort());
  t.ok(list.every((i) => i.depth === 0));
});

t.test('maxPages counts done and failed pages and ends the run', async (t) => {
  const id = await crawl({ startUrls: [`${site.base}/bulk/1`], maxPages: 5, maxDepth: 20, concurrency: 3 });
  const run = await finished(id);
  t.equal(run.state, 'finished');
  t.equal(run.counters.done + run.counters.failed, 5);
  t.match(run.note, /maxPages/);
});

t.test('robots.txt Crawl-delay spaces requests to the host', async (t) => {
  const slowSite = await startCrawlSite({ crawlDelayS: 1 });
  t.teardown(() => slowSite.close());
  const base = `http://site.test:${slowSite.port}`;
  const id = await crawl({ startUrls: [`${base}/blog/`], maxDepth: 1, maxPages: 4, concurrency: 4 });
  await finished(id);
  const times = slowSite.requests.filter((r) => r.path !== '/robots.txt').map((r) => r.at);
  t.equal(times.length, 4);
  for (let i = 1; i < times.length; i++) t.ok(times[i]! - times[i - 1]! >= 950, `request ${i + 1} came ${times[i]! - times[i - 1]!} ms after the one before`);
});

t.test('a 429 with Retry-After backs off, then the page is read', async (t) => {
  const limited = await startCrawlSite({ limitedFor: 1, retryAfterS: 1 });
  t.teardown(() => limited.close());
  const id = await crawl({ startUrls: [`http://site.test:${limited.port}/limited`] });
  await finished(id);
  const [item] = items(id);
  t.equal(item!.status, 'done');
  t.match(item!.content, /Now you may/);
  const times = limited.requests.filter((r) => r.path === '/limited').map((r) => r.at);
  t.equal(times.length, 2);
  t.ok(times[1]! - times[0]! >= 950, `the second try waited for Retry-After (${times[1]! - times[0]!} ms)`);
});

t.test('pause lets the page in flight finish and starts no other; resume goes on; cancel keeps items', async (t) => {
  const release = site.holdSlow();
  const id = await crawl({ startUrls: [`${site.base}/slow`, `${site.base}/blog/`], maxDepth: 1, concurrency: 1 });
  await site.waitFor((r) => r.path === '/slow');
  const paused = await call(client, 'browser_crawl_status', { id, action: 'pause' });
  t.notOk(paused.isError, paused.text);
  t.match(paused.text, /paused/);
  release();
  // The page in flight finishes while paused: its item arrives, and then nothing else is asked for.
  const afterSlow = await d.daemon.features.crawls.waitFor('alice', id, (r) => r.counters.done >= 1, 10_000);
  t.equal(afterSlow.counters.done, 1, 'the in-flight page finished');
  const seen = site.requests.length;
  // Silence is the assertion here, so this one wait is on time: 400 ms in which a running crawl (delay 0) would
  // have asked for several pages.
  await new Promise((r) => setTimeout(r, 400));
  t.equal(site.requests.length, seen, 'a paused crawl sends nothing');
  t.equal(d.daemon.features.crawls.get('alice', id)!.state, 'paused');
  const wrong = await call(client, 'browser_crawl_status', { id, action: 'pause' });
  t.ok(wrong.isError);
  t.match(wrong.text, /paused, so it cannot pause/);
  const resumed = await call(client, 'browser_crawl_status', { id, action: 'resume' });
  t.notOk(resumed.isError, resumed.text);
  const done = await finished(id);
  t.equal(done.state, 'finished');
  t.ok(pathsOf(items(id)).includes('/blog/post-5'), 'resumed from the stored queue');

  const before = site.requests.length;
  const bulk = await crawl({ startUrls: [`${site.base}/bulk/1`], maxDepth: 20, delayMs: 300, concurrency: 1 });
  // This crawl's own request for /bulk/2, by which time it has stored /bulk/1: an earlier test asked for
  // /bulk/2 too, and waiting on that request cancelled this crawl before it had read anything.
  await site.waitFor((r) => r.path === '/bulk/2' && site.requests.indexOf(r) >= before);
  const cancelled = await call(client, 'browser_crawl_status', { id: bulk, action: 'cancel' });
  t.match(cancelled.text, /cancelled/);
  const end = await finished(bulk);
  t.equal(end.state, 'cancelled');
  t.equal(end.counters.queued, 0);
  t.ok(items(bulk).length >= 1, 'the items read before the cancel are kept');
  const again = await call(client, 'browser_crawl_status', { id: bulk, action: 'resume' });
  t.ok(again.isError, 'a cancelled crawl ends for good');
});

t.test('auto reads in http and goes to the browser for a page that needs scripts; browser mode reads in a read tab', async (t) => {
  const http = await crawl({ startUrls: [`${site.base}/app`], mode: 'http' });
  await finished(http);
  t.notMatch(items(http)[0]!.content ?? '', /Rendered by script/, 'http alone does not run the script');
  const auto = await crawl({ startUrls: [`${site.base}/app`, `${site.base}/about`], mode: 'auto', maxDepth: 0 });
  await finished(auto);
  const [app, about] = [items(auto).find((i) => i.url.endsWith('/app'))!, items(auto).find((i) => i.url.endsWith('/about'))!];
  t.equal(app.via, 'browser');
  t.match(app.content, /Rendered by script/);
  t.equal(about.via, 'http', 'a plain page stays on http');
  const writesBefore = site.writes().length;
  const browser = await crawl({ startUrls: [`${site.base}/login`, `${site.base}/blog/`], mode: 'browser', maxDepth: 1, maxPages: 5 });
  const run = await finished(browser);
  t.equal(run.counters.done, 5);
  t.ok(items(browser).every((i) => i.via === 'browser'));
  t.equal(site.writes().length, writesBefore, 'read tabs sent no write');
  t.same((await call(client, 'browser_tabs')).text.match(/scratch/g), null, 'the crawl\'s tabs are gone and were never listed');
});

t.test('output options: format json, fields with a schema, chunks, query passages', async (t) => {
  const id = await crawl({
    startUrls: [`${site.base}/blog/post-2`],
    maxDepth: 0,
    format: 'json',
    fields: { heading: 'h1', parts: { css: 'h2', all: true }, back: { css: 'a', attr: 'href' } },
    outputSchema: { type: 'object', required: ['price'], properties: { price: { type: 'string' } } },
  });
  await finished(id);
  const [item] = items(id);
  t.equal(item!.content, undefined, 'format json has no content');
  t.same(item!.metadata!.headings.map((h) => h.text).slice(0, 2), ['Post 2', 'Part 1 of post 2']);
  t.same(item!.fields, { heading: 'Post 2', parts: ['Part 1 of post 2', 'Part 2 of post 2', 'Part 3 of post 2'], back: `${site.base}/blog/` });
  t.match(item!.schemaErrors![0], /price/);

  const chunked = await crawl({ startUrls: [`${site.base}/blog/post-4`], maxDepth: 0, chunk: { by: 'headings', size: 50 } });
  await finished(chunked);
  const c = items(chunked)[0]!;
  t.ok(c.chunks!.length >= 3);
  for (const ch of c.chunks!) t.equal(c.content!.slice(ch.start, ch.end), ch.text, 'a chunk cites its place in the content');
  t.ok(c.chunks!.some((ch) => ch.headingPath.includes('Part 2 of post 4')));

  const asked = await crawl({ startUrls: [`${site.base}/blog/`], maxDepth: 1, query: 'repairing bicycles', topK: 1 });
  await finished(asked);
  const withPassages = items(asked).filter((i) => i.passages?.length);
  t.ok(withPassages.length >= 2);
  t.ok(withPassages.every((i) => /bicycles/.test(i.passages![0]!.text)), 'passages match the query');

  const bad = await d.rest(alice, 'POST', '/v1/tools/browser_crawl', { startUrls: [`${site.base}/`], fields: { x: 'a[' } });
  t.equal(bad.json.error.code, 'validation_error', 'a bad selector is refused before anything starts');
});

t.test('browser_crawl_status answers fenced items cut at 2,000 characters, pages on with a cursor, and only to the owner', async (t) => {
  const id = await crawl({ startUrls: [`${site.base}/bulk/1`], maxDepth: 2, maxChars: 5000 });
  await finished(id);
  const first = await call(client, 'browser_crawl_status', { id, items: 3, timeoutS: 5 });
  t.notOk(first.isError, first.text);
  t.match(first.text, /finished: 7 done/);
  const cursor = /"cursor": "([^"]+)"/.exec(first.text)?.[1];
  t.ok(cursor, 'a More line with a cursor');
  t.match(first.text, /```|<page|untrusted/i, 'items are fenced page text');
  const next = await call(client, 'browser_crawl_status', { id, items: 10, cursor });
  t.equal((next.text.match(/^\d+\. done/gm) ?? []).length, 4, 'the rest of the 7 items');
  const viaRest = await d.rest(alice, 'POST', '/v1/tools/browser_crawl_status', { id, items: 50 });
  t.equal(viaRest.json.items.length, 7);
  t.ok(viaRest.json.items.every((i: CrawlItem) => (i.content ?? '').length <= 2000), 'cut at 2,000 characters in the tool answer');
  site.route('/long', `<!doctype html><title>Long</title><h1>Long</h1>${'<p>A paragraph of a long page, repeated so it passes two thousand characters.</p>'.repeat(60)}`);
  const long = await crawl({ startUrls: [`${site.base}/long`], maxDepth: 0 });
  await finished(long);
  t.ok(items(long)[0]!.content!.length > 2000, 'the stored item is whole');
  const shown = await d.rest(alice, 'POST', '/v1/tools/browser_crawl_status', { id: long });
  t.equal(shown.json.items[0].content.length, 2000, 'the answer cuts it at 2,000 characters');
  const text = (await call(client, 'browser_crawl_status', { id: long })).text;
  t.match(text, /more characters: GET \/v1\/crawls/, 'and says where the rest is');

  const forged = await call(client, 'browser_crawl_status', { id, cursor: 'zz.AAAAAAAAAAAAAAAAAAAAAA' });
  t.ok(forged.isError);
  t.match(forged.text, /validation_error/);
  const bobClient = await d.mcp(bob);
  const stolen = await call(bobClient, 'browser_crawl_status', { id });
  t.ok(stolen.isError);
  t.match(stolen.text, /not_found/);
  t.equal((await d.rest(bob, 'GET', `/v1/crawls/${id}/items`)).status, 404);
  await bobClient.close();
});
