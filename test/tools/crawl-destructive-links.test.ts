/**
 * A crawl on the user's signed-in profile only reads: pages of the loopback fixture site link to
 * /account/delete?id=1, /cart/add, /unsubscribe, /logout, /de/konto/loeschen, /fr/se-desabonner and to a link
 * whose address says nothing but whose text says "Delete"; browser and auto modes never request them (the site's
 * request log shows it), list them as blocked with the reason, and crawl the ordinary pages. A destructive start
 * URL is blocked too. http mode sends no cookie and follows them (sign-out excepted, as before). browser_explore
 * skips them the same way; browser_map with useBrowser refuses a start URL that acts.
 */
import t from 'tap';
import { call, startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { html, startSite, type FixtureSite } from '../fixtures/site.js';
import type { CrawlItem, CrawlRunInfo } from '../../daemon/crawl/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

let d: TestDaemon;
let site: FixtureSite;
let alice: string;
let client: Client;

const ACTING = ['/account/delete', '/cart/add', '/unsubscribe', '/logout', '/de/konto/loeschen', '/fr/se-desabonner', '/a/7f3e'];
const ORDINARY = ['/', '/about', '/blog/how-to-delete-files', '/docs/remove-background-guide', '/orders'];

t.before(async () => {
  site = await startSite();
  const nav = `<nav>
    <a href="/about">About</a>
    <a href="/blog/how-to-delete-files">How to delete files</a>
    <a href="/docs/remove-background-guide">Removing backgrounds</a>
    <a href="/orders">Your orders</a>
    <a href="/account/delete?id=1">Delete account</a>
    <a href="/cart/add?sku=12">Add</a>
    <a href="/unsubscribe">Unsubscribe</a>
    <a href="/logout">Log out</a>
    <a href="/de/konto/loeschen">Konto</a>
    <a href="/fr/se-desabonner">Lettre</a>
    <a href="/a/7f3e">Delete</a>
  </nav>`;
  for (const p of [...ORDINARY, ...ACTING]) site.route(p, html(`<h1>Page ${p}</h1><p>Text of ${p}.</p>${nav}`, '', `Page ${p}`));
  d = await startTestDaemon();
  alice = await d.addUser('alice');
  client = await d.mcp(alice);
});
t.teardown(async () => {
  await d.stop();
  await site.close();
});

async function crawl(args: Record<string, unknown>): Promise<string> {
  const r = await d.rest(alice, 'POST', '/v1/tools/browser_crawl', { delayMs: 0, maxDepth: 2, maxPages: 50, ...args });
  if (r.status !== 200) throw new Error(JSON.stringify(r.json));
  return r.json.id as string;
}

async function finished(id: string): Promise<CrawlRunInfo> {
  const info = await d.daemon.features.crawls.waitWhileRunning('alice', id, 120_000);
  t.not(info.state, 'running', `${id} stopped running`);
  return info;
}

const items = (id: string): CrawlItem[] => [...d.daemon.features.crawls.iterateItems('alice', id)];
/** An address's path; over MCP a page's address arrives fenced, so the fence is taken off first. */
const pathOf = (url: string) => new URL(url.replace(/^<<<page [^\n]*\n/, '').replace(/\n<<<end [^\n]*$/, '')).pathname;
const requested = (from: number) => site.requests.slice(from).map((r) => r.path.split('?')[0]!);

for (const mode of ['browser', 'auto'] as const) {
  t.test(`mode ${mode}: links that act are never requested, listed as blocked with the reason; ordinary pages are read`, async (t) => {
    const before = site.requests.length;
    const id = await crawl({ startUrls: [`${site.url}/`], mode });
    const run = await finished(id);
    t.equal(run.state, 'finished');
    const got = requested(before);
    for (const p of ACTING) t.notOk(got.includes(p), `${p} was not requested`);
    for (const p of ORDINARY) t.ok(got.includes(p), `${p} was read`);
    const list = items(id);
    t.same(list.filter((i) => i.status === 'done').map((i) => pathOf(i.url)).sort(), [...ORDINARY].sort(), 'the ordinary pages are the done items');
    const blocked = list.filter((i) => i.status === 'blocked');
    // /logout was never queued (sign-out links are dropped as before); the others show as blocked.
    t.same(blocked.map((i) => pathOf(i.url)).sort(), ACTING.filter((p) => p !== '/logout').sort(), 'each link that acts is a blocked item');
    for (const b of blocked) t.match(b.error, /not fetched on the signed-in profile: it looks like an action/, `${pathOf(b.url)} says why`);
    t.match(blocked.find((i) => pathOf(i.url) === '/a/7f3e')!.error, /its link text says "delete"/, 'a link is judged by its text too');
    t.equal(run.counters.blocked, ACTING.length - 1, 'counted as blocked');
  });
}

t.test('a start URL that acts is blocked on the profile, not fetched', async (t) => {
  const before = site.requests.length;
  const id = await crawl({ startUrls: [`${site.url}/account/delete?id=1`], mode: 'browser' });
  await finished(id);
  t.notOk(requested(before).includes('/account/delete'), 'not requested');
  const [item] = items(id);
  t.equal(item!.status, 'blocked');
  t.match(item!.error, /delete; its address says "delete"/);
});

t.test('mode http sends no cookie: it reads those pages as anyone would (sign-out still skipped)', async (t) => {
  const before = site.requests.length;
  const id = await crawl({ startUrls: [`${site.url}/`], mode: 'http', maxDepth: 1 });
  await finished(id);
  const got = requested(before);
  t.ok(got.includes('/account/delete'), 'followed over http');
  t.notOk(got.includes('/logout'), 'sign-out never followed');
});

t.test('browser_explore skips links that act and says why', async (t) => {
  const before = site.requests.length;
  const r = await call(client, 'browser_explore', { url: `${site.url}/`, maxPages: 20 });
  t.notOk(r.isError, r.text);
  const got = requested(before);
  for (const p of ACTING) t.notOk(got.includes(p), `${p} was not requested`);
  t.ok(got.includes('/about'), 'ordinary pages are read');
  const map = r.raw.structuredContent.map;
  t.ok(map.failed.some((f: any) => pathOf(f.url) === '/unsubscribe' && /looks like an action/.test(f.error)), 'listed with the reason');
  t.ok(map.pages.length >= ORDINARY.length, 'skipped links take nothing of maxPages');
});

t.test('browser_map with useBrowser refuses a start URL that acts; listing links fetches none', async (t) => {
  const before = site.requests.length;
  const r = await call(client, 'browser_map', { url: `${site.url}/unsubscribe`, useBrowser: true, sitemap: 'skip', feeds: 'skip' });
  t.ok(r.isError);
  t.match(r.text, /refused|looks like an action/);
  t.notOk(requested(before).includes('/unsubscribe'), 'not requested');
});
