/**
 * One tab's HAR recording: a traffic sink that turns each matching exchange into a redacted HAR entry and
 * appends it, as one JSON line, to the tab's file in the data dir. Entries are never held in memory: only
 * counters, the newest few lines for a summary, and the pages (one per main-frame document, few).
 *
 * The file counts toward its user's storage quota (--max-storage-mb-per-user). Before each append the lines
 * are weighed against the room the quota leaves; lines that would pass it are not written and the recording
 * stops there ('storage_quota'), so the file holds only whole entries and stays a valid HAR.
 */
import type { TabScopedItem } from './tab-scoped.js';
import { createReadStream } from 'node:fs';
import { open, stat, unlink, type FileHandle } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Disposable } from '../cdp/connection.js';
import type { Tab, PageEvent } from '../browser/tab.js';
import type { Exchange, TrafficSink } from '../browser/traffic-types.js';
import type { TrafficRedactor } from './redact.js';
import { urlMatcher, type UrlMatcher } from '../browser/url-pattern.js';
import { harEntry, isTextType, type HarBodies, type HarEntry } from './har-entry.js';

export interface HarOptions {
  urlPattern: string;
  resourceTypes: string[];
  bodies: HarBodies;
  maxEntries: number;
  maxBodyBytes: number;
}

export type HarState = 'recording' | 'stopped' | 'deleted';

/** Why a recording stopped by itself (a stop action leaves none). */
export type HarStopReason = 'storage_quota';

/**
 * The user's storage quota as a recording sees it: the bytes they may still store, their files, HAR files and
 * the rest counted (quotas/storage.ts; this recording's file too, as it is on disk).
 */
export interface HarQuota {
  room(): number;
}

/** Bytes appended between two counts of the user's stored bytes (a count walks their directories). */
const QUOTA_STEP = 256 * 1024;
export const HAR_QUOTA_NOTE = 'stopped at your storage quota (--max-storage-mb-per-user): the next entries would have passed it, so they were not written; the entries recorded before are kept. Delete files or HAR recordings you no longer need, then start again.';

/** Newest entries remembered for summaries (a summary shows at most 500). */
const RECENT = 500;
/** Pages kept per recording: a page that navigates without end cannot grow memory without end. */
const MAX_PAGES = 1000;

export interface HarLine { method: string; status: number; type: string; url: string }

export interface HarPage {
  id: string;
  title: string;
  startedDateTime: string;
  loaderId?: string;
  /** Monotonic seconds (Chromium's clock) of the document request's start and of the two page events. */
  startTs?: number;
  contentTs?: number;
  loadTs?: number;
}

const baseId = (exchangeId: string) => exchangeId.split(':')[0]!;

export class HarRecording implements TrafficSink, TabScopedItem {
  state: HarState = 'recording';
  readonly startedAt = new Date();
  stoppedAt?: Date;
  stopReason?: HarStopReason;
  /** Entries written; exchanges past maxEntries (dropped); exchanges that did not match the filters. */
  readonly counts = { entries: 0, dropped: 0, filtered: 0 };
  private recent: HarLine[] = [];
  private pages: HarPage[] = [];
  private current?: HarPage;
  private pagesByLoader = new Map<string, HarPage>();
  /** Document requests that ended before their page committed (redirect hops): start times by loader id. */
  private docStarts = new Map<string, { startedAt: number; ts: number }>();
  private match: UrlMatcher;
  private subs: Disposable[] = [];
  private tail: Promise<void> = Promise.resolve();
  /** Lines waiting for the next append: the file gets them in this order, each whole. */
  private unwritten: string[] = [];
  private writeError?: string;
  /** Bytes that may still be appended before the user's stored bytes are counted again. */
  private budget = 0;

  private constructor(
    readonly options: HarOptions,
    readonly file: string,
    private fh: FileHandle,
    /** A redactor with the user's secrets as they are now: made per entry, so a value saved meanwhile is hidden too. */
    private redactor: () => TrafficRedactor,
    public tab: Tab,
    private quota?: HarQuota,
  ) {
    this.match = urlMatcher(options.urlPattern);
  }

  /** Creates the file (owner-only, emptied) and starts following the tab. */
  static async start(tab: Tab, file: string, options: HarOptions, redactor: () => TrafficRedactor, quota?: HarQuota): Promise<HarRecording> {
    const fh = await open(file, 'w', 0o600);
    await fh.chmod(0o600);
    const rec = new HarRecording(options, file, fh, redactor, tab, quota);
    rec.follow(tab);
    return rec;
  }

