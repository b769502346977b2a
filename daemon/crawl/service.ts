/**
 * Crawl runs for every user: start, state changes, waiting, items, and going on with what was running when the
 * daemon stopped. The engine (engine.ts) reads pages; this is the face tools and REST call. Every lookup takes
 * the caller's id: another user's crawl id is simply not found.
 */
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Platform } from '../platform.js';
import { CrawlStore, type CrawlRecord } from '../../storage/crawls.js';
import { BrowserdError } from '../../protocol/errors.js';
import type { CrawlSpec } from './params.js';
import type { CrawlItem, CrawlRunInfo, ItemStatus } from './types.js';
import { CrawlRun } from './engine.js';
import { checkFieldSelectors, checkOutputSchema } from './page-output.js';
import { pageKey } from './rules.js';
import { CrawlModel, usesModel } from './model-fill.js';
import { PendingCount, quotaError } from '../quotas/limits.js';
import { ServiceKey } from '../call/services.js';

export type CrawlAction = 'pause' | 'resume' | 'cancel';

export interface ItemPage {
  items: CrawlItem[];
  /** Opaque, signed for this user and crawl: hand it back for the next page. */
  next?: string;
}

/** How long a stopping daemon waits for pages in flight before it closes the browsers under them. */
const STOP_GRACE_MS = 5000;

const info = (r: CrawlRecord): CrawlRunInfo => ({
  id: r.id,
  ...(r.spec.name ? { name: r.spec.name } : {}),
  state: r.state,
  counters: { ...r.counters },
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
  ...(r.finishedAt ? { finishedAt: r.finishedAt } : {}),
  ...(r.note ? { note: r.note } : {}),
});

/** Crawl runs: tools reach the service through this key (call/services.ts). */
export const CRAWLS = new ServiceKey<CrawlService>('crawls');

export class CrawlService {
  private store?: CrawlStore;
  private runs = new Map<string, CrawlRun>();
  /** Model fillers of crawls with outputSchema and no fields: the starting call's key lives here only, in memory. */
  private models = new Map<string, CrawlModel>();
  private events = new EventEmitter();
  private closing = false;
  /** Starts between the quota check and the stored record (quotas/limits.ts). */
  private starting = new PendingCount();

  /** `env` is read lazily: the service is built inside the env literal it belongs to. */
  constructor(private readonly env: () => Platform) {
    this.events.setMaxListeners(0);
  }

  private get db(): CrawlStore {
    this.store ??= new CrawlStore(this.env().db);
    return this.store;
  }

  private key = (user: string, id: string) => `${user}\u0000${id}`;

  private launch(rec: CrawlRecord) {
    if (this.closing) return;
    const key = this.key(rec.user, rec.id);
    if (this.runs.has(key)) return;
    const run = new CrawlRun(this.env(), this.db, rec, { changed: (r) => this.events.emit(key, r) }, this.modelFor(rec));
    this.runs.set(key, run);
    void run.done.finally(() => {
      if (this.runs.get(key) === run) this.runs.delete(key);
      // A paused run keeps its filler (and key) for resume; an ended one lets go of them.
      const state = this.db.get(rec.user, rec.id)?.state;
      if (state !== 'running' && state !== 'paused') this.dropModel(key);
    });
  }

  /**
   * The run's model filler: the one made when it started (with the caller's key), else (after a restart) a new
   * one on the host key, its budget less what the stored items already spent.
   */
  private modelFor(rec: CrawlRecord, modelKey?: string): CrawlModel | undefined {
    if (!usesModel(rec.spec)) return undefined;
    const key = this.key(rec.user, rec.id);
    let model = this.models.get(key);
    if (!model) {
      const spent = () => {
        let n = 0;
        for (const item of this.db.iterItems(rec.user, rec.id)) n += (item.model?.inputTokens ?? 0) + (item.model?.outputTokens ?? 0);
        return n;
      };
      model = new CrawlModel(this.env(), rec.user, rec.spec, modelKey, spent);
      this.models.set(key, model);
    }
    return model;
  }

  private dropModel(key: string) {
    this.models.get(key)?.close();
    this.models.delete(key);
  }

