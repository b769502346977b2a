/**
 * Monitors at run time: loads every stored monitor at start into the scheduler (a run missed while the daemon
 * was down runs once, now), runs each check (capture, compare with the baseline, store, and on a change
 * emit `monitor.changed` before the check counts as done), and serves the tool's create/list/get/checks/run/
 * delete. Checks of one monitor never overlap: a `run` call waits for a scheduled check in flight, and back.
 */
import { randomBytes } from 'node:crypto';
import type { Db } from '../../storage/db.js';
import { BrowserdError } from '../../protocol/errors.js';
import { MonitorStore, type Baseline, type CheckRecord, type MonitorRecord, type MonitorSpec } from '../../storage/monitors.js';
import { parseCronRule, type CronRule } from './cron-rule.js';
import { MonitorScheduler } from './scheduler.js';
import { systemClock, type Clock } from './clock.js';
import { captureInBrowser, type CaptureFn, type MonitorDeps } from './capture.js';
import { compareScreenshots, compareText, comparableText, ignoreMatchers, snapshotForCompare, type Comparison } from './compare.js';
import { isoInZone } from './zone-time.js';
import { isQuotaRefusal, quotaError } from '../quotas/limits.js';
import { ServiceKey } from '../call/services.js';

/** Checks at once across all users: each holds a tab in a browser, so a boundary shared by many monitors queues. */
export const CHECK_CONCURRENCY = 4;

export interface MonitorServiceOptions {
  clock?: Clock;
  concurrency?: number;
  /** How a check looks at the page; the bench replaces the browser to measure the scheduler alone. */
  capture?: CaptureFn;
}

/** A monitor as callers see it. */
export interface MonitorView {
  id: string;
  name?: string;
  url: string;
  cron: string;
  timezone: string;
  compare: MonitorSpec['compare'];
  selector?: string;
  threshold?: number;
  ignore?: string[];
  createdAt: string;
  /** ISO 8601 in the monitor's zone, with its offset. */
  nextRunAt?: string;
  lastCheck?: MonitorRecord['lastCheck'];
  checksKept: number;
}

const SEP = '\u0000';
const keyOf = (user: string, id: string) => `${user}${SEP}${id}`;
const splitKey = (key: string) => {
  const i = key.indexOf(SEP);
  return { user: key.slice(0, i), id: key.slice(i + 1) };
};

/** Page monitors: tools reach the service through this key (call/services.ts). */
export const MONITORS = new ServiceKey<MonitorService>('monitors');

export class MonitorService {
  readonly store: MonitorStore;
  private scheduler: MonitorScheduler;
  /** Each monitor's rule; monitors with the same cron and zone share one (a croner job holds a zone formatter). */
  private rules = new Map<string, CronRule>();
  private sharedRules = new Map<string, { rule: CronRule; users: number }>();
  /** The check in flight per monitor, so checks of one monitor run one after another. */
  private inFlight = new Map<string, Promise<unknown>>();
  private readonly clock: Clock;
  private readonly capture: CaptureFn;

  /** env is read at each check, not here: the service is built while the env it belongs to is. */
  constructor(db: Db, private env: () => MonitorDeps, opts: MonitorServiceOptions = {}) {
    this.store = new MonitorStore(db);
    this.clock = opts.clock ?? systemClock;
    this.capture = opts.capture ?? captureInBrowser;
    this.scheduler = new MonitorScheduler({
      clock: this.clock,
      concurrency: opts.concurrency ?? CHECK_CONCURRENCY,
      nextAfter: (key, after) => this.rules.get(key)?.nextAfter(new Date(after))?.getTime(),
      run: async (key, scheduledAt) => {
        const { user, id } = splitKey(key);
        // A disabled account's monitors keep their schedule but check nothing while it is disabled.
        if (!this.env().users.isActive(user)) return;
        // The check covers every run up to now: one late by hours (asleep, or missed while down) stands for
        // all it replaced, so a restart right after it does not run it again.
        // The queue's slot bounds tabs, so it is free once the page is captured; comparing and storing go on
        // beside the next checks (and the store commits many of them together).
        await this.check(user, id, 'schedule', new Date(Math.max(scheduledAt, this.clock.now())).toISOString()).captured;
      },
    });
  }

  /** Schedules every stored monitor; each whose run fell while the daemon was down runs once, now. */
  start(): void {
    this.scheduleEach(this.store.all());
  }

  /** A user moved in from another host of a fleet: their monitors run here from now on (one that fell due, now). */
  adoptUser(user: string): void {
    this.scheduleEach(this.store.list(user));
  }

  /** A user moving away: none of their monitors runs here again (call it before their rows go). */
  forgetUser(user: string): void {
    for (const rec of this.store.list(user)) {
      const key = keyOf(user, rec.id);
      this.scheduler.remove(key);
      this.dropRule(key);
    }
  }

