/** robots.txt per RFC 9309 through robots-parser, and sitemaps/feeds read from canned responses. */
import t from 'tap';
import { gzipSync } from 'node:zlib';
import { RobotsBook, parseRobots } from '../../../daemon/crawl/robots.js';
import { feedLinksIn, parseFeed, readSitemapUrls } from '../../../daemon/crawl/sitemap.js';
import type { Fetcher, FetchedResponse } from '../../../daemon/crawl/types.js';

const answer = (url: string, status: number, body: string | Buffer = ''): FetchedResponse => ({ requestedUrl: url, url, status, headers: {}, body: Buffer.from(body) });

t.test('rules: our group, longest match, crawl-delay, sitemaps', async (t) => {
  const r = parseRobots('http://a.test/robots.txt', 'User-agent: *\nDisallow: /\n\nUser-agent: browserd\nDisallow: /private/\nAllow: /private/open\nCrawl-delay: 2.5\n\nSitemap: http://a.test/s.xml\n');
  t.ok(r.allowed('http://a.test/blog'), 'our own group, not *');
  t.notOk(r.allowed('http://a.test/private/x'));
  t.ok(r.allowed('http://a.test/private/open'), 'the longest rule wins');
  t.equal(r.crawlDelayMs, 2500);
  t.same(r.sitemaps, ['http://a.test/s.xml']);
  t.equal(parseRobots('http://a.test/robots.txt', 'User-agent: *\nCrawl-delay: 100000').crawlDelayMs, 60000, 'capped at a minute');
});

t.test('missing robots.txt allows all; a server error disallows all; one fetch per origin', async (t) => {
  let asked = 0;
  const fetch: Fetcher = async (url) => {
    asked++;
    return answer(url, url.includes('broken') ? 503 : 404);
  };
  const book = new RobotsBook(fetch);
  const [a, b] = await Promise.all([book.rulesFor('http://gone.test/x'), book.rulesFor('http://gone.test/y')]);
  t.ok(a.allowed('http://gone.test/x') && b.allowed('http://gone.test/y'));
  t.equal(asked, 1, 'concurrent callers share one fetch');
  t.notOk((await book.rulesFor('http://broken.test/x')).allowed('http://broken.test/x'));
  const unreachable = new RobotsBook(async () => { throw new Error('down'); });
  t.notOk((await unreachable.rulesFor('http://down.test/')).allowed('http://down.test/'));
});

t.test('sitemaps: index, gzipped child, cycle, max', async (t) => {
  const docs: Record<string, Buffer> = {
    'http://s.test/index.xml': Buffer.from('<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>http://s.test/a.xml.gz</loc></sitemap><sitemap><loc>http://s.test/index.xml</loc></sitemap><sitemap><loc> http://s.test/b.xml </loc></sitemap></sitemapindex>'),
    'http://s.test/a.xml.gz': gzipSync('<urlset><url><loc>http://s.test/1</loc></url><url><loc>http://s.test/2?a=1&amp;b=2</loc></url><url><loc>javascript:alert(1)</loc></url></urlset>'),
    'http://s.test/b.xml': Buffer.from('<urlset><url><loc>http://s.test/3</loc></url><url><loc>http://s.test/1</loc></url></urlset>'),
  };
  const fetch: Fetcher = async (url) => (docs[url] ? answer(url, 200, docs[url]) : answer(url, 404));
  t.same(await readSitemapUrls('http://s.test/index.xml', fetch, { max: 100 }), ['http://s.test/1', 'http://s.test/2?a=1&b=2', 'http://s.test/3']);
  t.same(await readSitemapUrls('http://s.test/index.xml', fetch, { max: 2 }), ['http://s.test/1', 'http://s.test/2?a=1&b=2']);
  await t.rejects(readSitemapUrls('http://s.test/none.xml', fetch, { max: 10 }), /HTTP 404/);
});

t.test('sitemaps as sites serve them: prefixes, CDATA, a DOCTYPE that defines entities, broken XML', async (t) => {
  const docs: Record<string, string> = {
    // A namespace prefix on every element, a <loc> in CDATA, character references.
    'http://s.test/prefixed.xml': '<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:url><sm:loc>http://s.test/p1</sm:loc></sm:url><sm:url><sm:loc><![CDATA[http://s.test/p2]]></sm:loc></sm:url><sm:url><sm:loc>http://s.test/caf&#xe9;</sm:loc></sm:url></sm:urlset>',
    // Entities a DOCTYPE defines are not expanded (no billion laughs, no files): the reference stays as written.
    'http://s.test/laughs.xml': '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><urlset><url><loc>&lol2;</loc></url><url><loc>http://s.test/ok</loc></url></urlset>',
    // Unclosed elements at the end, as a truncated download leaves them: what came before is still read.
    'http://s.test/cut.xml': '<urlset><url><loc>http://s.test/c1</loc></url><url><loc>http://s.test/c2</loc></url><url><loc>http://s.te',
  };
  const fetch: Fetcher = async (url) => (docs[url] ? answer(url, 200, docs[url]) : answer(url, 404));
  t.same(await readSitemapUrls('http://s.test/prefixed.xml', fetch, { max: 10 }), ['http://s.test/p1', 'http://s.test/p2', 'http://s.test/caf%C3%A9']);
  t.same(await readSitemapUrls('http://s.test/laughs.xml', fetch, { max: 10 }), ['http://s.test/&lol2;', 'http://s.test/ok']);
  const cut = await readSitemapUrls('http://s.test/cut.xml', fetch, { max: 10 }).catch((e: Error) => e);
  t.ok(Array.isArray(cut) ? cut.includes('http://s.test/c1') : /neither XML/.test(cut.message), 'a cut sitemap gives its whole entries or a clear error, never a crash');
});

t.test('feeds: RSS, Atom, and the links a page announces', async (t) => {
  t.same(parseFeed('<rss><channel><item><title>One</title><link>http://f.test/1</link></item><item><guid>http://f.test/2</guid></item></channel></rss>', 'http://f.test/'), [{ url: 'http://f.test/1', title: 'One' }, { url: 'http://f.test/2' }]);
  t.same(parseFeed('<feed xmlns="http://www.w3.org/2005/Atom"><entry><title>A</title><link rel="alternate" href="/a"/><link rel="edit" href="/edit"/><updated>2026-01-01</updated></entry></feed>', 'http://f.test/'), [{ url: 'http://f.test/a', title: 'A', published: '2026-01-01' }]);
  t.same(parseFeed('not xml at all', 'http://f.test/'), []);
  t.same(feedLinksIn('<head><link rel="alternate" type="application/rss+xml" href="/feed.xml"><link rel="stylesheet" href="/s.css"></head>', 'http://f.test/blog/'), ['http://f.test/feed.xml']);
});
