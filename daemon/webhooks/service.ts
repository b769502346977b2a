/**
 * The webhook service: receivers (register, list, delete), the durable outbox (emit writes a row per receiver
 * and waits until it is on disk) and the sender that works the outbox off. The sender keeps one timer for the
 * earliest due row; each receiver has a few attempts in flight at most, and a receiver that keeps failing is
 * held back on the retry curve (probed by one row at a time) instead of being sent every pending row. Every
 * attempt of a row sends the same webhook-id and body bytes with a fresh timestamp and signature.
 *
 * A disabled account's rows wait: nothing is sent for it while it is disabled, nothing of it is given up, and
 * its rows go out once it is enabled again, with their full retry window from then. Only an account that no
 * longer exists has its receivers and rows dropped.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { Webhook } from 'standardwebhooks';
import { BrowserdError } from '../../protocol/errors.js';
import type { Attempt, OutboxRow, ReceiverInfo, RowState, WebhookStore } from '../../storage/webhooks.js';
import type { VetGuard } from '../net/vet.js';
import { WEBHOOK_EVENTS, type WebhookEvent, type Webhooks } from '../../protocol/webhook-events.js';
import { afterFailure, DEFAULT_RETRY, retryDelay, type RetryPolicy } from './retry.js';
import { parseReceiverUrl, vetReceiver } from './receiver-url.js';
import { deliveryAgents, postSigned, type DeliveryResult } from './delivery.js';

export const MAX_RECEIVERS_PER_USER = 20;

export interface WebhookServiceOptions {
  store: WebhookStore;
  /** The daemon's private-network settings (the egress guard's), applied at registration and each delivery. */
  guard: VetGuard;
  log: Logger;
  /** Who we are, in the User-Agent of each delivery. */
  version: string;
  /** Attempts in flight to one receiver at once. */
  perReceiverConcurrency?: number;
  /** Attempts in flight over all receivers. */
  maxInFlight?: number;
  /** Pending rows one receiver may hold; an event past it is recorded `failed` at once (outbox full). */
  maxPendingPerReceiver?: number;
  timeoutMs?: number;
  retry?: RetryPolicy;
  /** Finished rows are kept this long for GET /v1/webhooks/{id}/deliveries (ms). */
  keepFinishedMs?: number;
  now?: () => number;
  random?: () => number;
  /**
   * Whether the user's deliveries may go out now: 'disabled' holds them (kept, not sent, not given up), 'gone'
   * (the account no longer exists) drops its receivers and rows. Every account is active without it.
   */
  account?: (user: string) => AccountState;
  /** How often a held account is looked at again (ms): `browserd user enable` writes the store from another process. */
  accountRecheckMs?: number;
}

export type AccountState = 'active' | 'disabled' | 'gone';

/** A receiver as the sender tracks it in memory (rebuilt at start from the store). */
interface Lane {
  user: string;
  info: ReceiverInfo;
  inFlight: Set<string>;
  /** Failed attempts in a row; 0 after any success. */
  failures: number;
  /** No new attempt starts before this (epoch ms) while the receiver keeps failing. */
  holdUntil: number;
  pending: number;
  signer?: Webhook;
  /** Seen disabled: nothing is sent until it is seen active again. */
  held: boolean;
  /** When it was last seen active again after a hold (epoch ms; 0 if never held in this run): rows get their window from here. */
  activeSince: number;
}

export interface DeliveryView {
  id: string;
  type: string;
  state: RowState;
  attempts: number;
  createdAt: string;
  nextAttemptAt?: string;
  finishedAt?: string;
  lastStatus?: number;
  lastError?: string;
  history: Attempt[];
}

const laneKey = (user: string, id: string) => `${user}\u0000${id}`;

const notFound = (id: string) => new BrowserdError('not_found', `no webhook ${id}`, { next: 'List your webhooks with GET /v1/webhooks.' });

