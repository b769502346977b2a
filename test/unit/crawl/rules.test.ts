/**
 * Which links a crawl follows, and when a host may be asked again: wildcard allow/deny (never a regular
 * expression), same site with `www.` ignored, one key per page, per-host spacing and 429/503 back-off.
 */
import t from 'tap';
import { crawlSites, onSites, pageKey, passesRules, siteHost, wildcardMatch } from '../../../daemon/crawl/rules.js';
import { looksLikeSignOut } from '../../../daemon/policy/destructive-links.js';
import { HostSchedule, parseRetryAfter } from '../../../daemon/crawl/politeness.js';

t.test('wildcards: * is the only special character, the match is whole and case-sensitive', async (t) => {
  t.ok(wildcardMatch('/blog/*', '/blog/post-1'));
  t.ok(wildcardMatch('/blog/*', '/blog/'), '* matches nothing too');
  t.notOk(wildcardMatch('/blog/*', '/x/blog/post'), 'anchored at the start');
  t.notOk(wildcardMatch('/blog', '/blog/post'), 'a pattern without * is the whole text');
  t.ok(wildcardMatch('*post-2', '/blog/post-2'));
  t.notOk(wildcardMatch('*post-2', '/blog/post-20'), 'anchored at the end');
  t.ok(wildcardMatch('/a*b*c', '/a-b-b-c'));
  t.notOk(wildcardMatch('/a*b*c', '/a-c-b'));
  t.notOk(wildcardMatch('a*a', 'a'), 'the first and last parts may not overlap');
  t.ok(wildcardMatch('a*a', 'aa'));
  t.notOk(wildcardMatch('/Blog/*', '/blog/x'), 'case-sensitive');
  t.notOk(wildcardMatch('/a.b', '/axb'), 'a dot is a dot, not any character');
  t.ok(wildcardMatch('/search?q=*', '/search?q=shoes'), 'a question mark is literal');
  t.notOk(wildcardMatch('/search?q=*', '/searchXq=shoes'));
  t.notOk(wildcardMatch('/(a+)+$', '/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!'), 'regex syntax is plain text');
  t.ok(wildcardMatch('/(a+)+$', '/(a+)+$'));
  // A pattern that backtracks exponentially as a naive regex: a linear matcher answers at once.
  t.notOk(wildcardMatch('*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b', 'a'.repeat(5000)));
});

t.test('allow and deny: path and query unless the pattern has ://, deny wins', async (t) => {
  t.ok(passesRules('http://site.test/blog/x', [], []), 'no rules: everything passes');
  t.ok(passesRules('http://site.test/blog/x', ['/blog/*'], []));
  t.notOk(passesRules('http://site.test/about', ['/blog/*'], []), 'not in allow');
  t.notOk(passesRules('http://site.test/blog/x', ['/blog/*'], ['/blog/*']), 'deny wins over allow');
  t.ok(passesRules('http://site.test/search?q=a', ['/search?q=*'], []), 'the query is part of what is matched');
  t.notOk(passesRules('http://site.test/page?sort=desc', [], ['*sort=*']));
  t.ok(passesRules('http://site.test/page#sort=desc', [], ['*sort=*']), 'the fragment is not');
  t.notOk(passesRules('http://site.test/team#bio', [], ['http://site.test/team']), 'a fragment does not slip a page past a whole-URL deny');
  t.ok(passesRules('http://site.test/team#bio', ['http://site.test/team'], []), 'nor out of a whole-URL allow');
  t.notOk(passesRules('http://site.test/team', [], ['http://site.test/team']), 'a whole-URL pattern');
  t.ok(passesRules('http://other.test/team', [], ['http://site.test/*']), 'a whole-URL pattern names its host');
  t.notOk(passesRules('http://site.test/x', ['http://site.test/*'], ['*/x']));
  t.notOk(passesRules('not a url', [], []), 'an unparsable link passes nothing');
});

