/**
 * Each user's drawn identity (daemon/identity), one record per user: drawn once, on first need, and kept, so a
 * user's browser shows the same machine in every tab and after every restart. The values are stored, not only
 * the table index they came from, so a later change of the table does not change anyone's identity.
 */
import type { Db } from './db.js';

export interface StoredIdentity {
  /** Where in the table the values came from (for the record; the values are what counts). */
  index: number;
  /** The drawn values, as daemon/identity shapes them. */
  values: Record<string, unknown>;
  drawnAt: string;
}

export class IdentityStore {
  constructor(private db: Db) {}

  get(user: string): StoredIdentity | undefined {
    return this.db.identities.get(user) as StoredIdentity | undefined;
  }

  /** Every user's identity, to draw a new one nobody has. */
  all(): StoredIdentity[] {
    return [...this.db.identities.getRange({})].map((e) => e.value as StoredIdentity);
  }

  /** Stores a user's identity and resolves once it is on disk (it must not change after a crash). */
  async put(user: string, identity: StoredIdentity): Promise<void> {
    await this.db.identities.put(user, identity);
    await this.db.flushed();
  }
}