/** `whsec_` and 24 random bytes in base64: the form Standard Webhooks libraries take as is. */
const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
const newReceiverId = () => `wh_${randomBytes(8).toString('hex')}`;
/** Row ids sort by creation time (the deliveries list is newest first), then by chance within a millisecond. */
const newRowId = (now: number) => `msg_${now.toString(16).padStart(12, '0')}${randomBytes(6).toString('hex')}`;

export class WebhookService implements Webhooks {
  private lanes = new Map<string, Lane>();
  private timer?: NodeJS.Timeout;
  private timerAt = Infinity;
  private pumpQueued = false;
  private running = false;
  private inFlight = new Set<Promise<void>>();
  private abort = new AbortController();
  private agents = deliveryAgents();
  private pruner?: NodeJS.Timeout;
  readonly now: () => number;
  private readonly random: () => number;
  private readonly retry: RetryPolicy;
  private readonly perReceiver: number;
  private readonly maxInFlight: number;
  private readonly maxPending: number;
  private readonly timeoutMs: number;
  private readonly recheckMs: number;

  constructor(private opts: WebhookServiceOptions) {
    this.now = opts.now ?? Date.now;
    this.random = opts.random ?? Math.random;
    this.retry = opts.retry ?? DEFAULT_RETRY;
    this.perReceiver = opts.perReceiverConcurrency ?? 4;
    this.maxInFlight = opts.maxInFlight ?? 64;
    this.maxPending = opts.maxPendingPerReceiver ?? 200_000;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.recheckMs = opts.accountRecheckMs ?? 2000;
  }

  private accountOf(user: string): AccountState {
    return this.opts.account?.(user) ?? 'active';
  }

  /** Loads the receivers and sends every row that came due while the daemon was down (at start, not later). */
  start() {
    if (this.running) return;
    this.running = true;
    for (const r of this.opts.store.allReceivers()) this.addLane(r.user, r);
    const keep = this.opts.keepFinishedMs ?? 7 * 24 * 3600_000;
    const prune = () => void this.opts.store.pruneFinished(this.now() - keep).catch((e) => this.opts.log.error({ err: String(e) }, 'webhook prune failed'));
    prune();
    this.pruner = setInterval(prune, 3600_000);
    this.pruner.unref();
    this.pump();
  }

  /** A user moved in from another host of a fleet: their receivers get lanes, and their outbox goes out from here. */
  adoptUser(user: string): void {
    for (const r of this.opts.store.receivers(user)) if (!this.lanes.has(laneKey(user, r.id))) this.addLane(user, r);
    this.pump();
  }

  /** A user moved away: their lanes go (their rows went with them, to the host that sends them now). */
  dropUser(user: string): void {
    for (const [key, lane] of [...this.lanes]) if (lane.user === user) this.lanes.delete(key);
  }

  /** Stops sending: attempts in flight are cancelled and left pending (they go out again at the next start). */
  async stop() {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    if (this.pruner) clearInterval(this.pruner);
    this.timer = undefined;
    this.abort.abort();
    await Promise.allSettled([...this.inFlight]);
    for (const a of Object.values(this.agents)) a.destroy();
  }

  private addLane(user: string, info: ReceiverInfo): Lane {
    const lane: Lane = { user, info, inFlight: new Set(), failures: 0, holdUntil: 0, pending: this.opts.store.pendingCount(user, info.id), held: false, activeSince: 0 };
    this.lanes.set(laneKey(user, info.id), lane);
    return lane;
  }

  // ---- receivers ------------------------------------------------------------------------------------------

