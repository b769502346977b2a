/**
 * The bytes each user keeps inside the LMDB store: their recordings (steps and JPEGs) and replays, monitors
 * (checks and baselines), tasks (the conversation) and crawls (runs, queues, seen sets and pages). One tally row
 * per user and kind, changed in the same transaction as the rows it counts, so it cannot drift from them: a
 * crash leaves both or neither. The daemon's storage quota adds it to the user's bytes on disk.
 *
 * A write that makes a user's bytes grow asks an injected guard first (storage/ knows no quota: the daemon
 * passes one in, as VaultStore takes its checks); the guard throws to refuse, and the write is undone whole (a
 * child transaction: lmdb-js keeps what an async transaction wrote before a throw, a child's it drops).
 *
 * Left out, as shared or capped by count and small: users, tokens, tabs, audit, policies, vault and saved
 * sessions (sealed, few per user), hand-offs, SMS messages (minutes), webhooks and their outbox (capped,
 * pruned), site memory, extractors, API maps, the action cache (capped, least used evicted), research answers,
 * identities, usage counters. The response cache's bodies are files counted by their own index.
 */
import type { Database, RootDatabase } from 'lmdb';
import { valuesUnder } from './key-range.js';

/** The stores whose rows are a user's own data and count toward their storage quota. */
export const BYTE_KINDS = ['records', 'monitors', 'tasks', 'crawls'] as const;
export type ByteKind = (typeof BYTE_KINDS)[number];

/**
 * Asked inside the write's transaction when a write would grow the user's bytes by `adding`: throws to refuse
 * it (the daemon's storage quota error). The user's store bytes it reads (`UserBytes.used`) are those before
 * this write.
 */
export type BytesGuard = (user: string, adding: number) => void;

/** How a write stands to the quota: 'refuse' asks the guard when it grows; 'count' counts without asking. */
export type QuotaMode = 'refuse' | 'count';

/** Puts and removes that weigh every row they touch (key and stored value bytes). */
export interface RowWriter {
  put(table: Database<any, string>, key: string, value: unknown): void;
  remove(table: Database<any, string>, key: string): void;
}

/** Each tracked table by name, with the user its key starts with. */
const SEP = '\u0000';
const userAt = (i: number) => (key: string) => key.split(SEP)[i]!;
export const TRACKED: { name: string; kind: ByteKind; user: (key: string) => string }[] = [
  // r|s|j|p <user> ... (records.ts)
  { name: 'records', kind: 'records', user: userAt(1) },
  // <user> <id> ... (monitors.ts, tasks.ts, crawls.ts)
  { name: 'monitors', kind: 'monitors', user: userAt(0) },
  { name: 'monitorChecks', kind: 'monitors', user: userAt(0) },
  { name: 'monitorBaselines', kind: 'monitors', user: userAt(0) },
  { name: 'tasks', kind: 'tasks', user: userAt(0) },
  { name: 'crawls', kind: 'crawls', user: userAt(0) },
  { name: 'crawlQueue', kind: 'crawls', user: userAt(0) },
  { name: 'crawlSeen', kind: 'crawls', user: userAt(0) },
  { name: 'crawlItems', kind: 'crawls', user: userAt(0) },
];

/** Bumped when what is counted changes: the tally is then counted again from the rows at open. */
const VERSION = 1;
const VERSION_KEY = 'userBytesVersion';

/**
 * The part of the store (Db, db.ts) the tally uses, written out here rather than imported: db.ts builds a
 * UserBytes, so importing its Db back would tie the two files in a circle.
 */
export interface TallyStore {
  root: RootDatabase;
  meta: Database<any, string>;
  table<V = any>(name: string): Database<V, string>;
}

const keyBytes = (key: unknown) => Buffer.byteLength(Array.isArray(key) ? key.join(SEP) : String(key));

export class UserBytes {
  /** Set by the daemon: refuses a write that would pass the user's storage quota. None: nothing is refused. */
  guard?: BytesGuard;
  private tally: Database<number, string>;

  constructor(private db: TallyStore) {
    this.tally = db.table<number>('userBytes');
    if (db.meta.get(VERSION_KEY) !== VERSION) this.recount();
  }

  private rowKey = (user: string, kind: ByteKind) => `${user}${SEP}${kind}`;

  /** The user's bytes in the store, every kind together (read inside a transaction: as it stands there). */
  used(user: string): number {
    let n = 0;
    for (const value of valuesUnder(this.tally, [user])) n += value;
    return n;
  }

  /** The user's bytes in the store by kind. */
  byKind(user: string): Record<ByteKind, number> {
    const out = Object.fromEntries(BYTE_KINDS.map((k) => [k, 0])) as Record<ByteKind, number>;
    for (const k of BYTE_KINDS) out[k] = this.tally.get(this.rowKey(user, k)) ?? 0;
    return out;
  }

  /**
   * Inside a transaction: runs `writes` in a child transaction, weighing every row they put or remove, and adds
   * the change to the user's tally there too. When the user's bytes grow and `mode` is 'refuse', the guard is
   * asked first; its throw undoes every write of `writes` and reaches the caller.
   */
  apply<T>(user: string, kind: ByteKind, writes: (w: RowWriter) => T, mode: QuotaMode = 'refuse'): T {
    return this.db.root.childTransaction(() => {
      let delta = 0;
      const size = (table: Database<any, string>, key: string) => {
        const v = table.getBinaryFast(key);
        return v ? v.length + keyBytes(key) : 0;
      };
      const w: RowWriter = {
        put: (table, key, value) => {
          const before = size(table, key);
          table.put(key, value);
          delta += size(table, key) - before;
        },
        remove: (table, key) => {
          delta -= size(table, key);
          table.remove(key);
        },
      };
      const out = writes(w);
      if (delta > 0 && mode === 'refuse') this.guard?.(user, delta);
      if (delta !== 0) {
        const k = this.rowKey(user, kind);
        const next = Math.max(0, (this.tally.get(k) ?? 0) + delta);
        if (next) this.tally.put(k, next);
        else this.tally.remove(k);
      }
      return out;
    }) as T;
  }

  /** `apply` in a transaction of its own; resolves once committed (not flushed). */
  async write<T>(user: string, kind: ByteKind, writes: (w: RowWriter) => T, mode: QuotaMode = 'refuse'): Promise<T> {
    let out!: T;
    await this.db.root.transaction(() => {
      out = this.apply(user, kind, writes, mode);
    });
    return out;
  }

  /**
   * Counts every tracked row again, at the first open of a store written before the tally (or with another
   * version of it). Read first, written in one synchronous transaction: nothing else writes while the store opens.
   */
  private recount() {
    const sums = new Map<string, number>();
    for (const t of TRACKED) {
      const table = this.db.table<any>(t.name);
      for (const key of table.getKeys({})) {
        const k = Array.isArray(key) ? key.join(SEP) : String(key);
        const row = this.rowKey(t.user(k), t.kind);
        sums.set(row, (sums.get(row) ?? 0) + (table.getBinaryFast(key)?.length ?? 0) + keyBytes(key));
      }
    }
    this.db.root.transactionSync(() => {
      for (const key of [...this.tally.getKeys({})]) this.tally.remove(key);
      for (const [k, n] of sums) this.tally.put(k, n);
      this.db.meta.put(VERSION_KEY, VERSION);
    });
  }
}
