/**
 * block_ads: one FiltersEngine for the host, over EasyList, EasyPrivacy and the admin's own lists. It is built
 * the first time block_ads names a site (at start when it already does), off the request path: the parse runs
 * on a thread of its own, or the engine comes from the data dir's cache (written after every parse, read at
 * start). Until it is ready, a request of a page on a block_ads site waits for it rather than let an ad through;
 * with a list missing it stays unavailable (requests pass), and the settings and browser_status say why.
 */
import { Worker } from 'node:worker_threads';
import { threadEntry } from '../threads.js';
import type { Logger } from 'pino';
import type { FiltersEngine } from '@ghostery/adblocker';
import type { BrowserSettings } from '../settings/browser-settings.js';
import type { BrowserSettingsService } from '../settings/service.js';
import { findLists, type ListFile } from './lists.js';
import { cacheKey, readCached, writeCached } from './engine-cache.js';
import { engineType } from './request-types.js';

/**
 * The longest a parse may take. Requests of block_ads pages wait on it, so it needs an end: a parse that has not
 * finished by then (lists grown huge, a thread stuck) is stopped and ad blocking is unavailable until the next
 * change of block_ads or restart, the requests going through. EasyList and EasyPrivacy parse in seconds.
 */
export const PARSE_DEADLINE_MS = 120_000;

/** The package, imported with the first engine, not at start: about 2 MB of heap a host without block_ads never uses. */
type AdblockerPackage = typeof import('@ghostery/adblocker');

/** Network rules only: we fail requests, we do not hide elements or rewrite responses. */
const ENGINE_OPTIONS = { loadNetworkFilters: true, loadExceptionFilters: true, loadCosmeticFilters: false, loadCSPFilters: false, enableHtmlFiltering: false, enableCompression: false };

export type AdBlockStatus =
  | { state: 'off'; note: string }
  | { state: 'loading'; note: string }
  | { state: 'ready'; lists: string[]; source: 'cache' | 'parsed'; loadMs: number }
  | { state: 'unavailable'; reason: string; next: string };

/** A request as the tab's guard sees it: its URL, the tab's page, and CDP's resource type. */
export interface AdRequest {
  url: string;
  pageUrl: string;
  resourceType: string;
}

export class AdBlocker {
  private engine?: FiltersEngine;
  private lib?: AdblockerPackage;
  private loaded?: { lists: string[]; source: 'cache' | 'parsed'; loadMs: number };
  private problem?: { reason: string; next: string };
  private loading?: Promise<void>;
  private thread?: Worker;
  private closed = false;

  constructor(private opts: { dataDir: string; lists: readonly string[]; log: Logger; settings: BrowserSettingsService; parseDeadlineMs?: number }) {}

  /** Loads now if block_ads names a site, and again whenever a change makes it name one while no engine is there. */
  start(): void {
    const check = (s: BrowserSettings) => {
      if (s.block_ads.length && !this.engine && !this.loading && !this.closed) this.loading = this.load().finally(() => (this.loading = undefined));
    };
    check(this.opts.settings.current());
    this.opts.settings.onChange(check);
  }

  /** Resolves once a load under way has ended (ready or unavailable); at once when none is. */
  async whenSettled(): Promise<void> {
    await this.loading;
  }

  /**
   * The filter that makes this request an ad or tracker to fail, or undefined to let it go. While the engine
   * loads, a request of a page on a block_ads site gets a promise of the answer: it is held until the lists are
   * ready (or known unavailable), never let through unfiltered.
   */
  blocks(req: AdRequest): { filter: string } | undefined | Promise<{ filter: string } | undefined> {
    if (!/^(https?|wss?):/.test(req.url) || !this.opts.settings.blocksAdsOn(req.pageUrl)) return undefined;
    if (!this.engine) return this.loading ? this.loading.then(() => (this.engine ? this.blocks(req) : undefined)) : undefined;
    const m = this.engine.match(this.lib!.Request.fromRawDetails({ url: req.url, sourceUrl: req.pageUrl, type: engineType(req.resourceType) }));
    // An @@ exception that lifts the rule leaves match false: the engine weighs them, we do not.
    return m.match ? { filter: (m.filter?.toString() ?? 'a filter rule').slice(0, 120) } : undefined;
  }