  /** Registers a receiver; the answer is the only place its secret is ever shown. */
  async register(user: string, body: unknown): Promise<ReceiverInfo & { secret: string }> {
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw bad('the body must be a JSON object {url, events?}');
    const extra = Object.keys(body).filter((k) => k !== 'url' && k !== 'events');
    if (extra.length) throw bad(`unknown fields: ${extra.map((k) => k.slice(0, 40)).join(', ')}`);
    const { url: rawUrl, events: rawEvents } = body as { url?: unknown; events?: unknown };
    const url = parseReceiverUrl(rawUrl);
    const events = parseEvents(rawEvents);
    if (this.opts.store.receivers(user).length >= MAX_RECEIVERS_PER_USER) {
      throw new BrowserdError('validation_error', `you have ${MAX_RECEIVERS_PER_USER} webhooks, the most a user may have`, { next: 'Delete one you no longer use (DELETE /v1/webhooks/{id}), or let one receiver take several events.' });
    }
    await vetReceiver(url, this.opts.guard);
    const info: ReceiverInfo = { id: newReceiverId(), url: url.href, events, createdAt: new Date(this.now()).toISOString() };
    const secret = newSecret();
    await this.opts.store.createReceiver(user, info, secret);
    this.addLane(user, info);
    return { ...info, secret };
  }

  list(user: string): (ReceiverInfo & { pending: number })[] {
    return this.opts.store.receivers(user).map((r) => ({ ...r, pending: this.lanes.get(laneKey(user, r.id))?.pending ?? 0 }));
  }

  get(user: string, id: string): ReceiverInfo {
    const r = this.opts.store.receiver(user, id);
    if (!r) throw notFound(id);
    return r;
  }

  /** Deletes a receiver and its outbox rows: nothing more goes to it, pending rows included. */
  async delete(user: string, id: string): Promise<void> {
    this.get(user, id);
    // Out of the sender first, so no new attempt starts while the rows are being removed.
    this.lanes.delete(laneKey(user, id));
    await this.opts.store.deleteReceiver(user, id);
  }

  deliveries(user: string, id: string, opts: { limit: number; state?: RowState }): DeliveryView[] {
    this.get(user, id);
    return this.opts.store.rows(user, id, opts).map((row) => {
      const last = row.history[row.history.length - 1];
      const v: DeliveryView = { id: row.id, type: row.type, state: row.state, attempts: row.attempts, createdAt: row.createdAt, history: row.history };
      if (row.nextAt !== undefined) v.nextAttemptAt = new Date(row.nextAt).toISOString();
      if (row.finishedAt) v.finishedAt = row.finishedAt;
      if (last?.status !== undefined) v.lastStatus = last.status;
      if (last?.error) v.lastError = last.error;
      return v;
    });
  }

  // ---- the outbox -----------------------------------------------------------------------------------------

  async emit(user: string, type: WebhookEvent, data: Record<string, unknown>): Promise<void> {
    if (!(WEBHOOK_EVENTS as readonly string[]).includes(type)) throw new Error(`not a webhook event: ${type}`);
    const lanes = [...this.lanes.values()].filter((l) => l.user === user && l.info.events.includes(type));
    if (!lanes.length) return;
    const now = this.now();
    const createdAt = new Date(now).toISOString();
    // One body for every receiver: the same bytes, signed per receiver with its own secret at each attempt.
    const body = JSON.stringify({ type, timestamp: createdAt, data });
    const rows: OutboxRow[] = lanes.map((lane) => {
      const base = { id: newRowId(now), user, receiver: lane.info.id, type, createdAt, attempts: 0, history: [] as Attempt[] };
      if (lane.pending >= this.maxPending) {
        this.opts.log.warn({ user, webhook: lane.info.id, type, pending: lane.pending }, 'webhook outbox full: event not queued');
        return { ...base, state: 'failed', finishedAt: createdAt, history: [{ at: createdAt, error: `outbox full: ${lane.pending} rows pending`, ms: 0 }] };
      }
      lane.pending++;
      return { ...base, body, state: 'pending', nextAt: now };
    });
    try {
      await this.opts.store.addRows(rows);
    } catch (e) {
      for (const lane of lanes) lane.pending = this.opts.store.pendingCount(user, lane.info.id);
      throw e;
    }
    this.pump();
  }

  // ---- the sender -----------------------------------------------------------------------------------------