  /** Follows a tab's traffic and page events (again, when the tab was reopened after a crash or restart). */
  follow(tab: Tab) {
    for (const s of this.subs.splice(0)) s.dispose();
    this.tab = tab;
    this.subs.push(tab.onPageEvents((e) => this.onPage(e)));
    this.subs.push(tab.traffic.subscribe(this));
  }

  private matches(ex: Exchange): boolean {
    return this.options.resourceTypes.includes(ex.resourceType) && this.match(ex.request.url);
  }

  wantsBody(ex: Exchange): boolean {
    if (this.state !== 'recording' || this.options.bodies === 'none' || this.counts.entries >= this.options.maxEntries || !this.matches(ex)) return false;
    return this.options.bodies === 'all' || isTextType(ex.response?.mimeType);
  }

  done(ex: Exchange): void {
    if (this.state !== 'recording') return;
    this.notePageStart(ex);
    if (!this.matches(ex)) {
      this.counts.filtered++;
      return;
    }
    this.write(ex, false);
  }

  private write(ex: Exchange, open: boolean) {
    if (this.counts.entries >= this.options.maxEntries) {
      this.counts.dropped++;
      return;
    }
    this.counts.entries++;
    const entry = harEntry(ex, this.redactor(), this.options, this.pageFor(ex)?.id, open);
    this.remember(entry);
    this.unwritten.push(`${JSON.stringify(entry)}\n`);
    if (this.unwritten.length > 1) return;
    // One append for every line that came in meanwhile: a page's API calls finish in bursts, and an append
    // per entry cost more of the daemon's time than building the entries.
    this.tail = this.tail
      .then(() => this.append(this.unwritten.splice(0)))
      .catch((e) => {
        this.writeError ??= e instanceof Error ? e.message : String(e);
      });
  }

  /** Appends whole lines, if the user's storage quota has room for all of them; else stops the recording there. */
  private async append(lines: string[]) {
    if (this.stopReason === 'storage_quota') return this.unwrite(lines.length);
    const text = lines.join('');
    const bytes = Buffer.byteLength(text);
    if (!this.fits(bytes)) {
      this.unwrite(lines.length);
      this.haltAtQuota();
      return;
    }
    await this.fh.appendFile(text);
  }

  /**
   * Whether `bytes` more fit the user's quota. The room is counted again once the bytes appended since the last
   * count reach QUOTA_STEP or what it left, so a recording alone never passes the quota and one beside other
   * writers of the same user passes it by at most a step.
   */
  private fits(bytes: number): boolean {
    if (!this.quota) return true;
    if (bytes > this.budget) {
      const room = this.quota.room();
      this.budget = Math.min(room, Math.max(QUOTA_STEP, bytes));
      if (bytes > room) return false;
    }
    this.budget -= bytes;
    return true;
  }

  /** Lines that were counted as entries but never reached the file: counted as dropped, gone from the newest. */
  private unwrite(n: number) {
    this.counts.entries -= n;
    this.counts.dropped += n;
    this.recent.splice(Math.max(0, this.recent.length - n));
  }

  /** The quota is reached: nothing more is recorded, open exchanges are not written; the file stays as it is. */
  private haltAtQuota() {
    if (this.state !== 'recording') return;
    this.stopReason = 'storage_quota';
    this.state = 'stopped';
    this.stoppedAt = new Date();
    this.unfollow();
  }

  private remember(e: HarEntry) {
    this.recent.push({ method: e.request.method, status: e.response.status, type: e._resourceType, url: e.request.url });
    if (this.recent.length > RECENT) this.recent.shift();
  }

  // --- pages -------------------------------------------------------------------------------------------

  private onPage(e: PageEvent) {
    if (this.state !== 'recording') return;
    if (e.kind === 'navigated') {
      if (this.pages.length >= MAX_PAGES) return;
      const page: HarPage = { id: `page_${this.pages.length + 1}`, title: this.redactor().url(e.url), startedDateTime: new Date().toISOString(), loaderId: e.loaderId };
      const early = this.docStarts.get(e.loaderId);
      if (early) this.setStart(page, early.startedAt, early.ts);
      this.docStarts.clear();
      this.pages.push(page);
      this.pagesByLoader.set(e.loaderId, page);
      this.current = page;
      return;
    }
    const page = this.current;
    if (!page) return;
    if (e.kind === 'contentLoad') page.contentTs ??= e.timestamp;
    else page.loadTs ??= e.timestamp;
  }

