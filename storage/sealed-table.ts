/**
 * A table of per-user named records, each with a readable part (what a listing may show) and a sealed part
 * (values that never leave the daemon). Keys are built here from the caller's user id, and every sealed part
 * is bound to its purpose, user and name, so a record copied into another user's or name's slot fails to open.
 * The vault and saved sessions are both such tables.
 */
import type { Database } from 'lmdb';
import type { Db } from './db.js';
import type { Sealed, Sealer } from './seal.js';
import { range } from './key-range.js';

export const recordKey = (user: string, name: string) => `${user}\u0000${name}`;

export class SealedTable<Info extends { name: string }, Secret> {
  constructor(
    private db: Db,
    private table: Database<any, string>,
    /** What the seal is bound to besides user and name: `vault`, `saved-session`. */
    private purpose: string,
    /** The vault key's sealer, or a throw of the locked vault's error. */
    private sealer: () => Sealer,
  ) {}

  private bound(user: string, name: string) {
    return `${this.purpose}:${user}:${name}`;
  }

  private stored(user: string, name: string): (Info & { sealed: Sealed }) | undefined {
    return this.table.get(recordKey(user, name));
  }

  has(user: string, name: string): boolean {
    return this.stored(user, name) !== undefined;
  }

  list(user: string): Info[] {
    const out: Info[] = [];
    // User ids never hold \u0000, so this range is exactly the user's records.
    for (const { value } of range(this.table, { start: recordKey(user, ''), end: `${user}\u0001` })) {
      const { sealed: _sealed, ...info } = value as Info & { sealed: Sealed };
      out.push(info as unknown as Info);
    }
    return out;
  }

  info(user: string, name: string): Info | undefined {
    const stored = this.stored(user, name);
    if (!stored) return undefined;
    const { sealed: _sealed, ...info } = stored;
    return info as unknown as Info;
  }

  /** The sealed part, opened; throws SealError when the record was altered or moved here. */
  open(user: string, name: string): Secret | undefined {
    const stored = this.stored(user, name);
    if (!stored) return undefined;
    return this.sealer().openJson<Secret>(stored.sealed, this.bound(user, name));
  }

  /** Writes a record and waits until it is on disk: callers acknowledge it to a user right after. */
  async put(user: string, info: Info, secret: Secret): Promise<void> {
    const sealed = this.sealer().sealJson(secret, this.bound(user, info.name));
    await this.table.put(recordKey(user, info.name), { ...info, sealed });
    await this.db.flushed();
  }

  async remove(user: string, name: string): Promise<boolean> {
    if (!this.has(user, name)) return false;
    await this.table.remove(recordKey(user, name));
    await this.db.flushed();
    return true;
  }
}
