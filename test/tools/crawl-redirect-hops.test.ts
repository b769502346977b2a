/**
 * A crawl judges every hop of a page's fetch, not only the links it finds: a link that looks harmless (/go/1)
 * answering 302 to /logout, a chain of three redirects ending at /account/close, a redirect to another host,
 * to a page robots.txt disallows, or to the daemon's own port, and a page that sends its tab on by itself
 * (meta refresh, location.href) to /logout or /account/delete. The fixture site counts every request: the
 * address the hop goes to is never requested, and the page ends `blocked` with a reason naming the hop.
 * Redirects within the rules still read (a start URL to its language home, under allow patterns it is not
 * held to), and a frame of a page that would load /logout is refused without failing the page. A file collect
 * would fetch is judged by its address too. browser_explore and browser_map (useBrowser), which also read on the
 * profile, hold their redirects and the page's own navigations to the rules about acting.
 */
import t from 'tap';
import { startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { html, startSite, type FixtureSite } from '../fixtures/site.js';
import type { CrawlItem, CrawlRunInfo } from '../../daemon/crawl/types.js';

let d: TestDaemon;
let site: FixtureSite;
let alice: string;
/** The fixture site under a name of its own (site.test), and another host on the same server (other.test). */
let base: string;
let other: string;

const redirect = (to: () => string) => (_q: unknown, res: import('node:http').ServerResponse) => void res.writeHead(302, { location: to() }).end();

t.before(async () => {
  site = await startSite();
  base = `http://site.test:${site.port}`;
  other = `http://other.test:${site.port}`;
  d = await startTestDaemon();
  alice = await d.addUser('alice');
  const page = (p: string, body = '') => html(`<h1>Page ${p}</h1><p>Text of ${p}.</p>${body}`, '', `Page ${p}`);
  // What the redirects and refreshes aim at: each must never be requested.
  for (const p of ['/logout', '/account/close', '/account/delete', '/cart/empty', '/elsewhere', '/private/page']) site.route(p, page(p));
  site.route('/robots.txt', (_q, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private/\n'));
  site.route('/go/1', redirect(() => '/logout'));
  site.route('/go/2', redirect(() => '/cart/empty?all=1'));
  site.route('/r1', redirect(() => '/r2'));
  site.route('/r2', redirect(() => `${base}/r3`));
  site.route('/r3', redirect(() => '/account/close'));
  site.route('/away', redirect(() => `${other}/elsewhere`));
  site.route('/hidden', redirect(() => '/private/page'));
  site.route('/daemon', redirect(() => `http://127.0.0.1:${new URL(d.url).port}/v1/health`));
  site.route('/meta', page('/meta', '').replace('<head>', '<head><meta http-equiv="refresh" content="0;url=/logout">'));
  site.route('/script', page('/script', '<script>location.href = "/account/delete?id=2";</script>'));
  site.route('/onload', page('/onload', '<script>addEventListener("load", () => { location.href = "/cart/empty?all=1"; });</script>'));
  site.route('/framed', page('/framed', '<iframe src="/logout"></iframe>'));
  site.route('/files', page('/files', '<a href="/docs/report.pdf">Report</a> <a href="/account/delete.pdf">Form</a>'));
  for (const f of ['/docs/report.pdf', '/account/delete.pdf']) site.route(f, (_q, res) => void res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.4 not really'));
  site.route('/start', page('/start', '<a href="/go/1">Go on</a> <a href="/meta">Moved</a>'));
  site.route('/home', redirect(() => '/en/'));
  site.route('/en/', page('/en/'));
});
t.teardown(async () => {
  await d.stop();
  await site.close();
});

async function crawl(args: Record<string, unknown>): Promise<string> {
  const r = await d.rest(alice, 'POST', '/v1/tools/browser_crawl', { delayMs: 0, maxDepth: 0, maxPages: 10, ...args });
  if (r.status !== 200) throw new Error(JSON.stringify(r.json));
  return r.json.id as string;
}

async function finished(id: string): Promise<CrawlRunInfo> {
  const info = await d.daemon.features.crawls.waitWhileRunning('alice', id, 120_000);
  t.not(info.state, 'running', `${id} stopped running`);
  return info;
}

const items = (id: string): CrawlItem[] => [...d.daemon.features.crawls.iterateItems('alice', id)];
/** host/path of each request since `from` (the query dropped). */
const reached = (from: number) => site.requests.slice(from).map((r) => `${String(r.headers.host).split(':')[0]}${r.path.split('?')[0]}`);

/** Crawls `path` alone and answers its one item and what reached the site meanwhile. */
async function one(path: string, mode: string, extra: Record<string, unknown> = {}): Promise<{ item: CrawlItem; got: string[] }> {
  const before = site.requests.length;
  const id = await crawl({ startUrls: [`${base}${path}`], mode, ...extra });
  await finished(id);
  const [item] = items(id);
  return { item: item!, got: reached(before) };
}

/**
 * An item's error with its addresses whole again: the stored line cuts each to scheme and host (it is a line of
 * ours) and keeps the whole ones, in order, in errorPageText.
 */
function whole(item: { error?: string; errorPageText?: string } | undefined): string {
  const urls = (item?.errorPageText ?? '').split('\n');
  let n = 0;
  return (item?.error ?? '').replace(/[a-z][a-z0-9+.-]*:\/\/[^\s/]*\/\u2026/g, (cut) => urls[n++] ?? cut);
}

for (const mode of ['browser', 'auto', 'http'] as const) {
  t.test(`mode ${mode}: a link that redirects to /logout is blocked at the hop, /logout never requested`, async (t) => {
    const { item, got } = await one('/go/1', mode);
    t.ok(got.includes('site.test/go/1'), 'the link itself was read');
    t.notOk(got.includes('site.test/logout'), '/logout was never requested');
    t.equal(item.status, 'blocked', item.error ?? '');
    t.match(whole(item), new RegExp(`the redirect from ${base}/go/1 to ${base}/logout was not followed: it looks like a sign-out`), 'the reason names the redirect');
  });

  t.test(`mode ${mode}: a redirect to another host is not followed (sameDomain)`, async (t) => {
    const { item, got } = await one('/away', mode);
    t.notOk(got.includes('other.test/elsewhere'), 'the other host was never asked');
    t.equal(item.status, 'blocked');
    t.match(whole(item), /redirect from .*\/away to http:\/\/other\.test:\d+\/elsewhere was not followed: it leaves the crawl's sites/);
  });

  t.test(`mode ${mode}: a redirect to a page robots.txt disallows is not followed`, async (t) => {
    const { item, got } = await one('/hidden', mode);
    t.notOk(got.includes('site.test/private/page'), 'not requested');
    t.equal(item.status, 'blocked');
    t.match(whole(item), /redirect from .*\/hidden to .*\/private\/page was not followed: robots.txt disallows it/);
  });

  t.test(`mode ${mode}: a redirect to the daemon's own port is refused by the address policy at the hop`, async (t) => {
    const { item } = await one('/daemon', mode, { sameDomain: false });
    t.equal(item.status, 'blocked', item.error ?? '');
    t.match(whole(item), /redirect from .*\/daemon to http:\/\/127\.0\.0\.1:\d+\/v1\/health was not followed: port \d+ on this machine is the daemon's own/);
  });
}

for (const mode of ['browser', 'auto'] as const) {
  t.test(`mode ${mode}: a redirect to an address that acts is not followed on the profile`, async (t) => {
    const { item, got } = await one('/go/2', mode);
    t.notOk(got.includes('site.test/cart/empty'), '/cart/empty was never requested');
    t.equal(item.status, 'blocked');
    t.match(whole(item), /redirect from .*\/go\/2 to .*\/cart\/empty\?all=1 was not followed: not fetched on the signed-in profile: it looks like an action/);
  });

  t.test(`mode ${mode}: a chain of three redirects whose last hop acts stops before it`, async (t) => {
    const { item, got } = await one('/r1', mode);
    for (const p of ['/r1', '/r2', '/r3']) t.ok(got.includes(`site.test${p}`), `${p} was followed`);
    t.notOk(got.includes('site.test/account/close'), '/account/close was never requested');
    t.equal(item.status, 'blocked');
    t.match(whole(item), new RegExp(`the redirect from ${base}/r3 to ${base}/account/close was not followed`));
  });
}

t.test('mode http sends no cookie: a redirect to an address that acts reads as anyone would', async (t) => {
  const { item, got } = await one('/go/2', 'http');
  t.ok(got.includes('site.test/cart/empty'), 'followed without cookies, as its link would be');
  t.equal(item.status, 'done');
});

for (const [path, target, how] of [
  ['/meta', '/logout', 'a meta refresh'],
  ['/script', '/account/delete', 'a script setting location.href'],
  ['/onload', '/cart/empty', 'a script on load'],
] as const) {
  t.test(`mode browser: ${how} to ${target} is not followed, and the page is blocked`, async (t) => {
    const { item, got } = await one(path, 'browser');
    t.ok(got.includes(`site.test${path}`), 'the page itself was read');
    t.notOk(got.includes(`site.test${target}`), `${target} was never requested`);
    t.equal(item.status, 'blocked', item.error ?? '');
    t.match(whole(item), new RegExp(`the page went on to ${base}${target}\\S* by itself \\(a meta refresh or a script\\), which was not followed`));
  });
}

t.test('mode browser: a frame that would load /logout is refused; the page itself reads', async (t) => {
  const { item, got } = await one('/framed', 'browser');
  t.notOk(got.includes('site.test/logout'), '/logout was never requested');
  t.equal(item.status, 'done', item.error ?? '');
  t.match(item.content, /Text of \/framed/);
});

t.test('redirects within the rules still read: a start URL to its language home, whatever allow says', async (t) => {
  for (const mode of ['browser', 'http']) {
    const { item, got } = await one('/home', mode, { allow: ['/docs/*'] });
    t.ok(got.includes('site.test/en/'), `${mode}: the redirect was followed`);
    t.equal(item.status, 'done', item.error ?? '');
    t.match(item.finalUrl, /\/en\/$/);
  }
});

t.test('collect on a crawl: a file whose address acts is not fetched with the profile\'s cookies', async (t) => {
  const { item, got } = await one('/files', 'browser', { collect: { documents: true } });
  t.equal(item.status, 'done', item.error ?? '');
  t.ok(got.includes('site.test/docs/report.pdf'), 'an ordinary file is fetched');
  t.notOk(got.includes('site.test/account/delete.pdf'), 'the file that acts is not');
  const file = item.files?.find((f) => f.url.endsWith('/account/delete.pdf'));
  t.equal(file?.status, 'failed');
  t.equal(file?.reason, 'blocked');
  t.match(whole(file), /looks like an action/);
});

t.test('browser_explore: a link that redirects to /logout, or a page that refreshes there, is not followed', async (t) => {
  const before = site.requests.length;
  const r = await d.rest(alice, 'POST', '/v1/tools/browser_explore', { url: `${base}/start`, maxPages: 5 });
  t.equal(r.status, 200, JSON.stringify(r.json));
  const got = reached(before);
  t.ok(got.includes('site.test/go/1') && got.includes('site.test/meta'), 'the links were read');
  t.notOk(got.includes('site.test/logout'), '/logout was never requested');
  const failed = r.json.map.failed as { url: string; error: string }[];
  t.match(failed.find((f) => f.url.endsWith('/go/1'))?.error, /the redirect from .*\/go\/1 to .*\/logout was not followed/);
  t.match(failed.find((f) => f.url.endsWith('/meta'))?.error, /the page went on to .*\/logout by itself/);
});

t.test('browser_map with useBrowser: a start page that redirects to an address that acts is refused', async (t) => {
  const before = site.requests.length;
  const r = await d.rest(alice, 'POST', '/v1/tools/browser_map', { url: `${base}/go/2`, useBrowser: true, sitemap: 'skip', feeds: 'skip' });
  t.equal(r.status, 403, JSON.stringify(r.json));
  t.match(r.json.error?.message ?? JSON.stringify(r.json), /the redirect from .*\/go\/2 to .*\/cart\/empty\?all=1 was not followed/);
  t.notOk(reached(before).includes('site.test/cart/empty'), '/cart/empty was never requested');
});