  status(): AdBlockStatus {
    if (!this.opts.settings.current().block_ads.length) return { state: 'off', note: 'block_ads names no site' };
    if (this.engine && this.loaded) return { state: 'ready', ...this.loaded };
    if (this.problem) return { state: 'unavailable', ...this.problem };
    return { state: 'loading', note: 'the filter lists are loading; requests of block_ads sites wait until they are ready' };
  }

  /** Stops a parse under way (daemon shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    await this.thread?.terminate();
  }

  private async load(): Promise<void> {
    const { log, dataDir } = this.opts;
    const found = findLists(this.opts.lists);
    if (!found.ok) {
      this.problem = { reason: found.problem.message, next: found.problem.next };
      log.error({ missing: found.problem.missing, next: found.problem.next }, `ad blocking unavailable: ${found.problem.message}`);
      return;
    }
    this.problem = undefined;
    const lists = found.files.map((f) => f.path);
    log.info({ lists }, 'ad blocking: loading the filter lists; until they are ready, requests of block_ads sites wait for them');
    const t0 = performance.now();
    const lib = (this.lib ??= await import('@ghostery/adblocker'));
    const key = cacheKey(found.files, ENGINE_OPTIONS, lib.ENGINE_VERSION);
    const cached = await readCached(dataDir, key);
    if (cached) {
      try {
        this.ready(lib.FiltersEngine.deserialize(cached), lists, 'cache', t0);
        log.info({ lists, ms: this.loaded!.loadMs }, 'ad blocking ready: filter lists loaded from the cache');
        return;
      } catch (e) {
        // An engine of another version or a damaged file: the lists are still there to parse.
        log.warn({ err: String(e) }, 'the cached ad-block engine could not be read; parsing the lists again');
      }
    }
    try {
      const { serialized, parseMs } = await this.parseOffThread(found.files);
      if (this.closed) return;
      this.ready(lib.FiltersEngine.deserialize(serialized), lists, 'parsed', t0);
      await writeCached(dataDir, key, serialized).catch((e) => log.warn({ err: String(e) }, 'the parsed ad-block engine could not be cached; the next start parses again'));
      log.info({ lists, parseMs: Math.round(parseMs), ms: this.loaded!.loadMs }, 'ad blocking ready: filter lists parsed');
    } catch (e) {
      if (this.closed) return;
      this.problem = { reason: `the filter lists could not be parsed: ${e instanceof Error ? e.message : e}`, next: 'Check the files named in BROWSERD_FILTER_LISTS (Adblock Plus syntax), then change block_ads or restart browserd.' };
      log.error({ next: this.problem.next }, `ad blocking unavailable: ${this.problem.reason}`);
    }
  }

  private ready(engine: FiltersEngine, lists: string[], source: 'cache' | 'parsed', t0: number) {
    this.engine = engine;
    this.loaded = { lists, source, loadMs: Math.round(performance.now() - t0) };
  }

  private parseOffThread(files: ListFile[]): Promise<{ serialized: Uint8Array; parseMs: number }> {
    return new Promise((resolve, reject) => {
      const w = new Worker(threadEntry('adblockParse'), { workerData: { paths: files.map((f) => f.path), options: ENGINE_OPTIONS } });
      this.thread = w;
      // A parse in flight must not hold the process open at shutdown.
      w.unref();
      const deadline = setTimeout(() => {
        reject(new Error(`the parse took longer than ${PARSE_DEADLINE_MS / 1000} s and was stopped`));
        void w.terminate();
      }, this.opts.parseDeadlineMs ?? PARSE_DEADLINE_MS);
      deadline.unref();
      w.once('exit', () => clearTimeout(deadline));
      w.once('message', (m: { serialized?: Uint8Array; parseMs?: number; error?: string }) => {
        if (m.serialized) resolve({ serialized: m.serialized, parseMs: m.parseMs ?? 0 });
        else reject(new Error(m.error ?? 'no answer'));
        void w.terminate();
      });
      w.once('error', reject);
      w.once('exit', (code) => reject(new Error(`the parse thread stopped (exit ${code})`)));
      w.once('exit', () => {
        if (this.thread === w) this.thread = undefined;
      });
    });
  }
}
