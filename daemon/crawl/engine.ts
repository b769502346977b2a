/**
 * One crawl run going: up to `concurrency` pages in flight, each host spaced (politeness.ts), robots.txt asked
 * first (robots.ts), a page read over http or in a read tab of the user's own profile, rendered
 * (page-output.ts), and finished in one store transaction with the links it found (storage/crawls.ts). Every
 * hop of a page's fetch (redirects, and in a tab the navigations its page starts) is judged as a link is
 * (hops.ts) before it is requested.
 * Pause stops new pages (those in flight finish); cancel also drops the queue; `stop` (daemon shutdown) stops
 * new pages and leaves the run `running` in the store, so the next start goes on from the queue. A page that
 * would pass the user's storage quota pauses the run (it stays queued, nothing of it stored).
 */
import type { Platform } from '../platform.js';
import type { CrawlRecord, CrawlStore, NewLink, QueueEntry } from '../../storage/crawls.js';
import type { Tab } from '../browser/tab.js';
import { BrowserdError } from '../../protocol/errors.js';
import type { CrawlSpec } from './params.js';
import type { CrawlItem, Fetcher, FetchedResponse, PageInput } from './types.js';
import { fetchGuardFor, networkFetcher, type FetchGuard } from '../fetch/guarded-fetch.js';
import { withResponseCache, attachTabCache } from '../cache/index.js';
import { RobotsBook } from './robots.js';
import { readSitemapUrls } from './sitemap.js';
import { needsBrowser, renderPageAndText } from './page-output.js';
import { fillsWithModel, type CrawlModel } from './model-fill.js';
import { readInBrowser } from './browser-reader.js';
import { crawlSites, onSites, pageKey, passesRules } from './rules.js';
import { actionRefusal, looksLikeSignOut, redirectReason } from '../policy/destructive-links.js';
import { destructiveLink, destructiveReason } from '../policy/destructive-links.js';
import { HostSchedule, MAX_TRIES } from './politeness.js';
import { HopRefused, TabHops, hopRefusal, type HopRules } from './hops.js';
import { scrubDeep } from '../call/redact.js';
import { errorFields, errorLine, reasonFields } from '../call/error-line.js';
import { userSecretForms } from '../secrets/user-secrets.js';
import { DISABLED_SWEEP_MS } from '../config.js';
import { isQuotaRefusal } from '../quotas/limits.js';

const STORAGE_QUOTA_NOTE = 'paused at your storage quota (--max-storage-mb-per-user): the next page would have passed it and was not stored (it stays queued). Delete what you no longer need, then resume.';

/** Queue entries looked at when choosing the next page: enough to find one whose host is ready. */
const LOOKAHEAD = 64;

type Env = Pick<Platform, 'cfg' | 'deniedPorts' | 'policies' | 'pool' | 'log' | 'vault' | 'filledCodes' | 'responseCache' | 'files' | 'storageQuota' | 'users'>;

export interface RunEvents {
  /** The run's record changed (a page finished, or its state moved). */
  changed(rec: CrawlRecord): void;
}

export class CrawlRun {
  private inFlight = new Map<number, Promise<void>>();
  private stopped = false;
  private wake?: () => void;
  private readonly spec: CrawlSpec;
  private readonly hosts: HostSchedule;
  private readonly fetcher: Fetcher;
  private readonly robots: RobotsBook;
  private readonly sites: Set<string>;
  private tabs: Tab[] = [];
  private freeTabs: Tab[] = [];
  /** Each tab's document judge (hops.ts), for the run's life. */
  private tabHops = new Map<Tab, TabHops>();
  private readonly guard: FetchGuard;
  /** The start URLs as queue keys: their hops are not held to allow/deny (hops.ts). */
  private readonly starts: Set<string>;
  private releaseBrowser?: () => void;
  /** Aborted when the run stops (shutdown): ends a scroll or a file fetch under way instead of waiting it out. */
  private readonly halt = new AbortController();
  readonly done: Promise<void>;

