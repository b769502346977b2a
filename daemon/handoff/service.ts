/**
 * The hand-off service: creates hand-offs, moves them between states (open -> resolved | expired), and wakes
 * whoever waits on one the moment its state changes. Waiters live in memory (a waiting call is a live
 * request); the records live in LMDB, so a restart keeps every hand-off and its link.
 */
import type { Logger } from 'pino';
import { BrowserdError } from '../../protocol/errors.js';
import { ServiceKey } from '../call/services.js';
import { handoffStatus, type HandoffReason, type HandoffRecord, type HandoffStatus, type HandoffStore } from '../../storage/handoffs.js';

export const MESSAGE_MAX = 2000;
export const NOTE_MAX = 2000;
export const EXPIRES_MIN_S = 60;
export const EXPIRES_MAX_S = 86400;
export const EXPIRES_DEFAULT_S = 1800;

/** Longest single setTimeout Node keeps (about 24.8 days); a later expiry re-arms when this one fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A hand-off as tools and pages show it: the state as of now, never the token. */
export interface HandoffView {
  id: string;
  reason: HandoffReason;
  message: string;
  status: HandoffStatus;
  createdAt: string;
  expiresAt: string;
  /** Seconds left while open. */
  expiresInS?: number;
  /** The latest expiresAt any extension can reach. */
  capAt: string;
  note?: string;
  tab?: string;
  resolvedBy?: 'person' | 'agent';
  resolvedAt?: string;
}

export interface HandoffServiceOptions {
  /** Whole-life cap in seconds (config handoffMaxS). */
  maxLifeS: number;
  /** Absolute base of the links we hand out. */
  baseUrl: () => string;
  /** Whether `tab` is one of the user's tabs. */
  hasTab: (user: string, tab: string) => boolean;
  log: Logger;
  /** The clock, in ms since the epoch; tests move it instead of sleeping. */
  now?: () => number;
  /** Called once a hand-off is resolved or expired (the handoff.finished webhook); awaited, failures logged. */
  onFinished?: (rec: HandoffRecord) => Promise<void>;
}

const k = (user: string, id: string) => `${user}\u0000${id}`;

const notFound = (id: string) => new BrowserdError('not_found', `no hand-off ${id}`, { next: 'List your hand-offs with browser_handoffs.' });

/** Hand-offs: tools, the page, tasks and the vault's sign-in reach the service through this key (call/services.ts). */
export const HANDOFFS = new ServiceKey<HandoffService>('handoffs');

export class HandoffService {
  now: () => number;
  private waiters = new Map<string, Set<() => void>>();
  private timers = new Map<string, NodeJS.Timeout>();

  constructor(private store: HandoffStore, private opts: HandoffServiceOptions) {
    this.now = opts.now ?? Date.now;
    // Hand-offs that were open when the daemon last stopped: those past their time expire now, the rest on time.
    for (const rec of store.listOpen()) this.arm(rec);
  }

  get maxLifeS(): number {
    return this.opts.maxLifeS;
  }

  view(rec: HandoffRecord): HandoffView {
    const now = this.now();
    const status = handoffStatus(rec, now);
    const v: HandoffView = { id: rec.id, reason: rec.reason, message: rec.message, status, createdAt: rec.createdAt, expiresAt: rec.expiresAt, capAt: rec.capAt };
    if (status === 'open') v.expiresInS = Math.max(0, Math.ceil((Date.parse(rec.expiresAt) - now) / 1000));
    if (rec.note !== undefined) v.note = rec.note;
    if (rec.tab) v.tab = rec.tab;
    if (rec.resolvedBy) v.resolvedBy = rec.resolvedBy;
    if (rec.resolvedAt) v.resolvedAt = rec.resolvedAt;
    return v;
  }

  /** One of the user's hand-offs; another user's id is as unknown as one never made. */
  get(user: string, id: string): HandoffRecord {
    const rec = this.store.get(user, id);
    if (!rec) throw notFound(id);
    return rec;
  }

  /** The hand-off a page token opens, or undefined. */
  byToken(token: string): HandoffRecord | undefined {
    return this.store.byToken(token);
  }

