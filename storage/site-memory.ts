/**
 * What the daemon remembers about a site per user: the map browser_explore built, and notes browser_remember
 * stored. OWNER: part "site". Interface fixed by the lead; body to be written.
 */
import type { Db } from './db.js';

export interface SiteNote {
  note: string;
  at: string;
}

export interface SiteMemory {
  host: string;
  /** The last explore's map (shape owned by daemon/site/explore.ts). */
  map?: unknown;
  exploredAt?: string;
  notes: SiteNote[];
}

export class SiteMemoryStore {
  constructor(_db: Db) {}
  get(_user: string, _host: string): SiteMemory | undefined {
    throw new Error('site memory: not built yet');
  }
  async saveMap(_user: string, _host: string, _map: unknown): Promise<void> {
    throw new Error('site memory: not built yet');
  }
  async addNote(_user: string, _host: string, _note: string): Promise<SiteMemory> {
    throw new Error('site memory: not built yet');
  }
  hosts(_user: string): string[] {
    throw new Error('site memory: not built yet');
  }
}