  /** Runs the sender soon, once however many events asked for it meanwhile. */
  private pump() {
    if (!this.running || this.pumpQueued) return;
    this.pumpQueued = true;
    setImmediate(() => {
      this.pumpQueued = false;
      if (this.running) this.sendDue();
    });
  }

  private sendDue() {
    const now = this.now();
    let wakeAt = Infinity;
    for (const lane of this.lanes.values()) {
      if (this.inFlight.size >= this.maxInFlight) break;
      if (lane.pending === 0) continue;
      if (!this.mayDeliver(lane, now)) {
        if (this.lanes.has(laneKey(lane.user, lane.info.id))) wakeAt = Math.min(wakeAt, now + this.recheckMs);
        continue;
      }
      this.giveUpStale(lane, now);
      // A failing receiver gets one probe at a time, and none before its hold ends.
      const slots = (lane.failures > 0 ? 1 : this.perReceiver) - lane.inFlight.size;
      if (slots <= 0) continue;
      if (lane.holdUntil > now) {
        wakeAt = Math.min(wakeAt, lane.holdUntil);
        continue;
      }
      const rows = this.opts.store.dueRows(lane.user, lane.info.id, now, Math.min(slots, this.maxInFlight - this.inFlight.size), lane.inFlight);
      for (const row of rows) this.launch(lane, row);
      if (!rows.length) {
        const next = this.opts.store.nextDue(lane.user, lane.info.id, lane.inFlight);
        if (next !== undefined) wakeAt = Math.min(wakeAt, Math.max(next, lane.holdUntil));
      }
    }
    this.armTimer(wakeAt);
  }

  /**
   * Whether the lane's account lets its rows go out now. Disabled: the lane is held (looked at again every
   * recheckMs). Enabled again: its rows' retry window starts over from now, so the time spent disabled never
   * gives a row up. Gone: the receiver and its rows are dropped.
   */
  private mayDeliver(lane: Lane, now: number): boolean {
    const state = this.accountOf(lane.user);
    if (state === 'active') {
      if (lane.held) {
        lane.held = false;
        lane.activeSince = now;
        lane.failures = 0;
        lane.holdUntil = 0;
      }
      return true;
    }
    if (state === 'disabled') {
      lane.held = true;
      return false;
    }
    this.lanes.delete(laneKey(lane.user, lane.info.id));
    this.opts.log.info({ user: lane.user, webhook: lane.info.id }, 'account gone: its webhook and pending deliveries are dropped');
    void this.opts.store.deleteReceiver(lane.user, lane.info.id).catch((e) => this.opts.log.error({ err: String(e), webhook: lane.info.id }, 'dropping the webhook of a gone account failed'));
    return false;
  }

  /**
   * Rows of a held receiver that were due more than 24 h ago have run out their window without an attempt of
   * their own (the receiver was probed with others): they are `failed` now rather than whenever a probe gets to them.
   */
  private giveUpStale(lane: Lane, now: number) {
    // Enabled again less than a window ago: no row has had a window of its own to go out in yet.
    if (lane.failures === 0 || lane.activeSince > now - this.retry.giveUpAfterMs) return;
    const stale = this.opts.store.dueRows(lane.user, lane.info.id, now - this.retry.giveUpAfterMs, 500, lane.inFlight);
    for (const row of stale) {
      lane.pending--;
      void this.opts.store
        .settle(row, undefined, { state: 'failed' })
        .catch((e) => this.opts.log.error({ err: String(e), webhook: lane.info.id }, 'webhook give-up write failed'));
    }
  }

