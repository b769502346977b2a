/**
 * The persistent identity, as a page and its server see it: the same in two tabs, in an out-of-process iframe
 * of another site and after a daemon restart; different for another user; request headers that agree with
 * navigator; never "Headless"; native where it does not apply (profile_enabled false, a site outside the
 * pattern list, and a tab that moves there); an admin's override shows in the next document.
 */
import t from 'tap';
import { cpus } from 'node:os';
import { startTestDaemon, call, refOf, type TestDaemon } from '../fixtures/daemon.js';
import { startIdentitySite, type IdentitySite } from '../fixtures/identity-site.js';

let d: TestDaemon;
let site: IdentitySite;
let admin: string;
let alice: string;
let bob: string;

t.before(async () => {
  site = await startIdentitySite();
  d = await startTestDaemon({ chromeArgs: site.chromeArgs() });
  admin = await d.daemon.env.users.replaceAdminKey();
  alice = await d.addUser('alice');
  bob = await d.addUser('bob');
});
t.teardown(async () => {
  await d.stop();
  await site.close();
});

const tabId = (text: string) => /Opened tab (t\d+)/.exec(text)![1]!;
const settings = (patch: unknown) => d.rest(admin, 'PATCH', '/v1/admin/browser-settings', patch);
const identityOf = async (token: string) => (await d.rest(token, 'GET', '/v1/browser/settings')).json.identity;

/** Opens a page in an act tab (it posts its report) and answers the report and the tab id. */
async function load(token: string, url: string, tag: string): Promise<{ report: any; tab: string }> {
  site.forget(tag);
  const client = await d.mcp(token);
  const opened = await call(client, 'browser_open', { url: `${url}${url.includes('?') ? '&' : '?'}tag=${tag}`, mode: 'act' });
  if (opened.isError) throw new Error(opened.text);
  return { report: await site.report(tag), tab: tabId(opened.text) };
}

/** The values an identity decides, from a page report. */
const shown = (r: any) => ({
  userAgent: r.userAgent,
  platform: r.platform,
  hardwareConcurrency: r.hardwareConcurrency,
  deviceMemory: r.deviceMemory,
  languages: r.languages,
  webdriver: r.webdriver,
  uaData: r.uaData,
  screen: r.screen,
  webgl: r.webgl,
  webgl2: r.webgl2,
});

const brandHeader = (list: { brand: string; version: string }[]) => list.map((b) => `"${b.brand}";v="${b.version}"`).join(', ');