  private setStart(page: HarPage, startedAt: number, ts: number) {
    if (page.startTs !== undefined && page.startTs <= ts) return;
    page.startTs = ts;
    page.startedDateTime = new Date(startedAt).toISOString();
  }

  /** A main document's request (first hop included) gives its page's start: the zero of its timings. */
  private notePageStart(ex: Exchange) {
    if (ex.resourceType !== 'document' || !ex.request.timestamp) return;
    const loader = baseId(ex.id);
    const page = this.pagesByLoader.get(loader);
    if (page) this.setStart(page, ex.request.startedAt, ex.request.timestamp);
    else if (this.docStarts.size < 100) {
      const seen = this.docStarts.get(loader);
      if (!seen || ex.request.timestamp < seen.ts) this.docStarts.set(loader, { startedAt: ex.request.startedAt, ts: ex.request.timestamp });
    }
  }

  /** The page an entry belongs to: its own document's page, else the page showing when it ended. */
  private pageFor(ex: Exchange): HarPage | undefined {
    const own = this.pagesByLoader.get(baseId(ex.id));
    if (own) return own;
    if (!this.current && this.pages.length < MAX_PAGES) {
      // Recording started on a page already loaded: that document is the first page, its timings unknown.
      this.current = { id: `page_${this.pages.length + 1}`, title: this.redactor().url(this.tab.url), startedDateTime: this.startedAt.toISOString() };
      this.pages.push(this.current);
    }
    return this.current;
  }

  harPages(): { id: string; title: string; startedDateTime: string; pageTimings: { onContentLoad: number; onLoad: number } }[] {
    const since = (ts: number | undefined, start: number | undefined) => (ts !== undefined && start !== undefined ? Math.round(Math.max(0, ts - start) * 1e6) / 1e3 : -1);
    return this.pages.map((p) => ({
      id: p.id,
      title: p.title,
      startedDateTime: p.startedDateTime,
      pageTimings: { onContentLoad: since(p.contentTs, p.startTs), onLoad: since(p.loadTs, p.startTs) },
    }));
  }

  // --- states ------------------------------------------------------------------------------------------

  /** Stops recording: exchanges still open (a stream, a WebSocket) are written as they are, marked open. */
  async stop(): Promise<void> {
    if (this.state !== 'recording') return;
    for (const ex of this.tab.traffic.openExchanges()) if (this.matches(ex)) this.write(ex, true);
    this.state = 'stopped';
    this.stoppedAt = new Date();
    this.unfollow();
    await this.tail;
  }

  /** Still recording: follows its tab when the tab is reopened after a crash or restart. */
  get live(): boolean {
    return this.state === 'recording';
  }

  /** Its tab is gone or a new recording replaces it: the file goes. */
  async drop(): Promise<void> {
    if (this.state !== 'deleted') await this.delete();
  }

  /** Deletes the file; the recording keeps only its state, so a summary can say it was deleted. */
  async delete(): Promise<void> {
    this.unfollow();
    this.state = 'deleted';
    await this.tail;
    await this.fh.close().catch(() => undefined);
    await unlink(this.file).catch(() => undefined);
    this.recent = [];
    this.pages = [];
    this.pagesByLoader.clear();
  }

  private unfollow() {
    for (const s of this.subs.splice(0)) s.dispose();
  }

  newest(limit: number): HarLine[] {
    return this.recent.slice(-limit).reverse();
  }

  get error(): string | undefined {
    return this.writeError;
  }

  /**
   * The entries as JSON texts, oldest first, read from the file one line at a time (the file up to its size
   * now: entries appended meanwhile wait for the next export), then, while recording, the exchanges still open.
   */
  async *entries(): AsyncGenerator<string> {
    await this.tail;
    const { size } = await stat(this.file);
    if (size > 0) {
      const lines = createInterface({ input: createReadStream(this.file, { start: 0, end: size - 1 }), crlfDelay: Infinity });
      for await (const line of lines) if (line) yield line;
    }
    if (this.state !== 'recording') return;
    let room = this.options.maxEntries - this.counts.entries;
    for (const ex of this.tab.traffic.openExchanges()) {
      if (room <= 0) break;
      if (!this.matches(ex)) continue;
      room--;
      yield JSON.stringify(harEntry(ex, this.redactor(), this.options, this.pagesByLoader.get(baseId(ex.id))?.id ?? this.current?.id, true));
    }
  }
}