t.test('same site: www. ignored, sub-domains are other sites', async (t) => {
  t.equal(siteHost('WWW.Site.Test.'), 'site.test');
  const sites = crawlSites(['http://site.test:8080/', 'not a url']);
  t.same([...sites], ['site.test']);
  t.ok(onSites('http://www.site.test:8080/about', sites));
  t.ok(onSites('https://SITE.test/x', sites));
  t.notOk(onSites('http://blog.site.test/x', sites), 'a sub-domain is not the same domain');
  t.notOk(onSites('http://other.test/x', sites));
  t.notOk(onSites('http://site.test.evil.test/x', sites));
  t.ok(onSites('http://site.test/x', crawlSites(['http://www.site.test/'])), 'a www start URL covers the bare host');
});

t.test('one key per page', async (t) => {
  t.equal(pageKey('HTTP://Site.TEST:80/a?b=2&a=1#top'), 'http://site.test/a?b=2&a=1', 'fragment, default port and case gone; query order kept');
  t.equal(pageKey('https://site.test:443/'), 'https://site.test/');
  t.equal(pageKey('http://site.test:8080/p'), 'http://site.test:8080/p', 'a port that is not the default stays');
  t.not(pageKey('http://site.test/P'), pageKey('http://site.test/p'), 'the path keeps its case');
});

t.test('sign-out links are recognised, ordinary ones are not', async (t) => {
  for (const u of ['http://s.test/logout', 'http://s.test/account/sign-out', 'http://s.test/x?action=logoff', 'http://s.test/log_out'.replace('_', '')]) t.ok(looksLikeSignOut(u), u);
  for (const u of ['http://s.test/blog/logouts-explained-not', 'http://s.test/catalogue', 'http://s.test/signup']) t.notOk(looksLikeSignOut(u), u);
});

t.test('per-host spacing: delayMs, robots Crawl-delay when longer, learned late', async (t) => {
  const s = new HostSchedule(200);
  t.equal(s.waitFor('a.test', 1000), 0, 'a new host may be asked at once');
  s.take('a.test', 1000);
  t.equal(s.waitFor('a.test', 1000), 200);
  t.equal(s.waitFor('a.test', 1150), 50);
  t.equal(s.waitFor('b.test', 1000), 0, 'hosts are spaced apart, not together');
  s.setCrawlDelay('a.test', 1000);
  t.equal(s.waitFor('a.test', 1000), 1000, 'a Crawl-delay learned after the first request pushes the next one out');
  s.take('a.test', 2000);
  t.equal(s.waitFor('a.test', 2000), 1000);
  s.setCrawlDelay('b.test', 50);
  s.take('b.test', 0);
  t.equal(s.waitFor('b.test', 0), 200, 'a shorter Crawl-delay does not undercut delayMs');
});

t.test('429/503 back-off: Retry-After seconds or date, capped; exponential without it', async (t) => {
  t.equal(parseRetryAfter('2', 0), 2000);
  t.equal(parseRetryAfter(' 0 ', 0), 0);
  const now = Date.parse('2026-01-01T00:00:00Z');
  t.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now), 30_000);
  t.equal(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now), 0, 'a date in the past: at once');
  t.equal(parseRetryAfter('soon', now), undefined);
  t.equal(parseRetryAfter(undefined, now), undefined);

  const s = new HostSchedule(0);
  s.backOff('a.test', '3', 1, 0);
  t.equal(s.waitFor('a.test', 0), 3000, 'Retry-After is followed');
  s.backOff('b.test', '86400', 1, 0);
  t.equal(s.waitFor('b.test', 0), 600_000, 'capped at ten minutes');
  s.backOff('c.test', undefined, 1, 0);
  t.equal(s.waitFor('c.test', 0), 2000, 'without Retry-After: from one second, doubling per try');
  s.backOff('d.test', undefined, 2, 0);
  t.equal(s.waitFor('d.test', 0), 4000);
  const slow = new HostSchedule(1500);
  slow.backOff('e.test', undefined, 1, 0);
  t.equal(slow.waitFor('e.test', 0), 3000, 'from delayMs when it is longer than a second');
  s.take('a.test', 0);
  t.ok(s.waitFor('a.test', 0) >= 3000, 'a request taken during a back-off does not shorten it');
});
