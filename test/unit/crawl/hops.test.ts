/**
 * hops.ts without a browser: a hop is judged as a link is (scope, allow/deny but not for a start URL's hops,
 * sign-out, acting on the profile, the address policy, robots.txt), and a tab's judge stops the page being read
 * only for its own frame's hops, never for the page's first request, and names how the hop came about.
 */
import t from 'tap';
import { TabHops, hopRefusal, type HopRules } from '../../../daemon/crawl/hops.js';
import { RobotsBook } from '../../../daemon/crawl/robots.js';

const robots = new RobotsBook(async (url) => ({ requestedUrl: url, url, status: 200, headers: {}, body: Buffer.from('User-agent: *\nDisallow: /private/\n') }));
const rules: HopRules = {
  sameDomain: true,
  sites: new Set(['site.test']),
  allow: ['/docs/*'],
  deny: [],
  onProfile: true,
  obeyRobots: true,
  robots,
  guard: { allowPrivateNetwork: true, deniedPorts: () => new Set([9]), lookup: async () => [{ address: '127.0.0.1' }] },
};

t.test('hopRefusal: the judgements a link gets', async (t) => {
  t.equal(await hopRefusal(rules, 'http://www.site.test/docs/a', false), undefined, 'www is the same site');
  t.match(await hopRefusal(rules, 'http://other.test/docs/a', false), /leaves the crawl's sites/);
  t.match(await hopRefusal(rules, 'http://site.test/en/', false), /allow\/deny/);
  t.equal(await hopRefusal(rules, 'http://site.test/en/', true), undefined, "a start URL's hop is not held to allow/deny");
  t.match(await hopRefusal(rules, 'http://site.test/logout', true), /sign-out/);
  t.match(await hopRefusal(rules, 'http://site.test/account/delete?id=1', true), /looks like an action/);
  t.equal(await hopRefusal({ ...rules, onProfile: false }, 'http://site.test/account/delete?id=1', true), undefined, 'without cookies an action is only a page');
  t.match(await hopRefusal(rules, 'http://site.test:9/docs/a', false), /daemon's own/);
  t.match(await hopRefusal(rules, 'http://site.test/private/x', true), /robots.txt disallows it/);
  t.equal(await hopRefusal({ ...rules, obeyRobots: false }, 'http://site.test/private/x', true), undefined);
});

t.test('TabHops: which document requests stop the page, and how the reason names them', async (t) => {
  const hops = new TabHops(async (url) => (url.includes('bad') ? 'it is bad' : undefined), (url) => (url.includes('frame-bad') ? 'a bad frame' : undefined));
  t.equal(await hops.judge({ url: 'http://site.test/bad', mainFrame: true }), 'the page went on to http://site.test/bad by itself (a meta refresh or a script), which was not followed: it is bad', 'an idle tab is judged too');
  hops.begin('http://site.test/bad#top');
  t.equal(await hops.judge({ url: 'http://site.test/bad', mainFrame: true }), undefined, "the page's own first request was judged as a link");
  t.equal(await hops.judge({ url: 'http://site.test/frame-bad', mainFrame: false }), 'a frame or window of the page was not let load http://site.test/frame-bad: a bad frame');
  t.equal(hops.refused(), undefined, "a frame's refusal does not stop the page");
  t.equal(await hops.judge({ url: 'http://site.test/bad?2', mainFrame: true, redirect: { from: 'http://site.test/bad' } }), 'the redirect from http://site.test/bad to http://site.test/bad?2 was not followed: it is bad');
  t.equal(hops.refused(), 'the redirect from http://site.test/bad to http://site.test/bad?2 was not followed: it is bad', 'the first refusal is the page\'s');
  await hops.judge({ url: 'http://site.test/bad?3', mainFrame: true });
  t.match(hops.refused(), /bad\?2/, 'and it stays the first');
  hops.end();
  t.equal(hops.refused(), undefined);
});