  private armTimer(at: number) {
    if (!this.running || at === Infinity) return;
    if (this.timer && at >= this.timerAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.pump();
    }, Math.max(0, Math.min(at - this.now(), 2 ** 31 - 1)));
    this.timer.unref();
  }

  private launch(lane: Lane, row: OutboxRow) {
    lane.inFlight.add(row.id);
    const p = this.attempt(lane, row)
      .catch((e) => this.opts.log.error({ err: String(e), webhook: lane.info.id, row: row.id }, 'webhook attempt failed unexpectedly'))
      .finally(() => {
        lane.inFlight.delete(row.id);
        this.inFlight.delete(p);
        this.pump();
      });
    this.inFlight.add(p);
  }

  private async attempt(lane: Lane, row: OutboxRow) {
    const started = this.now();
    const result = await this.send(lane, row);
    // Stopping, or the account was disabled meanwhile: the row stays pending as it was, not a failed try.
    if (!this.running || result === 'held') return;
    const ok = result.status !== undefined && result.status >= 200 && result.status < 300;
    const attempt: Attempt = { at: new Date(started).toISOString(), ms: Math.max(0, this.now() - started), ...result };
    const now = this.now();
    if (ok) {
      lane.failures = 0;
      lane.holdUntil = 0;
    } else {
      lane.failures++;
      lane.holdUntil = now + retryDelay(lane.failures, this.retry, this.random);
      this.opts.log.info({ user: lane.user, webhook: lane.info.id, row: row.id, status: result.status, error: result.error, attempt: row.attempts + 1 }, 'webhook delivery failed');
    }
    // The window counts from the event, or from the account's enabling when it was held since.
    const windowFrom = Math.max(Date.parse(row.createdAt), lane.activeSince);
    const next = ok ? ({ state: 'delivered' } as const) : afterFailure(windowFrom, row.attempts + 1, now, this.retry, this.random);
    // A receiver deleted meanwhile has no lane and no rows: nothing to record.
    if (this.lanes.get(laneKey(lane.user, lane.info.id)) !== lane) return;
    const settled = await this.opts.store.settle(row, attempt, next);
    if (settled && settled.state !== 'pending') lane.pending--;
  }

  /** One try, or 'held' when the account was disabled before anything was sent (looked at again as late as can be). */
  private async send(lane: Lane, row: OutboxRow): Promise<DeliveryResult | 'held'> {
    const u = new URL(lane.info.url);
    let addresses: string[];
    try {
      addresses = await vetReceiver(u, this.opts.guard);
    } catch (e) {
      return { error: e instanceof BrowserdError ? e.message : String(e) };
    }
    let signature: string;
    const at = new Date(this.now());
    try {
      lane.signer ??= new Webhook(this.opts.store.secret(lane.user, lane.info.id)!);
      signature = lane.signer.sign(row.id, at, row.body!);
    } catch (e) {
      // A locked vault or an altered record: no signature, no send; the row waits like any failed try.
      return { error: `not signed: ${e instanceof Error ? e.message : String(e)}` };
    }
    const headers = {
      'content-type': 'application/json',
      'user-agent': `browserd-webhooks/${this.opts.version}`,
      'webhook-id': row.id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
    };
    if (this.accountOf(lane.user) !== 'active') {
      lane.held = true;
      return 'held';
    }
    return postSigned(u, addresses, headers, Buffer.from(row.body!, 'utf8'), { timeoutMs: this.timeoutMs, signal: this.abort.signal, agents: this.agents });
  }
}

const bad = (message: string) => new BrowserdError('validation_error', message, { next: 'Send {"url": "https://…", "events": ["monitor.changed", …]} (events defaults to all).' });

function parseEvents(raw: unknown): WebhookEvent[] {
  if (raw === undefined) return [...WEBHOOK_EVENTS];
  if (!Array.isArray(raw) || raw.length === 0) throw bad('events must be a non-empty array of event names');
  const unknown = raw.filter((e) => !(WEBHOOK_EVENTS as readonly unknown[]).includes(e));
  if (unknown.length) throw bad(`events: unknown ${unknown.map((e) => JSON.stringify(e).slice(0, 60)).join(', ')}; known: ${WEBHOOK_EVENTS.join(', ')}`);
  return [...new Set(raw as WebhookEvent[])];
}