  constructor(
    private readonly env: Env,
    private readonly store: CrawlStore,
    private rec: CrawlRecord,
    private readonly events: RunEvents,
    /** Fills outputSchema per page when the crawl has no fields (model-fill.ts); shared by the run's restarts in this process. */
    private readonly model?: CrawlModel,
  ) {
    this.spec = rec.spec;
    this.hosts = new HostSchedule(this.spec.delayMs);
    this.guard = fetchGuardFor(env, rec.user);
    this.fetcher = withResponseCache(env, rec.user, this.spec.cache, this.spec.cacheName, networkFetcher(this.guard));
    this.robots = new RobotsBook(this.fetcher);
    this.sites = crawlSites([...this.spec.startUrls, ...(this.spec.sitemap ? [this.spec.sitemap] : [])]);
    this.starts = new Set(this.spec.startUrls.map((u) => pageKey(u)));
    this.done = this.loop().catch((e) => this.fail(e));
  }

  get id() {
    return this.rec.id;
  }

  /** The store said something changed (pause, cancel): look again now rather than at the next timer. */
  poke() {
    this.wake?.();
  }

  /** Daemon shutdown: no new pages; the record stays as it is. */
  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    this.halt.abort();
    this.poke();
    await Promise.race([this.done, new Promise((r) => setTimeout(r, graceMs).unref())]);
  }

  private current(): CrawlRecord | undefined {
    return this.store.get(this.rec.user, this.rec.id);
  }

  private async loop(): Promise<void> {
    for (;;) {
      const rec = this.current();
      if (!rec || this.stopped || rec.state !== 'running') break;
      this.rec = rec;
      // A disabled account's crawl starts no page while it is disabled, and goes on by itself once enabled.
      if (!this.env.users.isActive(rec.user)) {
        if (this.inFlight.size) await this.nextEvent();
        else {
          await this.closeTabs();
          await this.nextEvent(DISABLED_SWEEP_MS);
        }
        continue;
      }
      // Read here, after the account check, so a disabled account's crawl resumed at start fetches nothing.
      if (this.spec.sitemap && !rec.sitemapRead) {
        await this.readSitemap();
        continue;
      }
      const used = rec.counters.done + rec.counters.failed;
      if (used + this.inFlight.size >= this.spec.maxPages) {
        if (this.inFlight.size) await this.nextEvent();
        else {
          await this.finish(`maxPages (${this.spec.maxPages}) reached`);
          break;
        }
        continue;
      }
      if (this.inFlight.size >= this.spec.concurrency) {
        await this.nextEvent();
        continue;
      }
      const pick = this.pickNext();
      if (pick === 'empty') {
        if (this.inFlight.size) await this.nextEvent();
        else {
          await this.finish();
          break;
        }
        continue;
      }
      if (typeof pick === 'number') {
        await this.nextEvent(pick);
        continue;
      }
      const host = new URL(pick.url).host;
      // A page robots.txt is already known to refuse, or one that would act, is never fetched, so it takes no turn of its host.
      if (!(this.spec.obeyRobots && this.robots.known(pick.url)?.allowed(pick.url) === false) && !this.mustNotFetch(pick)) this.hosts.take(host);
      // page() turns every reading error into a failed item; what is left (the store refusing a write) is
      // logged here, and the page stays queued for the next start, rather than crashing the daemon unawaited.
      const work = this.page(pick, host)
        .catch((e) => this.env.log.error({ crawl: this.rec.id, url: pick.url, err: String(e) }, 'crawl page could not be stored'))
        .finally(() => {
          this.inFlight.delete(pick.seq);
          this.poke();
        });
      this.inFlight.set(pick.seq, work);
    }
    await Promise.allSettled(this.inFlight.values());
    await this.closeTabs();
  }

  /** The next page whose host may be asked now, or how long until one may, or 'empty'. */
  private pickNext(): QueueEntry | number | 'empty' {
    const head = this.store.queueHead(this.rec.user, this.rec.id, LOOKAHEAD, new Set(this.inFlight.keys()));
    if (!head.length) return 'empty';
    let soonest = Infinity;
    const now = Date.now();
    for (const e of head) {
      const wait = this.hosts.waitFor(new URL(e.url).host, now);
      if (wait === 0) return e;
      soonest = Math.min(soonest, wait);
    }
    return soonest;
  }

  /** Waits for a page to finish, a poke, or `ms`. Never a busy loop. */
  private nextEvent(ms?: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = ms !== undefined ? setTimeout(done, ms) : undefined;
      function done() {
        if (timer) clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  private async readSitemap() {
    let urls: string[] = [];
    let note: string | undefined;
    try {
      urls = await readSitemapUrls(this.spec.sitemap!, this.fetcher, { max: Math.max(this.spec.maxPages * 4, 100) });
    } catch (e) {
      // A parser's message can quote the file it choked on (the site's words): only our own errors are quoted.
      note = `the sitemap could not be read: ${e instanceof BrowserdError ? errorLine(e).message : 'its content could not be parsed'}`;
    }
    // Sitemap pages start at depth 0 but, unlike start URLs, answer to the same rules as found links.
    let rec;
    try {
      rec = await this.store.addPages(this.rec.user, this.rec.id, this.follow(urls.map((url) => ({ url })), 0), { sitemapRead: true, ...(note ? { note } : {}) });
    } catch (e) {
      if (!isQuotaRefusal(e, 'storageBytes')) throw e;
      return this.pauseAtQuota();
    }
    if (rec) {
      this.rec = rec;
      this.events.changed(rec);
    }
  }

  /** Reads one page and finishes it; a 429/503 puts it back with the host backed off. */
  private async page(entry: QueueEntry, host: string): Promise<void> {
    const base = { url: entry.url, depth: entry.depth, at: '' };
    let item: Omit<CrawlItem, 'seq'>;
    let links: NewLink[] = [];
    try {
      const skip = this.mustNotFetch(entry);
      if (skip) {
        await this.finishPage(entry, { ...base, status: 'blocked', error: skip }, []);
        return;
      }
      if (this.spec.obeyRobots) {
        const rules = await this.robots.rulesFor(entry.url);
        this.hosts.setCrawlDelay(host, rules.crawlDelayMs);
        if (!rules.allowed(entry.url)) {
          await this.finishPage(entry, { ...base, status: 'blocked', error: 'robots.txt disallows this page' }, []);
          return;
        }
      }
      const page = await this.read(entry, host);
      if (!page) return; // put back for later (429/503)
      if (page.status < 200 || page.status >= 300) {
        item = { ...base, finalUrl: page.finalUrl, status: 'failed', httpStatus: page.status, via: page.via, error: `HTTP ${page.status}` };
      } else {
        const { out, text, linkTexts } = await renderPageAndText(page, this.spec);
        const { links: found, ...rendered } = out;
        const forms = userSecretForms(this.env, this.rec.user);
        const filled = this.model && fillsWithModel(this.spec) ? await this.model.fill({ url: page.finalUrl, title: out.title, markdown: text }) : undefined;
        if (filled && !filled.ok) {
          // The model's failure is the page's (not_configured, budget_exceeded, an answer invalid after its repair turn); its tokens stay counted.
          item = { ...base, finalUrl: page.finalUrl, status: 'failed', httpStatus: page.status, via: page.via, ...errorFields(filled.error), ...(filled.model ? { model: filled.model } : {}) };
        } else {
          const content = { ...rendered, ...(filled ? { fields: filled.data as Record<string, unknown>, model: filled.model } : {}), ...(page.scroll ? { scroll: page.scroll } : {}), ...(page.files ? { files: page.files } : {}) };
          item = { ...base, ...scrubDeep(content, forms), finalUrl: page.finalUrl, status: 'done', httpStatus: page.status, via: page.via, linkCount: found.length };
        }
        if (entry.depth < this.spec.maxDepth) links = this.follow(linkTexts.length ? linkTexts : found.map((url) => ({ url })), entry.depth + 1);
      }
    } catch (e) {
      if (e instanceof HopRefused) item = { ...base, status: 'blocked', ...reasonFields(e.reason) };
      else item = { ...base, status: 'failed', ...errorFields(e) };
    }
    await this.finishPage(entry, item, links);
  }

  /**
   * The links a run may queue: same site, allow/deny, no sign-out; keyed one way. On the signed-in profile a
   * link that would act (destructive-links.ts: by its address or its text) is queued already marked, so it
   * shows in the results as blocked with its reason and is never fetched.
   */
  private follow(found: { url: string; text?: string }[], depth: number): NewLink[] {
    const out: NewLink[] = [];
    for (const { url, text } of found) {
      if (this.spec.sameDomain && !onSites(url, this.sites)) continue;
      if (!passesRules(url, this.spec.allow, this.spec.deny) || looksLikeSignOut(url)) continue;
      const verdict = this.onProfile ? destructiveLink(url, text) : undefined;
      out.push({ url: pageKey(url), depth, ...(verdict ? { skip: destructiveReason(verdict) } : {}) });
    }
    return out;
  }

  /**
   * Browser and auto modes read in the user's own profile, with its cookies: there a GET to `/account/delete`
   * deletes. http mode sends no cookie (fetch/guarded-fetch.ts), so it reads what anyone reads and follows them.
   */
  private get onProfile(): boolean {
    return this.spec.mode !== 'http';
  }

  /**
   * Why this queued page is not fetched: marked when found, or (start URLs, sitemap pages, pages queued
   * before this rule) an address that would act on the signed-in profile.
   */
  private mustNotFetch(entry: QueueEntry): string | undefined {
    if (entry.skip) return entry.skip;
    const verdict = this.onProfile ? destructiveLink(entry.url) : undefined;
    return verdict ? destructiveReason(verdict) : undefined;
  }

  private async finishPage(entry: QueueEntry, item: Omit<CrawlItem, 'seq'>, links: NewLink[]) {
    let done;
    try {
      done = await this.store.finishPage(this.rec.user, this.rec.id, entry, { ...item, at: new Date().toISOString() }, links);
    } catch (e) {
      if (!isQuotaRefusal(e, 'storageBytes')) throw e;
      return this.pauseAtQuota();
    }
    if (done) {
      this.rec = done.rec;
      this.events.changed(done.rec);
    }
  }

  /**
   * A page (or the sitemap's pages) would pass the user's storage quota: nothing of it was stored and it stays
   * queued; the run pauses with a note saying why, and goes on from its queue when resumed with room again.
   */
  private async pauseAtQuota() {
    const rec = await this.store.setState(this.rec.user, this.rec.id, 'paused', STORAGE_QUOTA_NOTE, ['running']);
    if (rec) {
      this.rec = rec;
      this.events.changed(rec);
    }
    this.poke();
  }

  /** The page as HTML, over http or in the browser as the mode says; undefined when it must wait (429/503). */
  private async read(entry: QueueEntry, host: string): Promise<PageInput | undefined> {
    let page: PageInput;
    let retryAfter: string | undefined;
    const start = this.starts.has(entry.url);
    if (this.spec.mode === 'browser') page = await this.readInTab(entry.url, start);
    else {
      // Each redirect is judged before it is requested, as a link is: thrown, HopRefused ends the page blocked.
      const beforeRedirect = async (to: string, from: string) => {
        const why = await hopRefusal(this.hopRules, to, start);
        if (why) throw new HopRefused(redirectReason(from, to, why));
      };
      const res = await this.fetcher(entry.url, { beforeRedirect });
      retryAfter = res.headers['retry-after'];
      page = httpPage(entry.url, res);
      if (this.spec.mode === 'auto' && page.status >= 200 && page.status < 300 && needsBrowser(page)) page = await this.readInTab(entry.url, start);
    }
    if (page.status === 429 || page.status === 503) {
      const tries = (entry.tries ?? 0) + 1;
      if (tries < MAX_TRIES) {
        this.hosts.backOff(host, retryAfter, tries);
        await this.store.retryLater(this.rec.user, this.rec.id, { ...entry, tries });
        return undefined;
      }
    }
    return page;
  }

  /** What this run's hops are judged by: its link rules (hops.ts). */
  private get hopRules(): HopRules {
    const { sameDomain, allow, deny, obeyRobots } = this.spec;
    return { sameDomain, sites: this.sites, allow, deny, onProfile: this.onProfile, obeyRobots, robots: this.robots, guard: this.guard };
  }

  private async readInTab(url: string, start: boolean): Promise<PageInput> {
    const tab = await this.takeTab();
    try {
      const { includeHidden, scrollUntil, collect, fields } = this.spec;
      // Files go with the person's cookies too: collect refuses one whose address, or any redirect hop, acts.
      const collector = collect ? { env: this.env, user: this.rec.user, signal: this.halt.signal, captions: collect.caption ? this.model?.captioner() : undefined } : undefined;
      // Field selectors (a learned extractor's too) may key on data-* attributes, as they would on the live page.
      return await readInBrowser(tab, url, { includeHidden, scrollUntil, collect, collector, signal: this.halt.signal, hops: this.tabHops.get(tab), start, dataAttrs: !!fields });
    } finally {
      this.freeTabs.push(tab);
    }
  }

  /** A read tab of the user's own profile, one per page in flight, kept for the run's next pages. */
  private async takeTab(): Promise<Tab> {
    const free = this.freeTabs.pop();
    if (free) return free;
    // While the run has tabs the idle sweeper leaves the browser alone.
    this.releaseBrowser ??= this.env.pool.hold(this.rec.user);
    const inst = await this.env.pool.get(this.rec.user);
    // Wheel events reach only a tab that draws: a crawl that scrolls lists reads in drawn tabs.
    const tab = await inst.scratchTab({ drawn: !!this.spec.scrollUntil });
    // Judge first, then the page: no document of the tab goes out unjudged.
    const hops = new TabHops((u, start) => hopRefusal(this.hopRules, u, start), (u) => actionRefusal(u, this.onProfile));
    this.tabHops.set(tab, hops);
    try {
      await tab.judgeDocuments(hops.judge);
    } catch (e) {
      this.tabHops.delete(tab);
      await tab.close().catch(() => undefined);
      throw e;
    }
    if (this.spec.cache !== 'off') await attachTabCache(this.env, this.rec.user, this.spec.cache, this.spec.cacheName, tab);
    this.tabs.push(tab);
    return tab;
  }

  private async closeTabs() {
    const tabs = this.tabs.splice(0);
    this.freeTabs = [];
    this.tabHops.clear();
    await Promise.all(tabs.map((t) => t.close().catch(() => undefined)));
    this.releaseBrowser?.();
    this.releaseBrowser = undefined;
  }

  private async finish(note?: string) {
    const rec = await this.store.setState(this.rec.user, this.rec.id, 'finished', note);
    if (rec) this.events.changed(rec);
  }

  private async fail(e: unknown) {
    this.env.log.error({ crawl: this.rec.id, err: String(e) }, 'crawl run failed');
    await this.closeTabs().catch(() => undefined);
    if (this.stopped) return;
    const rec = await this.store.setState(this.rec.user, this.rec.id, 'failed', `the run stopped on an internal error: ${errorLine(e).message}`).catch(() => undefined);
    if (rec) this.events.changed(rec);
  }
}

/** charset from the Content-Type header, else UTF-8 (meta charset sniffing is a browser's job: mode browser). */
function decodeBody(res: FetchedResponse): string {
  const charset = /charset=["']?([\w-]+)/i.exec(res.headers['content-type'] ?? '')?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(res.body);
  } catch {
    return new TextDecoder('utf-8').decode(res.body);
  }
}

function httpPage(url: string, res: FetchedResponse): PageInput {
  return { url, finalUrl: res.url, status: res.status, contentType: res.headers['content-type'] ?? '', html: decodeBody(res), via: res.fromCache ? 'cache' : 'http', visibleOnly: false };
}
