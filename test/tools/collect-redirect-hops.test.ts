/**
 * collect fetches files with the user's cookies on its own initiative, so every redirect hop of a file is
 * judged like the file's own address BEFORE it is requested: a harmless-looking `/f/a.pdf` answering 301, 302
 * or 307 (absolute or relative Location, or a chain of two hops) to an address that acts, signs out, or that
 * the network guard refuses (the daemon's own port, another loopback port not allowed) is never requested, and
 * the file is listed as failed/blocked with a reason naming the redirect. A benign redirect (file.pdf to
 * file-v2.pdf) is still followed and stored. The fixture site counts every request it gets, server side.
 * Tried through browser_read (urls and tab) and a browser crawl.
 */
import t, { type Test } from 'tap';
import { startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { html, startSite, type FixtureSite } from '../fixtures/site.js';
import { makePdf } from '../fixtures/documents.js';
import type { CrawlItem } from '../../daemon/crawl/types.js';

let d: TestDaemon;
let site: FixtureSite;
let victim: FixtureSite;
let alice: string;

/** The paths no request may ever reach (query dropped). */
const NEVER = ['/account/delete', '/account/remove.pdf', '/cart/empty', '/account/cancel', '/logout'];
const redirect = (status: number, to: () => string) => (_q: unknown, res: import('node:http').ServerResponse) => void res.writeHead(status, { location: to() }).end();

t.before(async () => {
  site = await startSite();
  victim = await startSite('127.0.0.1');
  // The guard on: only the fixture site's own address:port may be reached, as an admin allows an intranet app.
  d = await startTestDaemon({ allowPrivateNetwork: false, allowTargets: [`127.0.0.1:${site.port}`] });
  alice = await d.addUser('alice');
  const pdf = await makePdf([['Version two of the file']]);
  const serve = (_q: unknown, res: import('node:http').ServerResponse) => void res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf);
  for (const p of NEVER) site.route(p, serve);
  victim.route('/secret.pdf', serve);
  site.route('/f/302.pdf', redirect(302, () => '/account/delete?id=1'));
  site.route('/f/301.pdf', redirect(301, () => '/account/remove.pdf'));
  site.route('/f/307.pdf', redirect(307, () => `${site.url}/cart/empty?all=1`));
  site.route('/f/chain.pdf', redirect(302, () => 'mid.pdf'));
  site.route('/f/mid.pdf', redirect(302, () => '../account/cancel?x=1'));
  site.route('/f/out.pdf', redirect(302, () => '/logout'));
  site.route('/f/daemon.pdf', redirect(302, () => `http://127.0.0.1:${new URL(d.url).port}/v1/health`));
  site.route('/f/victim.pdf', redirect(302, () => `http://127.0.0.1:${victim.port}/secret.pdf`));
  site.route('/f/file.pdf', redirect(302, () => '/files/file-v2.pdf'));
  site.route('/files/file-v2.pdf', serve);
  const links = ['302', '301', '307', 'chain', 'out', 'daemon', 'victim', 'file'].map((n) => `<a href="/f/${n}.pdf">File ${n}</a>`).join(' ');
  site.route('/files', html(`<h1>Files</h1><p>Some files.</p>${links}`));
});
t.teardown(async () => {
  await d.stop();
  await site.close();
  await victim.close();
});

const paths = (from: number) => site.requests.slice(from).map((r) => r.path.split('?')[0]!);

interface Entry { url: string; status: string; reason?: string; error?: string; name?: string }

function checkEntries(t: Test, files: Entry[], got: string[]) {
  for (const p of NEVER) t.notOk(got.includes(p), `${p} was never requested`);
  t.same(victim.requests, [], 'the loopback port the guard refuses saw nothing');
  const by = (n: string) => files.find((f) => f.url.endsWith(`/f/${n}.pdf`));
  for (const [n, to, why] of [
    ['302', '/account/delete?id=1', /looks like an action/],
    ['301', '/account/remove.pdf', /looks like an action/],
    ['307', '/cart/empty?all=1', /looks like an action/],
    ['out', '/logout', /sign-out/],
    ['daemon', '/v1/health', /loopback address, which pages may not reach|the daemon's own/],
    ['victim', '/secret.pdf', /loopback address, which pages may not reach/],
  ] as const) {
    const f = by(n);
    t.equal(f?.status, 'failed', `${n}: failed`);
    t.equal(f?.reason, 'blocked', `${n}: blocked`);
    t.match(f?.error, new RegExp(`the redirect from ${site.url}/f/${n}\\.pdf to http://127\\.0\\.0\\.1:\\d+${to.replace(/[?.]/g, '\\$&')} was not followed`), `${n}: the reason names the hop`);
    t.match(f?.error, why, `${n}: and why`);
  }
  const chain = by('chain');
  t.equal(chain?.reason, 'blocked', 'a chain of two hops: blocked');
  t.ok(got.includes('/f/mid.pdf'), 'the chain\'s harmless first hop was followed');
  t.match(chain?.error, new RegExp(`the redirect from ${site.url}/f/mid\\.pdf to ${site.url}/account/cancel\\?x=1 was not followed: .*looks like an action`), 'the relative Location is judged resolved');
  const benign = by('file');
  t.equal(benign?.status === 'stored' || benign?.status === 'existing', true, `a benign redirect is followed: ${JSON.stringify(benign)}`);
  t.ok(got.includes('/files/file-v2.pdf'), 'file-v2.pdf was fetched');
}

t.test('browser_read collect (urls): no redirect hop of a file that acts is requested', async (t) => {
  const before = site.requests.length;
  const r = await d.rest(alice, 'POST', '/v1/tools/browser_read', { urls: [`${site.url}/files`], collect: { documents: true } });
  t.equal(r.status, 200, JSON.stringify(r.json).slice(0, 400));
  checkEntries(t, r.json.pages[0].files, paths(before));
});

t.test('browser_read collect (an open read tab): the same', async (t) => {
  const tab = (await d.rest(alice, 'POST', '/v1/tools/browser_open', { url: `${site.url}/files` })).json.tab;
  const before = site.requests.length;
  const r = await d.rest(alice, 'POST', '/v1/tools/browser_read', { tab, collect: {} });
  t.equal(r.status, 200, JSON.stringify(r.json).slice(0, 400));
  checkEntries(t, r.json.pages[0].files, paths(before));
});

t.test('a browser crawl with collect: the same', async (t) => {
  const before = site.requests.length;
  const r = await d.rest(alice, 'POST', '/v1/tools/browser_crawl', { startUrls: [`${site.url}/files`], mode: 'browser', maxDepth: 0, maxPages: 1, delayMs: 0, collect: { documents: true } });
  t.equal(r.status, 200, JSON.stringify(r.json));
  const info = await d.daemon.features.crawls.waitWhileRunning('alice', r.json.id, 120_000);
  t.not(info.state, 'running');
  const [item] = [...d.daemon.features.crawls.iterateItems('alice', r.json.id)] as CrawlItem[];
  t.equal(item?.status, 'done', item?.error ?? '');
  checkEntries(t, (item?.files ?? []) as Entry[], paths(before));
});
