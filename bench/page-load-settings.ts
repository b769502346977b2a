/**
 * What the host-wide browser settings cost a page load: block_ads and the persistent identity (profile_enabled),
 * each on against everything off, side by side in one daemon, one browser, one tab. Each round loads the page
 * once per setup, in turn, so a slow moment of the machine falls on all of them alike. The page is on a loopback
 * site with 40 sub-resources (scripts, stylesheets, images, a fetch; half from another site), none of which a
 * list matches: the ad-blocking side pays every match and blocks nothing, its worst case. A second page has 10
 * of its 40 from URLs EasyList and EasyPrivacy match, to show what blocking them saves.
 * The number is the page's own load time (navigation timing, loadEventEnd). Sub-resources are served no-store
 * so every load asks for all 40.
 * Then the lists themselves: parse time on a cold start (on the daemon's parse thread, and the whole load), a
 * warm start's load from the serialized cache, and the engine's memory (heap and array buffers it holds).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import pino from 'pino';
import { FiltersEngine, Request } from '@ghostery/adblocker';
import { startTestDaemon } from '../test/fixtures/daemon.js';
import { startSite, html, type FixtureSite } from '../test/fixtures/site.js';
import { AdBlocker } from '../daemon/adblock/service.js';
import { cacheDir } from '../daemon/adblock/engine-cache.js';
import { findLists } from '../daemon/adblock/lists.js';
import { DEBIAN_FILTER_LISTS } from '../daemon/config.js';
import type { BrowserSettingsService } from '../daemon/settings/service.js';
import { inProcessCaller, median, p90, printTable } from './lib.js';

const ROUNDS = 30;
const SUBRESOURCES = 40;
const LOAD_TIME = `(() => { const n = performance.getEntriesByType('navigation')[0]; return n ? n.loadEventEnd : -1; })()`;

type Setup = { name: string; patch: Record<string, unknown> };
const SETUPS: Setup[] = [
  { name: 'all off', patch: { block_ads: [], profile_enabled: false } },
  { name: 'block_ads on', patch: { block_ads: ['shop.test'], profile_enabled: false } },
  { name: 'identity on', patch: { block_ads: [], profile_enabled: true } },
];

/** The 40: a quarter each scripts, stylesheets and images, the rest more images and fetches; every other one from cdn.test. */
function subresources(port: number, ads: number): string[] {
  const tags: string[] = [];
  for (let i = 0; i < SUBRESOURCES; i++) {
    const origin = i % 2 ? `http://cdn.test:${port}` : '';
    if (i < ads) {
      // Paths real EasyList / EasyPrivacy rules match (/ads/banners/*$image, /beacon.gif?).
      tags.push(i % 2 ? `<img src="${origin}/ads/banners/b${i}.png" alt="">` : `<img src="${origin}/beacon.gif?i=${i}" alt="">`);
      continue;
    }
    const kind = i % 4;
    if (kind === 0) tags.push(`<script src="${origin}/lib/s${i}.js"></script>`);
    else if (kind === 1) tags.push(`<link rel="stylesheet" href="${origin}/css/c${i}.css">`);
    else if (kind === 2) tags.push(`<img src="${origin}/img/i${i}.png" alt="">`);
    else tags.push(`<script>fetch('${origin}/api/item/${i}.json').then((r) => r.text())</script>`);
  }
  return tags;
}

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

function routePages(site: FixtureSite) {
  site.route('/page40', html(`<h1>Shop</h1>${subresources(site.port, 0).join('\n')}`, '', 'Shop'));
  site.route('/page40-ads', html(`<h1>Shop</h1>${subresources(site.port, 10).join('\n')}`, '', 'Shop'));
  const body: Record<string, [string, string | Buffer]> = { js: ['text/javascript', 'window.__n = (window.__n || 0) + 1;'], css: ['text/css', 'h1 { margin: 0 }'], png: ['image/png', PNG], json: ['application/json', '{"ok":true}'] };
  const serve = (ext: string) => (_req: unknown, res: import('node:http').ServerResponse) => {
    const [type, content] = body[ext];
    res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store', 'access-control-allow-origin': '*' }).end(content);
  };
  for (let i = 0; i < SUBRESOURCES; i++) {
    site.route(`/lib/s${i}.js`, serve('js'));
    site.route(`/css/c${i}.css`, serve('css'));
    site.route(`/img/i${i}.png`, serve('png'));
    site.route(`/api/item/${i}.json`, serve('json'));
    site.route(`/ads/banners/b${i}.png`, serve('png'));
  }
  site.route('/beacon.gif', serve('png'));
  site.route('/favicon.ico', (_req, res) => res.writeHead(204).end());
}

