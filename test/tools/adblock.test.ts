/**
 * block_ads: on a listed site, requests that Debian's EasyList / EasyPrivacy or our own list match never reach
 * the server (its request log is the proof), an @@ exception lets one through, and the rest load. The same page
 * on an unlisted site, or with block_ads empty, loads everything. The tab shows each blocked request as
 * blocked:ads and counts them in its log. The parsed lists are cached once and reused after a restart; a
 * missing list makes ad blocking unavailable, says why, and blocks nothing.
 */
import t from 'tap';
import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStack, type Stack } from '../fixtures/stack.js';
import { call } from '../fixtures/daemon.js';
import { ADS, EXCEPTED, NORMAL, arrived, routeAdSite, writeOwnList } from '../fixtures/ad-site.js';
import { DEBIAN_FILTER_LISTS } from '../../daemon/config.js';
import { cacheDir } from '../../daemon/adblock/engine-cache.js';
import { AdBlocker } from '../../daemon/adblock/service.js';
import pino from 'pino';

const listDir = mkdtempSync(join(tmpdir(), 'browserd-lists-'));
const ownList = writeOwnList(listDir);
const stack: Stack = await startStack({ filterLists: [...DEBIAN_FILTER_LISTS, ownList] });
t.teardown(async () => {
  await stack.stop();
  rmSync(listDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});
routeAdSite(stack.site);
const admin = await stack.d.daemon.env.users.replaceAdminKey();

async function setBlockAds(sites: string[], settle = true) {
  const r = await stack.d.rest(admin, 'PATCH', '/v1/admin/browser-settings', { block_ads: sites });
  if (r.status !== 200) throw new Error(JSON.stringify(r.json));
  if (settle) await stack.d.daemon.env.adblock.whenSettled();
}

/** Loads /ads-page on a site name in a new act tab; resolves after the page's load event reached the server. */
async function loadOn(host: string): Promise<{ tab: string; from: number }> {
  const from = stack.site.requests.length;
  const done = stack.site.waitFor((r) => r.path === `/ads-done?${host}`);
  const opened = await stack.rest('browser_open', { url: `http://${host}:${stack.site.port}/ads-page`, mode: 'act' });
  if (opened.status !== 200) throw new Error(JSON.stringify(opened.json));
  await done;
  return { tab: opened.json.tab, from };
}

/** Restarts the daemon with no tab open: a tab reopened at start would load its page again, on its own. */
async function restartWithoutTabs() {
  for (const tab of (await stack.rest('browser_tabs')).json.tabs as { id: string }[]) await stack.rest('browser_close_tab', { tab: tab.id });
  await stack.d.restart();
  await stack.d.daemon.env.adblock.whenSettled();
  stack.client = await stack.d.mcp(stack.token);
}

const logLinesMatching = (re: RegExp) => stack.d.logLines.filter((l) => re.test(l));
const settingsStatus = async () => (await stack.d.rest(stack.token, 'GET', '/v1/browser/settings')).json.adBlocking;

/** An act tab opened while block_ads was empty: it then held none of its requests. */
let openedBeforeBlockAds = '';

t.test('block_ads empty: nothing is loaded, and the page loads every request', async (t) => {
  t.same((await settingsStatus()).state, 'off');
  const { tab, from } = await loadOn('shop.test');
  openedBeforeBlockAds = tab;
  for (const r of [...ADS, ...EXCEPTED, ...NORMAL]) t.ok(arrived(stack.site.requests, r, from), `${r.host}${r.path} arrived (${r.why})`);
  t.equal(logLinesMatching(/ad blocking/).length, 0, 'the lists were not even read');
});

t.test('turned on, the lists still loading: the page loads at once and its ads wait for them, then never arrive', async (t) => {
  await setBlockAds(['shop.test'], false);
  const { from } = await loadOn('shop.test');
  for (const r of ADS) t.notOk(arrived(stack.site.requests, r, from), `${r.host}${r.path} held, then blocked (${r.why})`);
  for (const r of [...EXCEPTED, ...NORMAL]) t.ok(arrived(stack.site.requests, r, from), `${r.host}${r.path} arrived (${r.why})`);
  await stack.d.daemon.env.adblock.whenSettled();
});

t.test('on a listed site, ads and trackers never reach the server; exceptions and normal requests do', async (t) => {
  await setBlockAds(['shop.test']);
  const status = await settingsStatus();
  t.equal(status.state, 'ready', JSON.stringify(status));
  t.equal(status.source, 'parsed');
  t.same(status.lists, [...DEBIAN_FILTER_LISTS, ownList]);
  t.equal(logLinesMatching(/requests of block_ads sites wait/).length, 1, 'a log line says requests wait while the lists load');
  t.equal(logLinesMatching(/filter lists parsed/).length, 1);
  const { tab, from } = await loadOn('shop.test');
  for (const r of ADS) t.notOk(arrived(stack.site.requests, r, from), `${r.host}${r.path} blocked (${r.why})`);
  for (const r of [...EXCEPTED, ...NORMAL]) t.ok(arrived(stack.site.requests, r, from), `${r.host}${r.path} arrived (${r.why})`);

  const net = (await stack.rest('browser_network', { tab, failedOnly: true, limit: 300 })).json.responses as { url: string; failed?: string }[];
  for (const r of ADS) {
    const row = net.find((x) => x.url === `http://${r.host}:${stack.site.port}${r.path}`);
    t.equal(row?.failed, 'blocked:ads', `browser_network shows ${r.host}${r.path} as blocked:ads`);
  }
  t.equal(net.filter((x) => x.failed === 'blocked:ads').length, ADS.length, 'nothing else is marked blocked:ads');

  const log = (await stack.rest('browser_log', { tab })).json;
  t.equal(log.adsBlocked, ADS.length, 'browser_log counts every blocked request');
  const entries = log.entries.filter((e: { kind: string }) => e.kind === 'ads_blocked');
  t.equal(entries.length, 1, 'one log entry for the page, not one a request');
  t.equal(entries[0].count, ADS.length);
  t.equal(entries[0].url, `http://shop.test:${stack.site.port}/ads-page`);
  const text = (await call(stack.client, 'browser_log', { tab })).text;
  t.match(text, new RegExp(`${ADS.length} requests of ${tab} blocked as ads or trackers`));

  const status2 = (await call(stack.client, 'browser_status')).text;
  t.match(status2, /Ad blocking: on for the block_ads sites \(3 lists\)/);
});

t.test('one log entry for a page even when Chromium tells of its new document after the first ads', async (t) => {
  // Page.frameNavigated comes from the renderer and Fetch.requestPaused from the browser's network side, so the
  // first ads of a page can reach the daemon before the news of the page itself. This holds that news back
  // until one ad has been decided on, then lets it through.
  const conn = stack.d.daemon.env.pool.peek('alice')!.conn! as unknown as { onMessage(text: string): void };
  const deliver = conn.onMessage.bind(conn);
  const held: string[] = [];
  let releasedAfterAd = false;
  conn.onMessage = (text: string) => {
    const msg = JSON.parse(text) as { method?: string; params?: { frame?: { parentId?: string; url?: string }; request?: { url?: string } } };
    if (msg.method === 'Page.frameNavigated' && !msg.params?.frame?.parentId && msg.params?.frame?.url?.endsWith('/ads-page')) return void held.push(text);
    deliver(text);
    const adUrl = msg.method === 'Fetch.requestPaused' ? msg.params?.request?.url : undefined;
    if (held.length && adUrl && ADS.some((r) => adUrl.endsWith(r.path))) {
      releasedAfterAd = true;
      for (const h of held.splice(0)) deliver(h);
    }
  };
  try {
    const { tab } = await loadOn('shop.test');
    t.ok(releasedAfterAd, 'the page\'s frameNavigated reached the tab after one of its ads');
    const log = (await stack.rest('browser_log', { tab })).json;
    const entries = log.entries.filter((e: { kind: string }) => e.kind === 'ads_blocked');
    t.equal(entries.length, 1, 'still one log entry for the page');
    t.equal(entries[0]?.count, ADS.length);
    t.equal(entries[0]?.url, `http://shop.test:${stack.site.port}/ads-page`);
  } finally {
    delete (conn as { onMessage?: unknown }).onMessage;
  }
});

t.test('a tab opened before block_ads named its site is filtered from its next page on', async (t) => {
  const from = stack.site.requests.length;
  const done = stack.site.waitFor((r) => r.path === '/ads-done?shop.test', 10000);
  const nav = await stack.rest('browser_navigate', { tab: openedBeforeBlockAds, url: `http://shop.test:${stack.site.port}/ads-page` });
  t.equal(nav.status, 200, JSON.stringify(nav.json));
  await done;
  for (const r of ADS) t.notOk(arrived(stack.site.requests, r, from), `${r.host}${r.path} blocked (${r.why})`);
  for (const r of NORMAL) t.ok(arrived(stack.site.requests, r, from), `${r.host}${r.path} arrived (${r.why})`);
});

t.test('a read tab on a listed site is filtered the same way', async (t) => {
  const from = stack.site.requests.length;
  const done = stack.site.waitFor((r) => r.path === '/ads-done?shop.test');
  const opened = await stack.rest('browser_open', { url: `http://shop.test:${stack.site.port}/ads-page`, mode: 'read' });
  t.equal(opened.status, 200);
  // A read tab sends no write, and the page's GET /ads-done is no write: it arrives.
  await done;
  for (const r of ADS) t.notOk(arrived(stack.site.requests, r, from), `${r.host}${r.path} blocked`);
  for (const r of NORMAL) t.ok(arrived(stack.site.requests, r, from), `${r.host}${r.path} arrived`);
});

t.test('the same page on a site block_ads does not list loads everything', async (t) => {
  const { tab, from } = await loadOn('blog.test');
  for (const r of [...ADS, ...NORMAL]) t.ok(arrived(stack.site.requests, r, from), `${r.host}${r.path} arrived on an unlisted site`);
  t.equal((await stack.rest('browser_log', { tab })).json.adsBlocked, 0);
});

t.test('a pattern lists subdomains: *.shop.test blocks on www.shop.test', async (t) => {
  await setBlockAds(['*.shop.test']);
  const { from } = await loadOn('www.shop.test');
  for (const r of ADS) t.notOk(arrived(stack.site.requests, r, from), `${r.host}${r.path} blocked`);
  const other = await loadOn('shop.test');
  t.ok(ADS.some((r) => arrived(stack.site.requests, r, other.from)), 'shop.test itself is not under *.shop.test');
});

t.test('block_ads set back to empty: everything loads again', async (t) => {
  await setBlockAds([]);
  t.equal((await settingsStatus()).state, 'off');
  const { from } = await loadOn('shop.test');
  for (const r of [...ADS, ...NORMAL]) t.ok(arrived(stack.site.requests, r, from), `${r.host}${r.path} arrived`);
});

t.test('while the lists load, requests of listed sites wait and the state says so', async (t) => {
  // An engine of our list alone, in a data dir of its own: the daemon's settings list shop.test here.
  const dataDir = mkdtempSync(join(tmpdir(), 'browserd-adblock-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
  await setBlockAds(['shop.test']);
  const env = stack.d.daemon.env;
  const blocker = new AdBlocker({ dataDir, lists: [ownList], log: pino({ level: 'silent' }), settings: env.browserSettings });
  const ad = { url: 'http://tracker.test/t.js', pageUrl: 'http://shop.test/', resourceType: 'Script' };
  blocker.start();
  t.equal(blocker.status().state, 'loading');
  const held = blocker.blocks(ad);
  t.ok(held instanceof Promise, 'not ready: the request waits for the lists instead of passing');
  t.equal(blocker.blocks({ ...ad, pageUrl: 'http://blog.test/' }), undefined, 'a page of an unlisted site does not wait');
  t.match(await held, { filter: /tracker\.test/ }, 'and is blocked once they are ready');
  await blocker.whenSettled();
  t.equal(blocker.status().state, 'ready');
  t.match(blocker.blocks(ad), { filter: /tracker\.test/ }, 'ready: the same request is blocked');
  t.equal(blocker.blocks({ ...ad, pageUrl: 'http://blog.test/' }), undefined, 'not on an unlisted site');
  await blocker.close();
  await setBlockAds([]);
});

t.test('a parse that overruns its deadline is stopped: the held requests go on and the state says why', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'browserd-adblock-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
  await setBlockAds(['shop.test']);
  const env = stack.d.daemon.env;
  // A deadline no parse can meet (a thread takes longer than a millisecond just to start).
  const blocker = new AdBlocker({ dataDir, lists: [ownList], log: pino({ level: 'silent' }), settings: env.browserSettings, parseDeadlineMs: 1 });
  blocker.start();
  const held = blocker.blocks({ url: 'http://tracker.test/t.js', pageUrl: 'http://shop.test/', resourceType: 'Script' });
  t.ok(held instanceof Promise, 'the request waits while the lists load');
  t.equal(await held, undefined, 'once the parse is stopped the request goes on: a held request never waits without end');
  const status = blocker.status();
  t.equal(status.state, 'unavailable');
  t.match((status as { reason: string }).reason, /longer than .* and was stopped/);
  await blocker.close();
  await setBlockAds([]);
});

t.test('the parsed lists are cached once and loaded from the cache after a restart', async (t) => {
  const files = () => readdirSync(cacheDir(stack.d.dataDir));
  const cached = files();
  t.equal(cached.length, 1, 'one cache file');
  const path = join(cacheDir(stack.d.dataDir), cached[0]);
  const before = statSync(path).mtimeMs;
  await setBlockAds(['shop.test']);
  await restartWithoutTabs();
  const status = await settingsStatus();
  t.equal(status.state, 'ready');
  t.equal(status.source, 'cache', 'the restarted daemon did not parse');
  t.equal(logLinesMatching(/filter lists parsed/).length, 1, 'still only the first start parsed');
  t.equal(logLinesMatching(/loaded from the cache/).length, 1);
  t.equal(statSync(path).mtimeMs, before, 'the cache file was not rewritten');
  t.same(files(), cached);
  const { from } = await loadOn('shop.test');
  for (const r of ADS) t.notOk(arrived(stack.site.requests, r, from), `${r.host}${r.path} still blocked after the restart`);
});

t.test('a changed list is parsed again; a missing one makes ad blocking unavailable and blocks nothing', async (t) => {
  writeOwnListChanged();
  await restartWithoutTabs();
  t.equal((await settingsStatus()).source, 'parsed', 'the edited list was parsed, not read from the old cache');
  t.equal(logLinesMatching(/filter lists parsed/).length, 2);

  rmSync(ownList);
  await restartWithoutTabs();
  const status = await settingsStatus();
  t.equal(status.state, 'unavailable');
  t.match(status.reason, /filter list missing: .*own-list\.txt/);
  t.match(status.next, /BROWSERD_FILTER_LISTS/);
  t.ok(logLinesMatching(/"level":50.*ad blocking unavailable: filter list missing/).length, 'an error line in the log');
  t.match((await call(stack.client, 'browser_status')).text, /Ad blocking: unavailable: filter list missing/);
  const { from } = await loadOn('shop.test');
  for (const r of [...ADS, ...NORMAL]) t.ok(arrived(stack.site.requests, r, from), `${r.host}${r.path} arrived`);
});

/** Rewrites our list with a later mtime: a list of the same size and mtime would read as unchanged. */
function writeOwnListChanged() {
  writeOwnList(listDir);
  const later = new Date(Date.now() + 5000);
  utimesSync(ownList, later, later);
}
