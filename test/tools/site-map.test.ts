/**
 * browser_map, browser_explore, browser_recall and browser_remember on the loopback crawl site: sources and
 * their choices, robots.txt, same host (www counted), ranking, limit and patterns; an explore that finds sign-in,
 * search and listings while sending nothing; memory per user, with no secret kept in a note.
 */
import t from 'tap';
import { call, startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { startCrawlSite, type CrawlSite } from '../fixtures/crawl-site.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

let d: TestDaemon;
let site: CrawlSite;
let alice: string;
let bob: string;
let client: Client;

t.before(async () => {
  site = await startCrawlSite();
  d = await startTestDaemon();
  alice = await d.addUser('alice');
  bob = await d.addUser('bob');
  client = await d.mcp(alice);
});
t.teardown(async () => {
  await d.stop();
  await site.close();
});

const map = async (args: Record<string, unknown>, token = alice) => {
  const r = await d.rest(token, 'POST', '/v1/tools/browser_map', { url: `${site.base}/`, ...args });
  if (r.status !== 200) throw new Error(JSON.stringify(r.json));
  return r.json as { urls: { url: string; source: string; title?: string }[]; found: Record<string, number>; disallowed: number };
};
const paths = (urls: { url: string }[]) => urls.map((u) => { const x = new URL(u.url); return `${x.hostname === 'site.test' ? '' : x.hostname}${x.pathname}`; });

t.test('browser_map: sources, robots, same host, choices, limit, patterns', async (t) => {
  const before = site.requests.length;
  const all = await map({ limit: 500 });
  const p = paths(all.urls);
  for (const want of ['/blog/', '/about', '/blog/post-8', '/team', 'www.site.test/about']) t.ok(p.includes(want), `${want} listed`);
  t.notOk(p.includes('/private/secret'), 'robots.txt disallows it');
  t.ok(all.disallowed >= 1);
  t.notOk(p.some((x) => x.startsWith('other.test')), 'another host is left out');
  t.notOk(p.includes('/hidden-trap'), 'a hidden link is not listed');
  t.same(all.found, { link: 9, sitemap: 11, feed: 3 });
  const asked = site.requests.slice(before).map((r) => r.path);
  t.notOk(asked.some((x) => x.startsWith('/blog/post-') || x === '/about'), 'no listed page was read');

  const sitemapOnly = await map({ sitemap: 'only', limit: 500 });
  t.ok(sitemapOnly.urls.every((u) => u.source === 'sitemap'));
  t.equal(sitemapOnly.urls.length, 11);
  const feedsOnly = await map({ feeds: 'only' });
  t.same(paths(feedsOnly.urls), ['/blog/post-1', '/blog/post-2', '/blog/post-3']);
  t.equal(feedsOnly.urls[0]!.title, 'Post 1', 'feed titles come along');
  const linksOnly = await map({ sitemap: 'skip', feeds: 'skip', limit: 500 });
  t.ok(linksOnly.urls.every((u) => u.source === 'link'));
  t.equal((await map({ limit: 2 })).urls.length, 2);
  const blogOnly = await map({ allow: ['/blog/*'], deny: ['*post-1'], limit: 500 });
  t.ok(blogOnly.urls.every((u) => new URL(u.url).pathname.startsWith('/blog/') && !u.url.endsWith('post-1')));
  const ranked = await map({ query: 'team', limit: 3 });
  t.equal(paths(ranked.urls)[0], '/team', 'the best match first');
  const viaBrowser = await map({ useBrowser: true, sitemap: 'skip', feeds: 'skip', limit: 500 });
  t.same(paths(viaBrowser.urls).sort(), paths(linksOnly.urls).sort(), 'the same links when the start page is read in the browser');
  const bad = await d.rest(alice, 'POST', '/v1/tools/browser_map', { url: 'javascript:alert(1)' });
  t.equal(bad.json.error.code, 'blocked');
});

t.test('browser_explore finds sign-in, search and listings, sends nothing, and is remembered', async (t) => {
  const writes = site.writes().length;
  const r = await call(client, 'browser_explore', { url: `${site.base}/`, maxPages: 12 });
  t.notOk(r.isError, r.text);
  t.match(r.text, /Sign-in: http:\/\/site\.test:\d+\/login/);
  t.match(r.text, /Search: http:\/\/site\.test:\d+\/search \(parameter q\)/);
  t.match(r.text, /Listings: [^\n]*\/products/);
  t.match(r.text, /home +http:\/\/site\.test:\d+\/ /, 'the start page is the home page');
  t.equal(site.writes().length, writes, 'no form was sent');
  const rest = await d.rest(alice, 'POST', '/v1/tools/browser_recall', { host: 'www.site.test' });
  const m = rest.json.memory.map;
  t.equal(m.pages.length, 12);
  t.equal(m.pages.find((p: { url: string }) => p.url.endsWith('/blog/post-1')).kind, 'article');
  t.equal(m.pages.find((p: { url: string }) => p.url.endsWith('/login')).kind, 'login');
  t.same(m.pages.find((p: { url: string }) => p.url.endsWith('/login')).forms[0].fields.map((f: { type: string }) => f.type), ['email', 'password']);
});

t.test('browser_remember and browser_recall: notes per user, secrets not kept', async (t) => {
  const secret = 'remember-Secret-4242';
  await d.rest(alice, 'PUT', '/v1/vault/site.test', { fields: { password: secret } });
  const saved = await call(client, 'browser_remember', { host: `${site.base}/anything`, note: `Search results paginate with ?page=N; password is ${secret}` });
  t.notOk(saved.isError, saved.text);
  const back = await call(client, 'browser_recall', { host: 'site.test' });
  t.match(back.text, /paginate with \?page=N/);
  t.notMatch(back.text, secret);
  t.match(back.text, /\[secret hidden\]/);
  const stored = JSON.stringify(d.daemon.env.siteMemory.get('alice', 'site.test'));
  t.notOk(stored.includes(secret), 'the stored note holds no vault value');
  const bobClient = await d.mcp(bob);
  const theirs = await call(bobClient, 'browser_recall', { host: 'site.test' });
  t.match(theirs.text, /Nothing is remembered/, "another user's memory is not shared");
  await bobClient.close();
  const bad = await call(client, 'browser_remember', { host: 'site.test', note: 'x'.repeat(2001) });
  t.ok(bad.isError);
  t.match(bad.text, /validation_error/);
  // A host too long for a name (and for the LMDB key it becomes) is a validation error, not internal_error.
  for (const host of ['a'.repeat(2048), `${'abcdefgh.'.repeat(227)}test`, `http://${'b'.repeat(300)}.test/x`]) {
    for (const tool of ['browser_remember', 'browser_recall']) {
      const r = await call(client, tool, { host, ...(tool === 'browser_remember' ? { note: 'n' } : {}) });
      t.match(r.text, /Error \[validation_error\]: the host name is \d+ characters/, `${tool} with a ${host.length}-character host`);
    }
  }
});