/** A collected heap, for memory deltas: --expose-gc set at run time, so `npm run bench` needs no flag. */
function collect(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** The engine being measured, referenced from outside the function so the GC after deserializing keeps it. */
let held: FiltersEngine | undefined;

/** The lists' cost outside any page: a cold parse, a warm load from the cache, and what the engine holds. */
async function listCosts(lists: readonly string[]) {
  const dataDir = mkdtempSync(join(tmpdir(), 'browserd-bench-lists-'));
  const settings = { current: () => ({ block_ads: ['x.test'] }), onChange: () => () => undefined, blocksAdsOn: () => true } as unknown as BrowserSettingsService;
  const log = pino({ level: 'silent' });
  try {
    // Each load's engine is dropped with its function, so none is left for the GC to free during the memory measure.
    const loadOnce = async () => {
      const blocker = new AdBlocker({ dataDir, lists, log, settings });
      blocker.start();
      await blocker.whenSettled();
      return blocker.status();
    };
    const coldStatus = await loadOnce();
    const warmStatus = await loadOnce();
    // The engine alone, as the daemon holds it: the cache bytes (the engine reads its index from them in place)
    // and what deserializing and a first few matches build on the heap.
    const file = join(cacheDir(dataDir), readdirSync(cacheDir(dataDir))[0]);
    collect();
    collect();
    const before = process.memoryUsage();
    held = FiltersEngine.deserialize(new Uint8Array(readFileSync(file)));
    for (const url of ['http://cdn.test/app.js', 'http://cdn.test/ads/banners/a.png', 'http://cdn.test/beacon.gif?x']) held.match(Request.fromRawDetails({ url, sourceUrl: 'http://shop.test/', type: 'image' }));
    collect();
    const after = process.memoryUsage();
    const cacheBytes = statSync(file).size;
    held = undefined;
    const files = findLists(lists);
    return {
      coldMs: coldStatus.state === 'ready' ? coldStatus.loadMs : NaN,
      warmMs: warmStatus.state === 'ready' && warmStatus.source === 'cache' ? warmStatus.loadMs : NaN,
      listBytes: files.ok ? files.files.reduce((n, f) => n + f.size, 0) : 0,
      cacheBytes,
      heapDelta: after.heapUsed - before.heapUsed,
      arrayBuffersDelta: after.arrayBuffers - before.arrayBuffers,
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  // First, in a process with no daemon yet, so the memory deltas are the engine's alone.
  const lists = DEBIAN_FILTER_LISTS;
  const cold = await listCosts(lists);
  const site = await startSite();
  routePages(site);
  const times = new Map<string, Map<string, number[]>>();
  let parseLine = '';
  try {
    const d = await startTestDaemon();
    try {
      const env = d.daemon.env;
      const tool = await inProcessCaller(d);
      // The engine loads once, before the first measured round (a cold parse, timed again below on its own).
      await env.browserSettings.update({ block_ads: ['shop.test'] });
      await env.adblock.whenSettled();
      const s = env.adblock.status();
      if (s.state !== 'ready') throw new Error(`ad blocking is ${s.state}: ${JSON.stringify(s)}`);
      parseLine = `in the daemon: lists ${s.source} in ${s.loadMs} ms, off the main thread; requests passed meanwhile`;
      const opened = await tool('browser_open', { url: `http://shop.test:${site.port}/page40`, mode: 'act' });
      const tab = String(opened.renderJson().tab);
      for (const page of ['/page40', '/page40-ads']) {
        const perSetup = new Map(SETUPS.map((x) => [x.name, [] as number[]]));
        times.set(page, perSetup);
        for (let round = 0; round <= ROUNDS; round++) {
          // The order turns each round, so no setup always comes first after the page changed.
          for (const setup of [...SETUPS.slice(round % SETUPS.length), ...SETUPS.slice(0, round % SETUPS.length)]) {
            await env.browserSettings.update(setup.patch);
            await tool('browser_navigate', { tab, url: `http://shop.test:${site.port}${page}?r=${round}` });
            const out = await tool('browser_evaluate', { tab, js: LOAD_TIME });
            const ms = Number(/(-?[\d.]+)\s*<<<end [0-9a-f]/.exec(String(out.renderJson().text))?.[1]);
            // Round 0 warms every setup up and is not counted.
            if (round > 0) perSetup.get(setup.name)!.push(ms);
          }
        }
      }
      await tool('browser_close_tab', { tab });
      await env.browserSettings.update({ block_ads: [], profile_enabled: false });
    } finally {
      await d.stop();
    }
  } finally {
    await site.close();
  }

  const rows: string[][] = [];
  for (const [page, perSetup] of times) {
    const off = median(perSetup.get('all off')!);
    for (const [name, xs] of perSetup) rows.push([page, name, `${median(xs).toFixed(1)} ms`, `${p90(xs).toFixed(1)} ms`, `${(median(xs) / off).toFixed(2)}x`]);
  }
  printTable(`Page load with the browser settings (${SUBRESOURCES} sub-resources, in-page loadEventEnd)`, ['page', 'setup', 'median', 'p90', 'vs all off'], rows, [
    `${ROUNDS} rounds after one warm-up; each round loads the page once per setup, in an order that turns each round, in one tab of one browser. Goal: <= 1.10x of all off.`,
    '/page40: no sub-resource matches a list (block_ads pays every match, blocks nothing). /page40-ads: 10 of the 40 match and are blocked.',
    'identity on: profile_enabled true; it costs what the identity code adds to each document.',
  ]);

  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
  printTable('Filter lists (EasyList + EasyPrivacy as Debian ships them)', ['measure', 'value'], [
    ['lists on disk', `${lists.length} files, ${mb(cold.listBytes)}`],
    ['cold: read + parse + serialize (parse thread), deserialize', `${cold.coldMs} ms`],
    ['warm: read the cache + deserialize', `${cold.warmMs} ms`],
    ['serialized cache file', mb(cold.cacheBytes)],
    ['engine heap (heapUsed delta)', mb(cold.heapDelta)],
    ['engine array buffers (arrayBuffers delta)', mb(cold.arrayBuffersDelta)],
  ], [parseLine, 'Memory: one engine read from the cache and deserialized, after three matches, with a full GC before and after.']);
}