  statusOf(rec: HandoffRecord): HandoffStatus {
    return handoffStatus(rec, this.now());
  }

  async create(user: string, req: { reason?: HandoffReason; message: string; tab?: string; expiresInS?: number }): Promise<{ record: HandoffRecord; url: string; capped: boolean }> {
    const message = req.message;
    if (typeof message !== 'string' || !message.trim()) throw new BrowserdError('validation_error', 'message is empty', { next: 'Say in a sentence what the person should do.' });
    if (message.length > MESSAGE_MAX) throw new BrowserdError('validation_error', `message is ${message.length} characters; at most ${MESSAGE_MAX}`, { next: 'Say it in fewer words.' });
    const expiresInS = checkExpiresInS(req.expiresInS ?? EXPIRES_DEFAULT_S);
    if (req.tab !== undefined && !this.opts.hasTab(user, req.tab)) {
      throw new BrowserdError('not_found', `no tab ${req.tab}`, { next: 'List your tabs with browser_tabs, or leave tab out to show the current one.' });
    }
    const now = this.now();
    const capAt = now + this.opts.maxLifeS * 1000;
    const wanted = now + expiresInS * 1000;
    const { record, token } = await this.store.create({
      user,
      reason: req.reason ?? 'other',
      message,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(Math.min(wanted, capAt)).toISOString(),
      capAt: new Date(capAt).toISOString(),
      ...(req.tab ? { tab: req.tab } : {}),
    });
    this.arm(record);
    return { record, url: `${this.opts.baseUrl()}/handoff/${token}`, capped: wanted > capAt };
  }

  /** The user's hand-offs, newest first, optionally only those in one state. */
  list(user: string, status?: HandoffStatus): HandoffView[] {
    return this.store.list(user).map((r) => this.view(r)).filter((v) => !status || v.status === status);
  }

  /** Marks an open hand-off resolved and wakes its waiters. Anything not open is a clear error and changes nothing. */
  async resolve(user: string, id: string, by: 'person' | 'agent', note?: string): Promise<HandoffRecord> {
    if (note !== undefined && note.length > NOTE_MAX) throw new BrowserdError('validation_error', `note is ${note.length} characters; at most ${NOTE_MAX}`, { next: 'Shorten the note.' });
    this.get(user, id);
    const at = this.now();
    const rec = await this.store.update(user, id, (cur) => {
      refuseUnlessOpen(cur, handoffStatus(cur, at), 'resolve');
      return { status: 'resolved', resolvedBy: by, resolvedAt: new Date(at).toISOString(), ...(note !== undefined ? { note } : {}) };
    });
    this.disarm(user, id);
    this.wake(user, id);
    await this.finished(rec);
    return rec;
  }

  private async finished(rec: HandoffRecord) {
    await this.opts.onFinished?.(rec).catch((e) => this.opts.log.error({ id: rec.id, err: String(e) }, 'hand-off finished event failed'));
  }

  /** Moves an open hand-off's expiry to `expiresInS` from now, no later than its cap. */
  async extend(user: string, id: string, expiresInS: number): Promise<{ record: HandoffRecord; capped: boolean }> {
    checkExpiresInS(expiresInS);
    this.get(user, id);
    const at = this.now();
    let capped = false;
    const rec = await this.store.update(user, id, (cur) => {
      refuseUnlessOpen(cur, handoffStatus(cur, at), 'extend');
      const cap = Date.parse(cur.capAt);
      const wanted = at + expiresInS * 1000;
      if (wanted > cap && Date.parse(cur.expiresAt) >= cap) {
        throw new BrowserdError('refused', `${cur.id} already lasts until its cap, ${cur.capAt} (a hand-off lives at most ${this.opts.maxLifeS} s)`, {
          next: 'If the person needs longer, create a new hand-off with browser_handoff when this one expires.',
        });
      }
      capped = wanted > cap;
      return { expiresAt: new Date(Math.min(wanted, cap)).toISOString() };
    });
    this.arm(rec);
    return { record: rec, capped };
  }