  /**
   * Starts a run; resolves once the run and its first queue entries are on disk. `modelKey` (the caller's
   * X-Model-Key) is kept in memory for the run's model filler only, never stored.
   */
  async start(user: string, spec: CrawlSpec, opts: { modelKey?: string } = {}): Promise<CrawlRunInfo> {
    checkFieldSelectors(spec.fields);
    checkOutputSchema(spec.outputSchema);
    if (this.closing) throw new BrowserdError('shutting_down', 'the daemon is stopping', { next: 'Start the crawl again in a few seconds.' });
    // A paused run counts: it keeps its queue and may resume at any time.
    const limit = this.env().cfg.quotas.crawls;
    const active = this.db.runs(user).filter((r) => r.state === 'running' || r.state === 'paused').length + this.starting.of(user);
    if (active >= limit) throw quotaError('crawls', active, limit, 'Wait for one of your crawls to finish, or cancel one you no longer need (browser_crawl action "cancel"), then start again.');
    const release = this.starting.hold(user);
    try {
      return await this.create(user, spec, opts);
    } finally {
      release();
    }
  }

  private async create(user: string, spec: CrawlSpec, opts: { modelKey?: string }): Promise<CrawlRunInfo> {
    const now = new Date().toISOString();
    const rec: CrawlRecord = {
      id: `crawl_${randomBytes(8).toString('hex')}`,
      user,
      spec,
      state: 'running',
      counters: { queued: 0, done: 0, failed: 0, blocked: 0 },
      createdAt: now,
      updatedAt: now,
      nextQueueSeq: 1,
      nextItemSeq: 1,
    };
    await this.db.create(rec, spec.startUrls.map((u) => ({ url: pageKey(u), depth: 0 })));
    this.modelFor(rec, opts.modelKey);
    this.launch(rec);
    return info(rec);
  }

  get(user: string, id: string): CrawlRunInfo | undefined {
    const rec = this.db.get(user, id);
    return rec && info(rec);
  }

  /** The stored spec of a run (for REST GET and exports). */
  spec(user: string, id: string): CrawlSpec | undefined {
    return this.db.get(user, id)?.spec;
  }

  list(user: string, opts: { limit: number; cursor?: string }): { runs: CrawlRunInfo[]; next?: string } {
    const all = this.db.runs(user);
    let from = 0;
    if (opts.cursor !== undefined) {
      const at = all.findIndex((r) => this.db.cursorFor(user, r.id, 0) === opts.cursor);
      if (at < 0) throw new BrowserdError('validation_error', 'the cursor is not one this server gave you', { next: 'Pass the cursor from your previous page unchanged, or omit it for the newest runs.' });
      from = at + 1;
    }
    const page = all.slice(from, from + opts.limit);
    const more = from + opts.limit < all.length;
    return { runs: page.map(info), ...(more && page.length ? { next: this.db.cursorFor(user, page[page.length - 1]!.id, 0) } : {}) };
  }

  /** pause | resume | cancel, as the state machine allows; anything else is a validation_error naming the state. */
  async act(user: string, id: string, action: CrawlAction): Promise<CrawlRunInfo> {
    const rec = this.db.get(user, id);
    if (!rec) throw new BrowserdError('not_found', `no crawl ${id}`, { next: 'List your crawls with GET /v1/crawls, or start one with browser_crawl.' });
    const allowed: Record<CrawlAction, CrawlRecord['state'][]> = { pause: ['running'], resume: ['paused'], cancel: ['running', 'paused'] };
    if (!allowed[action].includes(rec.state)) {
      const can = rec.state === 'running' ? 'pause or cancel' : rec.state === 'paused' ? 'resume or cancel' : 'read its items; start a new crawl to read more';
      throw new BrowserdError('validation_error', `crawl ${id} is ${rec.state}, so it cannot ${action}`, { next: `A ${rec.state} crawl can only ${can}.` });
    }
    const next = action === 'pause' ? 'paused' : action === 'resume' ? 'running' : 'cancelled';
    const updated = (await this.db.setState(user, id, next, action === 'cancel' ? 'cancelled by the caller' : undefined))!;
    this.events.emit(this.key(user, id), updated);
    const run = this.runs.get(this.key(user, id));
    run?.poke();
    if (next === 'running') {
      // A pause that has not yet wound down goes on in the same engine; otherwise a new one picks up the queue.
      if (run) await run.done;
      this.launch(updated);
    }
    return info(updated);
  }

