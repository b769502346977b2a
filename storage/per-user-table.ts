/**
 * A table of records per user, keyed `<user>\0<id>`: every lookup starts with the caller's id, so another user's
 * record is simply not there. Writes resolve once they are on disk. The stores of per-user records (extractors,
 * API maps, research answers, tabs, site memory, monitors) are this with their own rules on top.
 */
import type { Database } from 'lmdb';
import type { Db } from './db.js';
import { countUnder, valuesUnder } from './key-range.js';

export class PerUserTable<T> {
  protected readonly records: Database<T, string>;

  /** `table`: the name of a database the store opens for itself, or one db.ts already opened (tabs, siteMemory). */
  constructor(
    protected readonly db: Db,
    table: string | Database<T, string>,
  ) {
    this.records = typeof table === 'string' ? db.table<T>(table) : table;
  }

  protected key(user: string, id: string): string {
    return `${user}\u0000${id}`;
  }

  get(user: string, id: string): T | undefined {
    return this.records.get(this.key(user, id));
  }

  /** The user's records in key order, read one at a time. */
  protected *values(user: string): Generator<T> {
    yield* valuesUnder(this.records, [user]);
  }

  count(user: string): number {
    return countUnder(this.records, [user]);
  }

  /** Stores (or replaces) one record; on disk before it resolves. */
  protected async putDurably(user: string, id: string, rec: T): Promise<void> {
    await this.records.put(this.key(user, id), rec);
    await this.db.flushed();
  }

  /** Removes one record (nothing happens when there is none); true when it was there. On disk before it resolves. */
  async delete(user: string, id: string): Promise<boolean> {
    const had = await this.records.remove(this.key(user, id));
    await this.db.flushed();
    return had;
  }
}
