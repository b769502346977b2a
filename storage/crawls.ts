/**
 * Crawl runs, their queues and their items, durable in LMDB. Every key starts with the owner's id (built by the
 * server from the caller, never from client input), then the run id. A finished page is ONE transaction: its
 * item, its queue entry removed, the run's counters, and the links it found queued. So after a crash (kill -9)
 * the store is always a consistent point of the run: a page is either done with its links queued, or still in
 * the queue and read again; nothing in between.
 *
 * Every row counts toward its user's storage quota (user-bytes.ts): a new run, queued pages and a finished page
 * are refused whole past it (the page stays queued); state changes and deletes are counted, never refused.
 */
import { createHash } from 'node:crypto';
import type { Db } from './db.js';
import { SignedCursors } from './cursor-key.js';
import type { RowWriter } from './user-bytes.js';
import { keysUnder, range, valuesUnder } from './key-range.js';
import type { CrawlItem, CrawlRunInfo, CrawlSpec, CrawlState, ItemStatus } from '../protocol/crawl.js';

/** A run as stored: what callers see of it (CrawlRunInfo) plus its owner, its spec and the store's counters. */
export interface CrawlRecord extends Omit<CrawlRunInfo, 'name'> {
  user: string;
  spec: CrawlSpec;
  /** The sitemap's pages are in the queue (done once, at the run's first start). */
  sitemapRead?: boolean;
  nextQueueSeq: number;
  nextItemSeq: number;
}

export interface QueueEntry {
  seq: number;
  url: string;
  depth: number;
  /** Times the page was put back after a 429/503 answer. */
  tries?: number;
  /** Why the run must not fetch it (decided when the link was found): it finishes blocked with this reason. */
  skip?: string;
}

export interface NewLink {
  url: string;
  depth: number;
  skip?: string;
}

const SEP = '\u0000';
const pad = (n: number) => String(n).padStart(12, '0');
/** Seen-set keys hash the URL: LMDB keys are capped near 2 KB and URLs are not. */
const urlHash = (url: string) => createHash('sha256').update(url).digest('base64url');

export class CrawlStore {
  private cursors: SignedCursors;

  constructor(private db: Db) {
    this.cursors = new SignedCursors(db, 'crawlCursorKey');
  }

  private runKey = (user: string, id: string) => `${user}${SEP}${id}`;
  private prefix = (user: string, id: string) => `${user}${SEP}${id}${SEP}`;

  get(user: string, id: string): CrawlRecord | undefined {
    return this.db.crawls.get(this.runKey(user, id)) as CrawlRecord | undefined;
  }