  private scheduleEach(records: Iterable<MonitorRecord>): void {
    const now = this.clock.now();
    for (const rec of records) {
      const key = keyOf(rec.user, rec.id);
      const rule = this.useRule(key, rec.cron, rec.timezone, () => parseCronRule(rec.cron, rec.timezone, { checkGap: false, now: new Date(now) }));
      const due = rule.nextAfter(new Date(rec.scheduledFrom))?.getTime();
      if (due !== undefined && due <= now) {
        this.scheduler.runSoon(key, due);
        const next = rule.nextAfter(new Date(now))?.getTime();
        if (next !== undefined) this.scheduler.schedule(key, next);
      } else if (due !== undefined) this.scheduler.schedule(key, due);
    }
  }

  /** Resolves once no check is in flight (tests; shutdown uses stop). */
  async settled(): Promise<void> {
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight.values()]);
  }

  /** No new check starts; waits for the running ones (their browsers are still up). */
  async stop(): Promise<void> {
    await this.scheduler.stop();
    await Promise.allSettled([...this.inFlight.values()]);
  }

  async create(user: string, spec: MonitorSpec): Promise<MonitorView> {
    const now = new Date(this.clock.now());
    const rule = parseCronRule(spec.cron, spec.timezone, { now });
    const rec: MonitorRecord = {
      ...spec,
      id: `mon_${randomBytes(8).toString('hex')}`,
      user,
      createdAt: now.toISOString(),
      scheduledFrom: now.toISOString(),
      checkCount: 0,
      nextSeq: 1,
    };
    const limit = this.env().cfg.quotas.monitors;
    if ((await this.store.create(rec, limit)) === 'full') {
      throw quotaError('monitors', this.store.count(user), limit, 'Delete one you no longer need (browser_monitor action "delete") and create again.');
    }
    const key = keyOf(user, rec.id);
    const next = this.useRule(key, rule.cron, rule.timezone, () => rule).nextAfter(now);
    if (next) this.scheduler.schedule(key, next.getTime());
    return this.view(rec);
  }

  list(user: string, limit: number): { monitors: MonitorView[]; total: number } {
    const all = this.store.list(user);
    return { monitors: all.slice(0, limit).map((r) => this.view(r)), total: all.length };
  }

  get(user: string, id: string): MonitorView {
    return this.view(this.record(user, id));
  }

  checks(user: string, id: string, opts: { changedOnly: boolean; limit: number }): CheckRecord[] {
    this.record(user, id);
    return this.store.checks(user, id, opts);
  }

  async delete(user: string, id: string): Promise<void> {
    this.record(user, id);
    const key = keyOf(user, id);
    this.scheduler.remove(key);
    this.dropRule(key);
    await this.store.delete(user, id);
  }

  /** Checks now (after any check of it in flight) and answers the stored check. */
  async run(user: string, id: string): Promise<CheckRecord & { comparison?: Comparison }> {
    this.record(user, id);
    const r = await this.check(user, id, 'run').result;
    if (!r) throw this.notFound(id);
    return r;
  }

  private useRule(key: string, cron: string, timezone: string, make: () => CronRule): CronRule {
    const text = `${timezone} ${cron}`;
    let shared = this.sharedRules.get(text);
    if (!shared) this.sharedRules.set(text, (shared = { rule: make(), users: 0 }));
    shared.users++;
    this.rules.set(key, shared.rule);
    return shared.rule;
  }

  private dropRule(key: string) {
    const rule = this.rules.get(key);
    if (!rule) return;
    this.rules.delete(key);
    const text = `${rule.timezone} ${rule.cron}`;
    const shared = this.sharedRules.get(text);
    if (shared && --shared.users <= 0) this.sharedRules.delete(text);
  }

  private record(user: string, id: string): MonitorRecord {
    const rec = this.store.get(user, id);
    if (!rec) throw this.notFound(id);
    return rec;
  }

  private notFound(id: string) {
    return new BrowserdError('not_found', `no monitor ${id}`, { next: 'List yours with browser_monitor {"action": "list"}.' });
  }

  view(rec: MonitorRecord): MonitorView {
    const next = this.scheduler.nextRunOf(keyOf(rec.user, rec.id));
    return {
      id: rec.id,
      ...(rec.name !== undefined ? { name: rec.name } : {}),
      url: rec.url,
      cron: rec.cron,
      timezone: rec.timezone,
      compare: rec.compare,
      ...(rec.selector !== undefined ? { selector: rec.selector } : {}),
      ...(rec.compare === 'screenshot' ? { threshold: rec.threshold } : { ignore: rec.ignore }),
      createdAt: rec.createdAt,
      ...(next !== undefined ? { nextRunAt: isoInZone(new Date(next), rec.timezone) } : {}),
      ...(rec.lastCheck ? { lastCheck: rec.lastCheck } : {}),
      checksKept: rec.checkCount,
    };
  }

  /** One check, queued behind the monitor's check in flight; `captured` settles once its tab is closed. */
  private check(user: string, id: string, trigger: CheckRecord['trigger'], scheduledFor?: string): { captured: Promise<void>; result: Promise<(CheckRecord & { comparison?: Comparison }) | undefined> } {
    const key = keyOf(user, id);
    let markCaptured!: () => void;
    const captured = new Promise<void>((r) => (markCaptured = r));
    const before = this.inFlight.get(key) ?? Promise.resolve();
    const result = before
      .catch(() => undefined)
      .then(() => this.checkOnce(user, id, trigger, scheduledFor, markCaptured))
      .finally(markCaptured);
    this.inFlight.set(key, result);
    void result
      .finally(() => {
        if (this.inFlight.get(key) === result) this.inFlight.delete(key);
      })
      .catch(() => undefined);
    return { captured, result };
  }

  private async checkOnce(user: string, id: string, trigger: CheckRecord['trigger'], scheduledFor: string | undefined, captured: () => void): Promise<(CheckRecord & { comparison?: Comparison }) | undefined> {
    const rec = this.store.get(user, id);
    if (!rec) return undefined;
    const env = this.env();
    const at = new Date(this.clock.now()).toISOString();
    let current: Baseline;
    try {
      current = await this.capture(env, user, rec);
      captured();
    } catch (e) {
      captured();
      // A failed load is a check of its own; the baseline stays what it was.
      const summary = e instanceof Error ? e.message : String(e);
      return this.addCheck(user, id, { at, changed: false, status: 'failed', summary, trigger }, { scheduledFor });
    }
    if (current.kind === 'text') {
      const text = rec.compare === 'snapshot' ? snapshotForCompare(current.text) : current.text;
      current = { kind: 'text', text: comparableText(text, ignoreMatchers(rec.ignore)) };
    }
    const base = this.store.baseline(user, id);
    if (!base || base.kind !== current.kind) {
      const summary = current.kind === 'text' ? `baseline recorded: ${current.text ? current.text.split('\n').length - 1 : 0} line(s)` : 'baseline picture recorded';
      return this.addCheck(user, id, { at, changed: false, status: 'ok', summary, trigger }, { baseline: current, scheduledFor });
    }
    const comparison = current.kind === 'text' ? compareText((base as { text: string }).text, current.text) : compareScreenshots((base as { png: Buffer }).png, current.png, rec.threshold);
    // Pictures within the threshold keep the old baseline, so a slow drift adds up to a change in the end.
    const stored = await this.addCheck(user, id, { at, changed: comparison.changed, status: 'ok', summary: comparison.summary, trigger }, comparison.changed ? { baseline: current, scheduledFor } : { scheduledFor });
    if (!stored) return undefined;
    if (stored.status === 'failed') return stored;
    if (comparison.changed) await this.announce(env, rec, stored, comparison);
    return { ...stored, comparison };
  }

  /**
   * Stores a check. One that would pass the user's storage quota is not kept: a short failed check saying so
   * is (counted, not refused: the oldest checks past the cap make room), the baseline stays, and the monitor
   * goes on with its schedule, so it checks again once the user has room.
   */
  private async addCheck(user: string, id: string, check: Omit<CheckRecord, 'seq'>, opts: { baseline?: Baseline; scheduledFor?: string }): Promise<CheckRecord | undefined> {
    try {
      return await this.store.addCheck(user, id, check, opts);
    } catch (e) {
      if (!isQuotaRefusal(e, 'storageBytes')) throw e;
      const summary = `not stored: it would pass your storage quota (--max-storage-mb-per-user); the baseline is kept. Delete what you no longer need and the next check is stored again.`;
      return this.store.addCheck(user, id, { at: check.at, changed: false, status: 'failed', summary, trigger: check.trigger }, { scheduledFor: opts.scheduledFor, quota: 'count' });
    }
  }

  /** Queues the event durably before the check answers; a webhook failure is logged, never a lost check. */
  private async announce(env: MonitorDeps, rec: MonitorRecord, check: CheckRecord, c: Comparison) {
    const data = {
      monitorId: rec.id,
      ...(rec.name !== undefined ? { name: rec.name } : {}),
      url: rec.url,
      compare: rec.compare,
      at: check.at,
      summary: c.summary,
      ...(c.added ? { added: c.added, removed: c.removed } : {}),
      ...(c.share !== undefined ? { share: c.share } : {}),
    };
    try {
      await env.webhooks.emit(rec.user, 'monitor.changed', data);
    } catch (e) {
      env.log.error({ monitor: rec.id, err: String(e) }, 'monitor.changed could not be queued');
    }
  }
}