  /**
   * Returns the hand-off as soon as its state changes (Done pressed, resolved, expired), when `timeoutMs`
   * passes, or when `signal` aborts; at once when it is not open.
   */
  async wait(user: string, id: string, timeoutMs: number, signal?: AbortSignal): Promise<HandoffView> {
    const first = this.get(user, id);
    if (this.statusOf(first) !== 'open' || timeoutMs <= 0 || signal?.aborted) return this.view(first);
    await new Promise<void>((resolve) => {
      const key = k(user, id);
      const set = this.waiters.get(key) ?? new Set();
      this.waiters.set(key, set);
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        set.delete(done);
        if (!set.size && this.waiters.get(key) === set) this.waiters.delete(key);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      signal?.addEventListener('abort', done, { once: true });
      set.add(done);
    });
    return this.view(this.get(user, id));
  }

  /** How many calls are waiting on a hand-off right now. */
  waiting(user: string, id: string): number {
    return this.waiters.get(k(user, id))?.size ?? 0;
  }

  /** Marks every open hand-off whose time has come expired and wakes its waiters (timers call it; so may tests). */
  async expireDue(): Promise<void> {
    const now = this.now();
    for (const rec of this.store.listOpen()) {
      if (handoffStatus(rec, now) !== 'expired') continue;
      let expiredNow = false;
      const done = await this.store
        .update(rec.user, rec.id, (cur) => (handoffStatus(cur, now) === 'expired' && cur.status === 'open' ? ((expiredNow = true), { status: 'expired' }) : {}))
        .catch((e) => this.opts.log.error({ id: rec.id, err: String(e) }, 'hand-off expiry write failed'));
      this.disarm(rec.user, rec.id);
      this.wake(rec.user, rec.id);
      if (done && expiredNow) await this.finished(done);
    }
  }

  /** Stops the timers and lets every waiter return (the daemon is stopping; hand-offs stay on record). */
  close() {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    for (const set of [...this.waiters.values()]) for (const done of [...set]) done();
  }

  private wake(user: string, id: string) {
    for (const done of [...(this.waiters.get(k(user, id)) ?? [])]) done();
  }

  private arm(rec: HandoffRecord) {
    this.disarm(rec.user, rec.id);
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, Date.parse(rec.expiresAt) - this.now()));
    const timer = setTimeout(() => {
      this.timers.delete(k(rec.user, rec.id));
      const cur = this.store.get(rec.user, rec.id);
      if (!cur || cur.status !== 'open') return;
      // Fired early (a cap longer than one timer can wait): wait again for the rest.
      if (this.statusOf(cur) === 'open') return this.arm(cur);
      this.expireDue().catch((e) => this.opts.log.error({ err: String(e) }, 'hand-off expiry failed'));
    }, delay);
    timer.unref();
    this.timers.set(k(rec.user, rec.id), timer);
  }

  private disarm(user: string, id: string) {
    const t = this.timers.get(k(user, id));
    if (t) clearTimeout(t);
    this.timers.delete(k(user, id));
  }
}

function checkExpiresInS(s: number): number {
  if (!Number.isInteger(s) || s < EXPIRES_MIN_S || s > EXPIRES_MAX_S) {
    throw new BrowserdError('validation_error', `expiresInS must be a whole number of seconds from ${EXPIRES_MIN_S} to ${EXPIRES_MAX_S}, not ${s}`, { next: `Pass expiresInS between ${EXPIRES_MIN_S} and ${EXPIRES_MAX_S}.` });
  }
  return s;
}

function refuseUnlessOpen(rec: HandoffRecord, status: HandoffStatus, verb: string) {
  if (status === 'open') return;
  const how = status === 'resolved' ? `was resolved${rec.resolvedBy ? ` by the ${rec.resolvedBy}` : ''} at ${rec.resolvedAt}` : `expired at ${rec.expiresAt}`;
  throw new BrowserdError('refused', `cannot ${verb} ${rec.id}: it ${how}`, {
    next: status === 'resolved' ? 'Nothing to do: carry on with the task.' : 'Create a new hand-off with browser_handoff if a person is still needed.',
  });
}
