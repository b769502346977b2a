/**
 * The response cache on crawls: record, then replay-strict with the site stopped gives the same items, over
 * http and in the browser; replay goes to the site for what is not stored, replay-strict fails it; what is
 * stored holds no cookie, no token and no vault value; caches are listed and deleted per user only.
 */
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { startCrawlSite, type CrawlSite } from '../fixtures/crawl-site.js';
import { html } from '../fixtures/site.js';
import { cacheUrl } from '../../daemon/cache/redact.js';
import type { CrawlItem } from '../../daemon/crawl/types.js';

const SECRET = 'vault-Password-7731';
let d: TestDaemon;
let site: CrawlSite;
let alice: string;
let bob: string;

t.before(async () => {
  site = await startCrawlSite();
  site.route('/account', (_q, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'set-cookie': 'sid=s3ss10n; HttpOnly', 'x-session-token': 'tok-998877' });
    res.end(html(`<h1>Account</h1><p>Your API password is ${SECRET}.</p>`, '', 'Account'));
  });
  site.route('/old-post', (_q, res) => void res.writeHead(301, { location: '/blog/post-3' }).end());
  d = await startTestDaemon();
  alice = await d.addUser('alice');
  bob = await d.addUser('bob');
  const put = await d.rest(alice, 'PUT', '/v1/vault/site.test', { fields: { password: SECRET } });
  if (put.status !== 200) throw new Error(JSON.stringify(put.json));
});
t.teardown(async () => {
  await d.stop();
  await site.close();
});

async function crawl(args: Record<string, unknown>): Promise<CrawlItem[]> {
  const r = await d.rest(alice, 'POST', '/v1/tools/browser_crawl', { delayMs: 0, mode: 'http', ...args });
  if (r.status !== 200) throw new Error(JSON.stringify(r.json));
  await d.daemon.features.crawls.waitWhileRunning('alice', r.json.id, 60_000);
  return [...d.daemon.features.crawls.iterateItems('alice', r.json.id)];
}
const same = (items: CrawlItem[]) => items.map((i) => ({ url: i.url, status: i.status, title: i.title, content: i.content })).sort((a, b) => a.url.localeCompare(b.url));

t.test('record, replay and replay-strict with the site stopped', async (t) => {
  const account = `${site.base}/account?token=abc123&page=2`;
  const start = { startUrls: [`${site.base}/blog/`, account], maxDepth: 1, cacheName: 'rec' };
  const recorded = await crawl({ ...start, cache: 'record' });
  t.equal(recorded.filter((i) => i.status === 'done').length, 8, 'the blog, its 6 links and the account page');
  const browserRecorded = await crawl({ startUrls: [`${site.base}/blog/post-1`, `${site.base}/old-post`], maxDepth: 0, mode: 'browser', cache: 'record', cacheName: 'br' });
  t.ok(browserRecorded.every((i) => i.status === 'done'));

  const stored = d.daemon.env.responseCache.get('alice', 'rec', 'GET', cacheUrl(account))!;
  t.ok(stored, 'stored under the redacted URL');
  t.match(stored.url, /token=redacted&page=2/, 'the token in the URL is not kept');
  t.notOk(Object.keys(stored.headers).some((h) => /cookie|token|session/i.test(h)), 'no Set-Cookie or token header kept');
  t.notMatch(stored.body.toString(), new RegExp(SECRET), 'the vault value is not kept in the body');
  t.match(stored.body.toString(), /\[secret hidden\]/);
  const onDisk = readdirSync(join(d.dataDir, 'cache'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), 'latin1'))
    .join('\n');
  for (const s of [SECRET, 'abc123', 's3ss10n', 'tok-998877']) t.notOk(onDisk.includes(s), `no body file holds ${s}`);

  const fallThrough = await crawl({ startUrls: [`${site.base}/blog/`, `${site.base}/about`], maxDepth: 0, cache: 'replay', cacheName: 'rec' });
  t.same(Object.fromEntries(fallThrough.map((i) => [new URL(i.url).pathname, i.via])), { '/blog/': 'cache', '/about': 'http' }, 'replay answers what is stored and goes out for the rest');

  await site.close();
  const replayed = await crawl({ ...start, cache: 'replay-strict' });
  t.same(same(replayed), same(recorded), 'the same items without the site');
  t.ok(replayed.every((i) => i.via === 'cache'));
  const missing = await crawl({ startUrls: [`${site.base}/team`], maxDepth: 0, cache: 'replay-strict', cacheName: 'rec' });
  t.equal(missing[0]!.status, 'failed');
  t.match(missing[0]!.error, /not_found: no stored response/);
  const inBrowser = await crawl({ startUrls: [`${site.base}/blog/post-1`], maxDepth: 0, mode: 'browser', cache: 'replay-strict', cacheName: 'br' });
  t.equal(inBrowser[0]!.status, 'done', inBrowser[0]!.error ?? 'done');
  t.match(inBrowser[0]!.content, /Introduction to post 1/, 'a page read in the browser replays from the cache');
  const redirected = await crawl({ startUrls: [`${site.base}/old-post`], maxDepth: 0, mode: 'browser', cache: 'replay-strict', cacheName: 'br' });
  t.equal(redirected[0]!.status, 'done', redirected[0]!.error ?? 'done');
  t.match(redirected[0]!.content, /Introduction to post 3/, 'a redirect recorded in the browser replays, and the page ends where it did');
  t.match(redirected[0]!.finalUrl, /\/blog\/post-3$/);
});

t.test('caches are listed and deleted per user only', async (t) => {
  const mine = (await d.rest(alice, 'GET', '/v1/caches')).json.caches.map((c: { name: string }) => c.name);
  t.same(mine, ['br', 'rec']);
  t.same((await d.rest(bob, 'GET', '/v1/caches')).json.caches, []);
  t.equal((await d.rest(bob, 'DELETE', '/v1/caches/rec')).status, 404, "bob cannot delete alice's cache");
  t.equal((await d.rest(alice, 'DELETE', '/v1/caches/bad%2Fname')).json.error.code, 'validation_error');
  t.equal((await d.rest(alice, 'DELETE', '/v1/caches/rec')).status, 200);
  t.equal(d.daemon.env.responseCache.get('alice', 'rec', 'GET', cacheUrl(`${site.base}/blog/`)), undefined);
  t.same((await d.rest(alice, 'GET', '/v1/caches')).json.caches.map((c: { name: string }) => c.name), ['br']);
});
