/**
 * Webhook receivers and their durable outbox, in LMDB. A receiver's signing secret is sealed under the vault key
 * and bound to its user and id, so no listing can carry it and a record moved to another user fails to open.
 * The outbox holds one row per event and receiver with the exact body bytes that go out on every attempt, and a
 * due index (`user/receiver/nextAt/row`) so the sender reads only what is due, receiver by receiver, in order.
 * Every key starts with the owner's id (the server builds it from the caller), so another user's receiver or row
 * is simply not there.
 */
import type { Db } from './db.js';
import type { Sealed, Sealer } from './seal.js';
import { range } from './key-range.js';

export interface ReceiverInfo {
  id: string;
  url: string;
  events: string[];
  createdAt: string;
}

interface ReceiverRecord extends ReceiverInfo {
  user: string;
  sealed: Sealed;
}

export type RowState = 'pending' | 'delivered' | 'failed';

/** One try at delivering a row: the receiver's HTTP status, or why no status came back. */
export interface Attempt {
  at: string;
  status?: number;
  error?: string;
  ms: number;
}

export interface OutboxRow {
  /** The `webhook-id`: the same on every attempt, so receivers can drop repeats. */
  id: string;
  user: string;
  receiver: string;
  type: string;
  /** The signed body, byte for byte; dropped once the row is finished (delivered or failed). */
  body?: string;
  createdAt: string;
  state: RowState;
  attempts: number;
  /** Epoch ms of the next attempt while pending. */
  nextAt?: number;
  finishedAt?: string;
  /** The latest attempts, oldest first (at most HISTORY_KEPT). */
  history: Attempt[];
}

export const HISTORY_KEPT = 20;

// Not \u0000: lmdb's ordered-binary keys read a string with NUL in it back as an array, which breaks ranges.
// '/' is in no user name or id, and sorts after '.', '-' and '_', so `user/` ranges hold one user's keys only.
const SEP = '/';
const pad = (n: number) => String(Math.max(0, Math.floor(n))).padStart(15, '0');
const receiverKey = (user: string, id: string) => `${user}${SEP}${id}`;
const rowPrefix = (user: string, receiver: string) => `${user}${SEP}${receiver}${SEP}`;
const rowKey = (user: string, receiver: string, id: string) => `${rowPrefix(user, receiver)}${id}`;
const dueKey = (row: Pick<OutboxRow, 'user' | 'receiver' | 'id'>, at: number) => `${rowPrefix(row.user, row.receiver)}${pad(at)}${SEP}${row.id}`;
/** The end of a prefix's range: every key under it sorts before this one. */
const after = (prefix: string) => `${prefix}\uffff`;

export class WebhookStore {
  constructor(
    private db: Db,
    /** The vault key's sealer, or a throw of the locked vault's error. */
    private sealer: () => Sealer,
  ) {}

  private bound(user: string, id: string) {
    return `webhook-secret:${user}:${id}`;
  }

  /** Stores a receiver with its secret sealed; resolves once on disk (the secret is then shown once). */
  async createReceiver(user: string, info: ReceiverInfo, secret: string): Promise<void> {
    const sealed = this.sealer().sealJson(secret, this.bound(user, info.id));
    await this.db.webhooks.put(receiverKey(user, info.id), { ...info, user, sealed } satisfies ReceiverRecord);
    await this.db.flushed();
  }

  private shown(rec: ReceiverRecord): ReceiverInfo {
    return { id: rec.id, url: rec.url, events: rec.events, createdAt: rec.createdAt };
  }

  receiver(user: string, id: string): ReceiverInfo | undefined {
    const rec = this.db.webhooks.get(receiverKey(user, id)) as ReceiverRecord | undefined;
    return rec && this.shown(rec);
  }

