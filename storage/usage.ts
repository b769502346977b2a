/**
 * Usage records: what a user consumed that an admin may bill or cap (today: timed CDP sessions, by the started
 * minute). One record per use, keyed `<user>\0<id>`, so a use in progress can be updated in place as it grows.
 * Kept in its own named database opened here, so adding a kind of usage never touches the schema.
 */
import type { Database } from 'lmdb';
import type { Db } from './db.js';
import { valuesUnder } from './key-range.js';

export type UsageKind = 'cdp_session';

export interface UsageRecord {
  user: string;
  kind: UsageKind;
  /** The use this record counts (a session id): written again, not added to, as the use goes on. */
  id: string;
  minutes: number;
  /** When the use started (ISO time). */
  at: string;
}

export class UsageStore {
  private records: Database<UsageRecord, string>;

  constructor(private db: Db) {
    this.records = db.table<UsageRecord>('usage');
  }

  /** Writes (or rewrites) one use's record and waits until it is on disk: billing must survive a crash. */
  async put(rec: UsageRecord): Promise<void> {
    await this.records.put(`${rec.user}\0${rec.id}`, rec);
    await this.db.flushed();
  }

  list(user: string): UsageRecord[] {
    const out: UsageRecord[] = [];
    for (const value of valuesUnder(this.records, [user])) out.push(value);
    return out;
  }

  /** Minutes of one kind the user has used, over every record. */
  minutes(user: string, kind: UsageKind): number {
    return this.list(user).reduce((n, r) => (r.kind === kind ? n + r.minutes : n), 0);
  }
}