  /** One user's runs, newest first. */
  runs(user: string): CrawlRecord[] {
    const out: CrawlRecord[] = [];
    for (const value of valuesUnder(this.db.crawls, [user])) out.push(value as CrawlRecord);
    return out.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id < b.id ? 1 : -1));
  }

  /** Every user's runs in a state (at start: the ones that were running when the daemon stopped). */
  runsIn(state: CrawlState): CrawlRecord[] {
    const out: CrawlRecord[] = [];
    for (const { value } of this.db.crawls.getRange({})) if ((value as CrawlRecord).state === state) out.push(value as CrawlRecord);
    return out;
  }

  /** Stores a new run with its first pages queued; resolves once it is on disk (the start is acknowledged). */
  async create(rec: CrawlRecord, first: NewLink[]): Promise<void> {
    await this.db.userBytes.write(rec.user, 'crawls', (w) => {
      this.enqueue(w, rec, first);
      w.put(this.db.crawls, this.runKey(rec.user, rec.id), rec);
    });
    await this.db.flushed();
  }

  /** Queues links not seen before in this run (inside a transaction); mutates rec's counters and sequence. */
  private enqueue(w: RowWriter, rec: CrawlRecord, links: NewLink[]): number {
    let added = 0;
    const p = this.prefix(rec.user, rec.id);
    for (const l of links) {
      const seenKey = `${p}${urlHash(l.url)}`;
      if (this.db.crawlSeen.get(seenKey) !== undefined) continue;
      w.put(this.db.crawlSeen, seenKey, 1);
      const seq = rec.nextQueueSeq++;
      w.put(this.db.crawlQueue, `${p}${pad(seq)}`, { seq, url: l.url, depth: l.depth, ...(l.skip ? { skip: l.skip } : {}) } satisfies QueueEntry);
      added++;
    }
    rec.counters.queued += added;
    return added;
  }

  /** Adds pages to a run's queue (the sitemap's, at the first start). */
  async addPages(user: string, id: string, links: NewLink[], mark: Partial<CrawlRecord> = {}): Promise<CrawlRecord | undefined> {
    let rec: CrawlRecord | undefined;
    await this.db.userBytes.write(user, 'crawls', (w) => {
      const cur = this.get(user, id);
      if (!cur) return;
      this.enqueue(w, cur, links);
      Object.assign(cur, mark, { updatedAt: new Date().toISOString() });
      w.put(this.db.crawls, this.runKey(user, id), cur);
      rec = cur;
    });
    return rec;
  }

  /** The first waiting pages in queue order, skipping the given sequence numbers (pages in flight). */
  queueHead(user: string, id: string, limit: number, skip: ReadonlySet<number>): QueueEntry[] {
    const out: QueueEntry[] = [];
    const p = this.prefix(user, id);
    for (const { value } of range(this.db.crawlQueue, { start: p, end: `${user}${SEP}${id}\u0001` })) {
      const e = value as QueueEntry;
      if (skip.has(e.seq)) continue;
      out.push(e);
      if (out.length >= limit) break;
    }
    return out;
  }

  /**
   * Puts a page back (after a 429/503) with its try count. Only over its own entry: a run cancelled or finished
   * while the page was in flight has dropped its queue, and the page must not come back into it.
   */
  async retryLater(user: string, id: string, entry: QueueEntry): Promise<void> {
    const key = `${this.prefix(user, id)}${pad(entry.seq)}`;
    await this.db.userBytes.write(
      user,
      'crawls',
      (w) => {
        if (this.db.crawlQueue.get(key) !== undefined) w.put(this.db.crawlQueue, key, entry);
      },
      'count',
    );
  }

  /**
   * A page is finished: its item stored, its queue entry gone, counters moved, and the links it found queued
   * (only while the run still runs or is paused: a cancelled run queues nothing more). One transaction.
   */
  async finishPage(user: string, id: string, entry: QueueEntry, item: Omit<CrawlItem, 'seq'>, links: NewLink[]): Promise<{ item: CrawlItem; rec: CrawlRecord } | undefined> {
    let out: { item: CrawlItem; rec: CrawlRecord } | undefined;
    await this.db.userBytes.write(user, 'crawls', (w) => {
      const rec = this.get(user, id);
      if (!rec) return;
      const p = this.prefix(user, id);
      const qKey = `${p}${pad(entry.seq)}`;
      // A page whose entry is gone (cancelled meanwhile) still keeps its item: it was read; only counters
      // of pages that were waiting move.
      if (this.db.crawlQueue.get(qKey) !== undefined) {
        w.remove(this.db.crawlQueue, qKey);
        rec.counters.queued = Math.max(0, rec.counters.queued - 1);
      }
      const full = { ...item, seq: rec.nextItemSeq++ } as CrawlItem;
      w.put(this.db.crawlItems, `${p}${pad(full.seq)}`, full);
      rec.counters[item.status] += 1;
      if (rec.state === 'running' || rec.state === 'paused') this.enqueue(w, rec, links);
      rec.updatedAt = new Date().toISOString();
      w.put(this.db.crawls, this.runKey(user, id), rec);
      out = { item: full, rec };
    });
    return out;
  }

  /**
   * Changes a run's state (and note); a final state drops what is still queued. Durable before it resolves.
   * `from`: only when the run is in one of these states now (else it is answered as it is, unchanged).
   */
  async setState(user: string, id: string, state: CrawlState, note?: string, from?: readonly CrawlState[]): Promise<CrawlRecord | undefined> {
    let rec: CrawlRecord | undefined;
    await this.db.userBytes.write(
      user,
      'crawls',
      (w) => {
        const cur = this.get(user, id);
        if (!cur) return;
        rec = cur;
        if (from && !from.includes(cur.state)) return;
        cur.state = state;
        cur.updatedAt = new Date().toISOString();
        if (note !== undefined) cur.note = note;
        if (state === 'finished' || state === 'cancelled' || state === 'failed') {
          cur.finishedAt = cur.updatedAt;
          this.clearRange(w, this.db.crawlQueue, user, id);
          cur.counters.queued = 0;
        }
        w.put(this.db.crawls, this.runKey(user, id), cur);
      },
      'count',
    );
    await this.db.flushed();
    return rec;
  }

  private clearRange(w: RowWriter, db: Db['crawlQueue'], user: string, id: string) {
    for (const key of [...keysUnder(db, [user, id])]) w.remove(db, key);
  }

  /** A page of items in finishing order, optionally one status; `cursor` from the previous page. */
  items(user: string, id: string, opts: { status?: ItemStatus; cursor?: string; limit: number }): { items: CrawlItem[]; next?: string } {
    const after = opts.cursor === undefined ? -1 : this.cursorSeq(user, id, opts.cursor);
    const items: CrawlItem[] = [];
    let more = false;
    for (const item of this.iterItems(user, id, { status: opts.status, afterSeq: after })) {
      if (items.length >= opts.limit) {
        more = true;
        break;
      }
      items.push(item);
    }
    return { items, ...(more && items.length ? { next: this.cursorFor(user, id, items[items.length - 1]!.seq) } : {}) };
  }

  /** Items one at a time from the store, never all at once (exports of 5,000 pages stream these). */
  *iterItems(user: string, id: string, opts: { status?: ItemStatus; afterSeq?: number } = {}): Generator<CrawlItem> {
    const p = this.prefix(user, id);
    const start = opts.afterSeq !== undefined && opts.afterSeq >= 0 ? `${p}${pad(opts.afterSeq + 1)}` : p;
    // snapshot false: a slow export download must not hold one read snapshot open (the file would grow meanwhile).
    for (const { value } of range(this.db.crawlItems, { start, end: `${user}${SEP}${id}\u0001`, snapshot: false })) {
      const item = value as CrawlItem;
      if (!opts.status || item.status === opts.status) yield item;
    }
  }

  /** Removes a run with its queue, seen set and items. */
  async delete(user: string, id: string): Promise<void> {
    await this.db.userBytes.write(
      user,
      'crawls',
      (w) => {
        this.clearRange(w, this.db.crawlQueue, user, id);
        this.clearRange(w, this.db.crawlSeen, user, id);
        this.clearRange(w, this.db.crawlItems, user, id);
        w.remove(this.db.crawls, this.runKey(user, id));
      },
      'count',
    );
    await this.db.flushed();
  }

  /** An opaque cursor after item `seq`, bound to this user and run. */
  cursorFor(user: string, id: string, seq: number): string {
    return this.cursors.issue([user, id], seq.toString(36));
  }

  private cursorSeq(user: string, id: string, cursor: string): number {
    return parseInt(this.cursors.open([user, id], cursor, /^[0-9a-z]{1,10}$/), 36);
  }
}
