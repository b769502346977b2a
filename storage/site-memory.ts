/**
 * What the daemon remembers about a site, per user: the map browser_explore built, and notes browser_remember
 * stored. Keyed `<user>\0<host>`, the user part always the caller's own.
 */
import type { Db } from './db.js';
import { keysUnder } from './key-range.js';
import { PerUserTable } from './per-user-table.js';

export interface SiteNote {
  note: string;
  at: string;
}

export interface SiteMemory {
  host: string;
  /** The last explore's map (its shape is daemon/site/explore.ts's). */
  map?: unknown;
  exploredAt?: string;
  notes: SiteNote[];
}

/** Notes kept per site; the oldest go when more arrive. */
export const MAX_NOTES = 100;

export class SiteMemoryStore extends PerUserTable<SiteMemory> {
  constructor(db: Db) {
    super(db, db.siteMemory);
  }

  async saveMap(user: string, host: string, map: unknown): Promise<void> {
    await this.db.root.transaction(() => {
      const m = this.get(user, host) ?? { host, notes: [] };
      this.records.put(this.key(user, host), { ...m, map, exploredAt: new Date().toISOString() });
    });
    await this.db.flushed();
  }

  async addNote(user: string, host: string, note: string): Promise<SiteMemory> {
    let out!: SiteMemory;
    await this.db.root.transaction(() => {
      const m = this.get(user, host) ?? { host, notes: [] };
      out = { ...m, notes: [...m.notes, { note, at: new Date().toISOString() }].slice(-MAX_NOTES) };
      this.records.put(this.key(user, host), out);
    });
    await this.db.flushed();
    return out;
  }

  hosts(user: string): string[] {
    return [...keysUnder(this.records, [user])].map((k) => k.slice(user.length + 1));
  }
}
