/**
 * Crawling a 500-page loopback site (a binary tree of pages, robots.txt served), delay 0, in pages per second:
 *  - http: browser_crawl mode http at concurrency 8 (its durable LMDB queue is always on, every page converted
 *    to Markdown) against crawlee's CheerioCrawler at concurrency 8 doing the same work per page (the same
 *    htmlToMarkdown, same-hostname links enqueued, robots.txt respected), with its in-memory queue and with its
 *    persisted (durable) storage;
 *  - browser: browser_crawl mode browser (read tabs of the user's profile, at most 2 at once) against crawlee's
 *    PlaywrightCrawler on the same Debian chromium, at concurrency 2 and at its own autoscaled default.
 * Then the memory of a 5,000-page http crawl: the daemon process's RSS and heap before, at peak and after.
 * Times run from the start call to the run's finish event (no polling on our side).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestDaemon, type TestDaemon } from '../test/fixtures/daemon.js';
import { startCrawlSite, type CrawlSite } from '../test/fixtures/crawl-site.js';
import { htmlToMarkdown } from '../daemon/read/index.js';
import { chromiumSwitches } from '../daemon/browser/switches.js';
import { median, now, printTable } from './lib.js';

const PAGES = 500;
const MEMORY_PAGES = 5000;
const HTTP_RUNS = Number(process.env.BENCH_CRAWL_HTTP_RUNS ?? 3);
const BROWSER_RUNS = 1;
const CHROMIUM = process.env.BROWSERD_CHROME ?? '/usr/bin/chromium';

interface Outcome { seconds: number; pages: number }
const rate = (o: Outcome) => o.pages / o.seconds;

async function ours(d: TestDaemon, token: string, site: CrawlSite, mode: 'http' | 'browser', pages: number, concurrency: number): Promise<Outcome> {
  const t0 = now();
  const r = await d.rest(token, 'POST', '/v1/tools/browser_crawl', { startUrls: [`${site.url}/bulk/1`], mode, concurrency, delayMs: 0, maxPages: pages, maxDepth: 20, format: 'markdown' });
  if (r.status !== 200) throw new Error(`browser_crawl: ${JSON.stringify(r.json).slice(0, 300)}`);
  const run = await d.daemon.features.crawls.waitWhileRunning('bench', r.json.id, 600_000);
  const seconds = (now() - t0) / 1000;
  if (run.state !== 'finished' || run.counters.done !== pages) throw new Error(`the crawl ended ${run.state} with ${JSON.stringify(run.counters)}`);
  await d.daemon.features.crawls.delete('bench', r.json.id);
  return { seconds, pages: run.counters.done };
}

/** crawlee's storage in a temp dir (its default ./storage is this project's own storage/ code). */
function crawleeStorage() {
  const dir = mkdtempSync(join(tmpdir(), 'browserd-bench-crawlee-'));
  process.env.CRAWLEE_STORAGE_DIR = dir;
  return dir;
}

async function cheerio(site: CrawlSite, pages: number, persist: boolean): Promise<Outcome> {
  const dir = crawleeStorage();
  try {
    const { CheerioCrawler, Configuration, log } = await import('@crawlee/cheerio');
    log.setLevel(log.LEVELS.WARNING);
    let done = 0;
    const t0 = now();
    const crawler = new CheerioCrawler(
      {
        minConcurrency: 8,
        maxConcurrency: 8,
        maxRequestsPerCrawl: pages,
        maxRequestRetries: 0,
        respectRobotsTxtFile: true,
        requestHandler: async ({ request, body, enqueueLinks }) => {
          htmlToMarkdown(body.toString(), request.loadedUrl ?? request.url, { maxChars: 20000 });
          done++;
          await enqueueLinks({ strategy: 'same-hostname' });
        },
      },
      new Configuration({ persistStorage: persist, purgeOnStart: true, storageClientOptions: { localDataDirectory: dir } }),
    );
    await crawler.run([`${site.url}/bulk/1`]);
    return { seconds: (now() - t0) / 1000, pages: done };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function playwright(site: CrawlSite, pages: number, concurrency?: number): Promise<Outcome> {
  const dir = crawleeStorage();
  const profile = mkdtempSync(join(tmpdir(), 'browserd-bench-pw-'));
  try {
    const { PlaywrightCrawler, Configuration, log } = await import('@crawlee/playwright');
    const { chromium } = await import('playwright-core');
    log.setLevel(log.LEVELS.WARNING);
    // Our launcher's quiet switches (no calls home, no first-run work), minus what Playwright sets itself.
    const args = chromiumSwitches({ userDataDir: profile, headless: true }).filter((a) => a.startsWith('--') && !/^--(user-data-dir|remote-debugging|headless)/.test(a));
    let done = 0;
    const t0 = now();
    const crawler = new PlaywrightCrawler(
      {
        ...(concurrency ? { minConcurrency: concurrency, maxConcurrency: concurrency } : {}),
        maxRequestsPerCrawl: pages,
        maxRequestRetries: 0,
        respectRobotsTxtFile: true,
        launchContext: { launcher: chromium, launchOptions: { executablePath: CHROMIUM, headless: true, args } },
        requestHandler: async ({ page, request, enqueueLinks }) => {
          htmlToMarkdown(await page.content(), request.loadedUrl ?? request.url, { maxChars: 20000 });
          done++;
          await enqueueLinks({ strategy: 'same-hostname' });
        },
      },
      new Configuration({ persistStorage: false, purgeOnStart: true, storageClientOptions: { localDataDirectory: dir } }),
    );
    await crawler.run([`${site.url}/bulk/1`]);
    return { seconds: (now() - t0) / 1000, pages: done };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(profile, { recursive: true, force: true });
  }
}

/** Runs `fn` while sampling this process's memory every 100 ms. */
async function sampled<T>(fn: () => Promise<T>): Promise<{ value: T; before: NodeJS.MemoryUsage; peakRss: number; peakHeap: number; after: NodeJS.MemoryUsage }> {
  global.gc?.();
  const before = process.memoryUsage();
  let peakRss = before.rss;
  let peakHeap = before.heapUsed;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  }, 100);
  try {
    const value = await fn();
    global.gc?.();
    return { value, before, peakRss, peakHeap, after: process.memoryUsage() };
  } finally {
    clearInterval(timer);
  }
}

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;