  /** Resolves when the run is no longer running, or after timeoutMs, or when signal aborts. */
  async waitWhileRunning(user: string, id: string, timeoutMs: number, signal?: AbortSignal): Promise<CrawlRunInfo> {
    const first = this.get(user, id);
    if (!first) throw new BrowserdError('not_found', `no crawl ${id}`, { next: 'List your crawls with GET /v1/crawls.' });
    if (first.state !== 'running' || timeoutMs <= 0 || signal?.aborted) return first;
    const key = this.key(user, id);
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.events.off(key, onChange);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const onChange = (r: CrawlRecord) => {
        if (r.state !== 'running') done();
      };
      const timer = setTimeout(done, timeoutMs);
      this.events.on(key, onChange);
      signal?.addEventListener('abort', done, { once: true });
    });
    return this.get(user, id)!;
  }

  /** Resolves with the run's info once `pred` holds for it (checked now and at every change), or after timeoutMs. */
  async waitFor(user: string, id: string, pred: (run: CrawlRunInfo) => boolean, timeoutMs: number): Promise<CrawlRunInfo> {
    const first = this.get(user, id);
    if (!first) throw new BrowserdError('not_found', `no crawl ${id}`, { next: 'List your crawls with GET /v1/crawls.' });
    if (pred(first)) return first;
    const key = this.key(user, id);
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.events.off(key, onChange);
        resolve();
      };
      const onChange = (r: CrawlRecord) => {
        if (pred(info(r))) done();
      };
      const timer = setTimeout(done, timeoutMs);
      this.events.on(key, onChange);
    });
    return this.get(user, id)!;
  }

  items(user: string, id: string, opts: { status?: ItemStatus; cursor?: string; limit: number }): ItemPage {
    if (!this.db.get(user, id)) throw new BrowserdError('not_found', `no crawl ${id}`, { next: 'List your crawls with GET /v1/crawls.' });
    return this.db.items(user, id, opts);
  }

  /** Every item in order, read lazily from the store (exports stream these without holding the crawl). */
  *iterateItems(user: string, id: string, opts: { status?: ItemStatus } = {}): Generator<CrawlItem> {
    if (!this.db.get(user, id)) return;
    yield* this.db.iterItems(user, id, opts);
  }

  /** Deletes a run with its items (a running one is cancelled first). */
  async delete(user: string, id: string): Promise<void> {
    const rec = this.db.get(user, id);
    if (!rec) throw new BrowserdError('not_found', `no crawl ${id}`, { next: 'List your crawls with GET /v1/crawls.' });
    if (rec.state === 'running' || rec.state === 'paused') await this.db.setState(user, id, 'cancelled', 'deleted');
    const run = this.runs.get(this.key(user, id));
    run?.poke();
    if (run) await run.done;
    this.dropModel(this.key(user, id));
    await this.db.delete(user, id);
  }

  /** At daemon start: every run that was running goes on from its queue. */
  resumeAll(): void {
    this.resume();
  }

  /** A user moved in from another host of a fleet: their running crawls go on here. */
  resumeUser(user: string): void {
    this.resume(user);
  }

  /** Launches the stored running crawls (of `only`, when given); one already running is left as it is. */
  private resume(only?: string): void {
    for (const rec of this.db.runsIn('running')) if (only === undefined || rec.user === only) this.launch(rec);
  }

  /** A user moving away: their runs stop here (their rows go with them, and go on at the new host). */
  async stopUser(user: string): Promise<void> {
    await Promise.all([...this.runs].filter(([key]) => key.startsWith(this.key(user, ''))).map(([, run]) => run.stop(STOP_GRACE_MS)));
  }

  /** At daemon stop: no new pages start; waits for pages in flight up to the grace period. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all([...this.runs.values()].map((r) => r.stop(STOP_GRACE_MS)));
    // After the grace period: a page still waiting on its model is not stored, and is read again after the restart.
    for (const m of this.models.values()) m.close();
  }
}