t.test('on for listed sites: the identity the user reads is what pages, frames and servers see', async (t) => {
  t.equal((await settings({ profile_enabled: ['site.test', 'frame.test'] })).status, 200);
  const id = await identityOf(alice);
  t.same(id.enabled, ['site.test', 'frame.test']);
  t.type(id.hardwareConcurrency, 'number');

  const one = await load(alice, `${site.origin('site')}/page?frame=frame`, 'a1');
  const frame = await site.report('a1-frame');
  const two = await load(alice, `${site.origin('site')}/page`, 'a2');
  const r = one.report;

  t.notMatch(r.userAgent, /Headless/, 'no Headless in navigator.userAgent');
  t.match(r.userAgent, /Chrome\/\d+\.0\.0\.0 Safari\/537\.36$/);
  t.equal(r.webdriver, false);
  t.notOk(r.navigatorOwn.includes('webdriver'), 'webdriver is not an own property of navigator');
  t.equal(r.platform, id.platform);
  t.equal(r.hardwareConcurrency, id.hardwareConcurrency);
  t.equal(r.deviceMemory, id.deviceMemory);
  t.same(r.languages, ['en-US', 'en']);
  t.same(r.screen, { width: id.screen.width, height: id.screen.height, availWidth: id.screen.availWidth, availHeight: id.screen.availHeight, colorDepth: id.screen.colorDepth, pixelDepth: id.screen.colorDepth });
  t.ok(r.screen.availHeight < r.screen.height, 'the OS keeps part of the screen');
  t.equal(r.uaData.platform, id.userAgentMetadata.platform);
  t.equal(r.uaData.high.platformVersion, id.userAgentMetadata.platformVersion);
  t.equal(r.uaData.high.architecture, id.userAgentMetadata.architecture);
  t.ok(r.uaData.brands.some((b: any) => b.brand === 'Chromium' && r.userAgent.includes(`Chrome/${b.version}.0.0.0`)), 'brands carry the real major version');
  const full = r.uaData.high.fullVersionList.find((b: any) => b.brand === 'Chromium').version;
  t.equal(d.daemon.env.pool.peek('alice')!.version!.endsWith(full), true, 'full version is the real build');
  if (r.webgl && !r.webgl.noExtension) {
    t.same(r.webgl, id.webgl, 'WebGL 1 strings');
    if (r.webgl2) t.same(r.webgl2, id.webgl, 'WebGL 2 strings');
  } else t.fail(`WebGL is not available in this Chromium: ${JSON.stringify(r.webgl)}`);
  t.equal(r.sources.webdriver, 'function get webdriver() { [native code] }');
  t.equal(r.sources.languages, 'function get languages() { [native code] }');
  t.equal(r.sources.screenWidth, 'function get width() { [native code] }');
  t.equal(r.sources.getParameter, 'function getParameter() { [native code] }');
  t.equal(r.sources.toString, 'function toString() { [native code] }');
  t.equal(r.illegalInvocation, 'TypeError', 'a getter called on the wrong object still throws');

  t.same(shown(two.report), shown(r), 'the same in a second tab');
  t.same(shown(frame), shown(r), 'the same in an out-of-process iframe of another site');

  // A popup is a target of its own, attached as it opens: it shows the identity before its scripts run.
  const withPopup = await load(alice, `${site.origin('site')}/page?popup=1`, 'a3');
  const client = await d.mcp(alice);
  const snap = await call(client, 'browser_snapshot', { tab: withPopup.tab });
  const clicked = await call(client, 'browser_click', { tab: withPopup.tab, ref: refOf(snap.text, /link "popup"/) });
  t.notOk(clicked.isError, clicked.text);
  t.same(shown(await site.report('a3-popup')), shown(r), 'the same in a popup the page opened');

  // The server saw what the page saw: the document request and a later one (with the high-entropy hints asked for).
  for (const tag of ['a1', 'a1-frame']) {
    const reqs = site.requests(tag);
    const doc = reqs.find((q) => q.path === '/page')!;
    const later = reqs.find((q) => q.path === '/report')!;
    for (const h of [doc.headers, later.headers]) {
      t.equal(h['user-agent'], r.userAgent, `${tag}: User-Agent agrees with navigator`);
      t.match(h['accept-language'], /^en-US,en/);
      t.equal(h['sec-ch-ua'], brandHeader(r.uaData.brands), `${tag}: Sec-CH-UA agrees with userAgentData`);
      t.equal(h['sec-ch-ua-platform'], `"${r.uaData.platform}"`);
      t.equal(h['sec-ch-ua-mobile'], '?0');
    }
  }
  // High-entropy hints go where the site asked for them (Accept-CH), to its own origin only (not to a third-party frame).
  const later = site.requests('a1').find((q) => q.path === '/report')!.headers;
  t.equal(later['sec-ch-ua-platform-version'], `"${r.uaData.high.platformVersion}"`);
  t.equal(later['sec-ch-ua-arch'], `"${r.uaData.high.architecture}"`);
  t.equal(later['sec-ch-ua-full-version-list'], brandHeader(r.uaData.high.fullVersionList));

  const status = await call(await d.mcp(alice), 'browser_status');
  t.match(status.text, new RegExp(`Identity: ${id.platform.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  t.same(status.raw.structuredContent?.status?.identity ?? id, id, 'browser_status shows the same identity');
});

t.test('another user of the host has another identity', async (t) => {
  const a = await identityOf(alice);
  const b = await identityOf(bob);
  const key = (x: any) => JSON.stringify([x.hardwareConcurrency, x.deviceMemory, x.screen, x.webgl, x.platform, x.userAgentMetadata]);
  t.not(key(b), key(a));
  const page = (await load(bob, `${site.origin('site')}/page`, 'b1')).report;
  t.equal(page.hardwareConcurrency, b.hardwareConcurrency);
  t.same(page.webgl, b.webgl);
  t.equal(page.platform, b.platform);
});

t.test('native on a site outside the list, also when a tab goes there by navigation or by a link', async (t) => {
  const other = (await load(alice, `${site.origin('other')}/page`, 'n1')).report;
  t.match(other.userAgent, /HeadlessChrome/, "the browser's own user agent");
  t.equal(other.webdriver, true, "the browser's own webdriver flag");
  t.equal(other.hardwareConcurrency, cpus().length);
  t.equal(other.sources.webdriver, 'function get webdriver() { [native code] }');
  const doc = site.requests('n1').find((q) => q.path === '/page')!;
  t.equal(doc.headers['user-agent'], other.userAgent);

  // A tab that showed the identity, then navigated elsewhere by the agent: nothing left behind.
  const on = await load(alice, `${site.origin('site')}/page?link=${encodeURIComponent(`${site.origin('other')}/page?tag=n3`)}`, 'n2');
  t.notMatch(on.report.userAgent, /Headless/);
  const client = await d.mcp(alice);
  site.forget('n4');
  await call(client, 'browser_navigate', { tab: on.tab, url: `${site.origin('other')}/page?tag=n4` });
  const navigated = await site.report('n4');
  t.same(shown(navigated), shown(other), 'native after browser_navigate');
  t.equal(site.requests('n4')[0]!.headers['user-agent'], other.userAgent);

  // By a link the page follows itself (decided in the document request's pause): the server sees native headers.
  await call(client, 'browser_navigate', { tab: on.tab, url: `${site.origin('site')}/page?tag=n5&link=${encodeURIComponent(`${site.origin('other')}/page?tag=n3`)}` });
  t.notMatch((await site.report('n5')).userAgent, /Headless/);
  const snap = (await call(client, 'browser_snapshot', { tab: on.tab })).text;
  const ref = /link "next" \[ref=(e\d+)\]/.exec(snap)![1];
  await call(client, 'browser_click', { tab: on.tab, ref });
  const linked = await site.report('n3');
  const linkedDoc = site.requests('n3').find((q) => q.path === '/page')!;
  t.equal(linkedDoc.headers['user-agent'], other.userAgent, 'document request rewritten to native');
  t.equal(linkedDoc.headers['sec-ch-ua'], brandHeader(other.uaData.brands));
  t.equal(linked.webdriver, true);
  t.same(linked.screen, other.screen);
  t.same(linked.webgl, other.webgl);
});

t.test("an admin's override shows in the next document", async (t) => {
  const webgl = { vendor: 'Google Inc. (Test)', renderer: 'ANGLE (Test, Test GPU Direct3D11 vs_5_0 ps_5_0, D3D11)' };
  t.equal((await settings({ profile: { hardwareConcurrency: 3, webgl, screen: { width: 1234, height: 777 }, userAgentMetadata: { platformVersion: '99.1.0' } } })).status, 200);
  const id = await identityOf(alice);
  t.equal(id.hardwareConcurrency, 3);
  t.same(id.webgl, webgl);
  const r = (await load(alice, `${site.origin('site')}/page`, 'o1')).report;
  t.equal(r.hardwareConcurrency, 3);
  t.same(r.webgl, webgl);
  t.equal(r.screen.width, 1234);
  t.equal(r.screen.height, 777);
  t.equal(r.uaData.high.platformVersion, '99.1.0');
  t.equal(site.requests('o1').find((q) => q.path === '/report')!.headers['sec-ch-ua-platform-version'], '"99.1.0"');
  t.equal((await settings({ profile: null })).status, 200);
});

t.test('stable across a daemon restart (the reopened tab too)', async (t) => {
  const before = await identityOf(alice);
  const first = await load(alice, `${site.origin('site')}/page`, 'r1');
  site.forget('r1');
  await d.restart();
  t.same(await identityOf(alice), before, 'the same identity read back');
  // The tab comes back at its URL when the browser starts again; the page reports once more.
  await call(await d.mcp(alice), 'browser_tabs');
  await d.daemon.env.pool.get('alice');
  const again = await site.report('r1');
  t.same(shown(again), shown(first.report));
});

t.test('off: every document native, the identity reads as nulls', async (t) => {
  t.equal((await settings({ profile_enabled: false })).status, 200);
  const id = await identityOf(alice);
  t.equal(id.enabled, false);
  t.equal(id.hardwareConcurrency, null);
  t.equal(id.webgl, null);
  const r = (await load(alice, `${site.origin('site')}/page`, 'f1')).report;
  t.match(r.userAgent, /HeadlessChrome/);
  t.equal(r.webdriver, true);
  t.equal(r.hardwareConcurrency, cpus().length);
  t.equal(site.requests('f1')[0]!.headers['user-agent'], r.userAgent);
});