export async function run(): Promise<void> {
  const site = await startCrawlSite({ bulk: MEMORY_PAGES });
  const rows: (string | number)[][] = [];
  const notes: string[] = [];
  const add = (name: string, runs: Outcome[], base?: number) => {
    const pps = median(runs.map(rate));
    rows.push([name, runs[0]!.pages, median(runs.map((r) => r.seconds)).toFixed(2), pps.toFixed(1), base ? `${(base / pps).toFixed(2)}x` : '']);
    return pps;
  };
  try {
    const d = await startTestDaemon();
    try {
      const token = await d.addUser('bench');
      await ours(d, token, site, 'http', 20, 8); // warm-up: Markdown threads, JIT
      const http: Outcome[] = [];
      for (let i = 0; i < HTTP_RUNS; i++) http.push(await ours(d, token, site, 'http', PAGES, 8));
      const oursHttp = add('browserd browser_crawl, mode http, concurrency 8 (durable queue)', http);
      for (const persist of [false, true]) {
        const runs: Outcome[] = [];
        try {
          for (let i = 0; i < HTTP_RUNS; i++) runs.push(await cheerio(site, PAGES, persist));
          const theirs = median(runs.map(rate));
          add(`crawlee CheerioCrawler, concurrency 8, ${persist ? 'persisted storage' : 'in-memory queue'}`, runs);
          rows[rows.length - 1]![4] = `ours ${(oursHttp / theirs).toFixed(2)}x`;
        } catch (e) {
          notes.push(`CheerioCrawler (${persist ? 'persisted' : 'memory'}) could not run: ${e instanceof Error ? e.message : e}`);
        }
      }

      await ours(d, token, site, 'browser', 10, 2); // warm-up: starts the user's browser
      const browser: Outcome[] = [];
      for (let i = 0; i < BROWSER_RUNS; i++) browser.push(await ours(d, token, site, 'browser', PAGES, 2));
      const oursBrowser = add('browserd browser_crawl, mode browser, 2 read tabs', browser);
      for (const conc of [2, undefined]) {
        try {
          const runs: Outcome[] = [];
          for (let i = 0; i < BROWSER_RUNS; i++) runs.push(await playwright(site, PAGES, conc));
          add(`crawlee PlaywrightCrawler, ${conc ? `concurrency ${conc}` : 'autoscaled (its default)'}`, runs);
          rows[rows.length - 1]![4] = `ours ${(oursBrowser / median(runs.map(rate))).toFixed(2)}x`;
        } catch (e) {
          notes.push(`PlaywrightCrawler could not run: ${e instanceof Error ? e.message : e}`);
        }
      }

      const mem = await sampled(() => ours(d, token, site, 'http', MEMORY_PAGES, 8));
      notes.push(
        `memory, ${MEMORY_PAGES}-page http crawl in the daemon's process: RSS ${mb(mem.before.rss)} before, ${mb(mem.peakRss)} peak, ${mb(mem.after.rss)} after; heap ${mb(mem.before.heapUsed)} before, ${mb(mem.peakHeap)} peak, ${mb(mem.after.heapUsed)} after (${rate(mem.value).toFixed(1)} pages/s). Items live in LMDB, not in the heap.`,
      );
    } finally {
      await d.stop();
    }
    printTable(`Crawl of a ${PAGES}-page loopback site, delay 0 (pages/s, median of ${HTTP_RUNS} http runs, ${BROWSER_RUNS} browser run)`, ['crawler', 'pages', 'seconds', 'pages/s', 'ratio'], rows, [
      'Same page work on both sides: htmlToMarkdown per page, same-host links followed, robots.txt respected.',
      'Both share this process and the loopback site; the site and crawlee run in the same Node process as the daemon.',
      ...notes,
    ]);
  } finally {
    await site.close();
  }
}