  /** One user's receivers, oldest first; never their secrets. */
  receivers(user: string): ReceiverInfo[] {
    const out: ReceiverInfo[] = [];
    for (const { value } of range(this.db.webhooks, { start: `${user}${SEP}`, end: after(`${user}${SEP}`) })) out.push(this.shown(value as ReceiverRecord));
    return out.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1));
  }

  /** Every user's receivers with their owners (the sender walks them). */
  allReceivers(): (ReceiverInfo & { user: string })[] {
    const out: (ReceiverInfo & { user: string })[] = [];
    for (const { value } of this.db.webhooks.getRange({})) out.push({ ...this.shown(value as ReceiverRecord), user: (value as ReceiverRecord).user });
    return out;
  }

  /** The receiver's secret, opened; throws SealError when the record was altered or moved, or the vault's lock error. */
  secret(user: string, id: string): string | undefined {
    const rec = this.db.webhooks.get(receiverKey(user, id)) as ReceiverRecord | undefined;
    return rec && this.sealer().openJson<string>(rec.sealed, this.bound(user, id));
  }

  /**
   * Removes a receiver with every row and due entry of its own (its pending rows never go out). Done in batches:
   * a receiver can hold 100,000 pending rows, too many for one transaction to be kind to other writers.
   */
  async deleteReceiver(user: string, id: string): Promise<boolean> {
    if (!this.db.webhooks.get(receiverKey(user, id))) return false;
    await this.db.webhooks.remove(receiverKey(user, id));
    const prefix = rowPrefix(user, id);
    for (const table of [this.db.webhookDue, this.db.webhookRows]) {
      for (;;) {
        const keys = [...range(table, { start: prefix, end: after(prefix), limit: 5000 }, false)].map((e) => e.key);
        if (!keys.length) break;
        await this.db.root.transaction(() => {
          for (const k of keys) table.remove(k);
        });
      }
    }
    await this.db.flushed();
    return true;
  }

  /** Stores new rows (pending ones with their due entry) in one transaction; resolves once they are on disk. */
  async addRows(rows: OutboxRow[]): Promise<void> {
    if (!rows.length) return;
    await this.db.root.transaction(() => {
      for (const row of rows) {
        this.db.webhookRows.put(rowKey(row.user, row.receiver, row.id), row);
        if (row.state === 'pending') this.db.webhookDue.put(dueKey(row, row.nextAt!), 1);
      }
    });
    await this.db.flushed();
  }

  row(user: string, receiver: string, id: string): OutboxRow | undefined {
    return this.db.webhookRows.get(rowKey(user, receiver, id)) as OutboxRow | undefined;
  }

  /** The receiver's rows due by `now`, earliest first, skipping `skip` (rows in flight), at most `limit`. */
  dueRows(user: string, receiver: string, now: number, limit: number, skip: ReadonlySet<string>): OutboxRow[] {
    const out: OutboxRow[] = [];
    const prefix = rowPrefix(user, receiver);
    for (const { key } of range(this.db.webhookDue, { start: prefix, end: `${prefix}${pad(now)}${SEP}\uffff` }, false)) {
      const id = key.slice(key.lastIndexOf(SEP) + 1);
      if (skip.has(id)) continue;
      const row = this.row(user, receiver, id);
      if (row?.state === 'pending') out.push(row);
      if (out.length >= limit) break;
    }
    return out;
  }

  /** When the receiver's earliest pending row is due (epoch ms), skipping `skip`; undefined when nothing is pending. */
  nextDue(user: string, receiver: string, skip: ReadonlySet<string>): number | undefined {
    const prefix = rowPrefix(user, receiver);
    for (const { key } of range(this.db.webhookDue, { start: prefix, end: after(prefix) }, false)) {
      if (skip.has(key.slice(key.lastIndexOf(SEP) + 1))) continue;
      return Number(key.slice(prefix.length, prefix.length + 15));
    }
    return undefined;
  }

  pendingCount(user: string, receiver: string): number {
    const prefix = rowPrefix(user, receiver);
    let n = 0;
    for (const _ of range(this.db.webhookDue, { start: prefix, end: after(prefix) }, false)) n++;
    return n;
  }

  /**
   * Records an attempt (or a give-up with none) and what comes next: another try at `nextAt`, or the row is
   * finished and its body dropped. One transaction, so the row and its due entry always agree. Not flushed: a
   * result lost to a crash only means the row goes out again, with the same id and body.
   */
  async settle(row: OutboxRow, attempt: Attempt | undefined, next: { state: 'pending'; nextAt: number } | { state: 'delivered' | 'failed' }): Promise<OutboxRow | undefined> {
    let out: OutboxRow | undefined;
    await this.db.root.transaction(() => {
      const key = rowKey(row.user, row.receiver, row.id);
      const cur = this.db.webhookRows.get(key) as OutboxRow | undefined;
      // Gone (receiver deleted meanwhile) or already settled by someone else: nothing to record.
      if (!cur || cur.state !== 'pending') return;
      this.db.webhookDue.remove(dueKey(cur, cur.nextAt!));
      const history = attempt ? [...cur.history, attempt].slice(-HISTORY_KEPT) : cur.history;
      const upd: OutboxRow = { ...cur, attempts: cur.attempts + (attempt ? 1 : 0), history };
      if (next.state === 'pending') {
        upd.nextAt = next.nextAt;
        this.db.webhookDue.put(dueKey(upd, next.nextAt), 1);
      } else {
        upd.state = next.state;
        upd.finishedAt = new Date().toISOString();
        delete upd.nextAt;
        delete upd.body;
      }
      this.db.webhookRows.put(key, upd);
      out = upd;
    });
    return out;
  }

  /** The receiver's rows, newest first (row ids sort by creation time), optionally in one state. */
  rows(user: string, receiver: string, opts: { limit: number; state?: RowState }): OutboxRow[] {
    const out: OutboxRow[] = [];
    const prefix = rowPrefix(user, receiver);
    for (const { value } of range(this.db.webhookRows, { start: after(prefix), end: prefix, reverse: true })) {
      const row = value as OutboxRow;
      if (opts.state && row.state !== opts.state) continue;
      out.push(row);
      if (out.length >= opts.limit) break;
    }
    return out;
  }

  /** Removes finished rows that finished before `before` (epoch ms); returns how many went. */
  async pruneFinished(before: number): Promise<number> {
    const stale: string[] = [];
    for (const { key, value } of this.db.webhookRows.getRange({})) {
      const row = value as OutboxRow;
      if (row.state !== 'pending' && row.finishedAt && Date.parse(row.finishedAt) < before) stale.push(key as string);
    }
    for (let i = 0; i < stale.length; i += 5000) {
      const batch = stale.slice(i, i + 5000);
      await this.db.root.transaction(() => {
        for (const k of batch) this.db.webhookRows.remove(k);
      });
    }
    return stale.length;
  }
}
