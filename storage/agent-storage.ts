/**
 * Which sites' own storage code of the agent may have written, per user's browser (user and profile) and browser
 * context. A service worker or a Cache Storage entry that code left there can answer the site's pages long after
 * the page that wrote it is gone, and it stays in the profile across restarts: so does this record, until the
 * storage is cleaned. daemon/vault/site-storage.ts decides what the marks mean.
 */
import type { Db } from './db.js';

export interface AgentStorageMarks {
  /** Browser context ('' for the default one) -> site -> the origins whose storage the code could write. */
  written: Record<string, Record<string, string[]>>;
  /** When code that could write any site's storage last ran (ms): every site counts as written since, until cleaned. */
  everywhereAt?: number;
  /** Browser context -> the sites cleaned since everywhereAt. */
  cleanedSince: Record<string, string[]>;
}

const keyOf = (user: string, profile?: string) => `agentStorage\u0000${user}\u0000${profile ?? ''}`;

export class AgentStorageStore {
  private live = new Map<string, AgentStorageMarks>();

  constructor(private db: Db) {}

  /** The marks of one browser, as one live object: change it, then save. */
  marks(user: string, profile?: string): AgentStorageMarks {
    const key = keyOf(user, profile);
    let m = this.live.get(key);
    if (!m) {
      const stored = this.db.meta.get(key) as AgentStorageMarks | undefined;
      m = { written: stored?.written ?? {}, cleanedSince: stored?.cleanedSince ?? {}, ...(stored?.everywhereAt !== undefined ? { everywhereAt: stored.everywhereAt } : {}) };
      this.live.set(key, m);
    }
    return m;
  }

  /** Drops the marks kept in memory of the user's browsers (their rows were replaced or removed by a move). */
  forget(user: string): void {
    for (const key of [...this.live.keys()]) if (key.startsWith(keyOf(user))) this.live.delete(key);
  }

  /** Writes one browser's marks and resolves once they are on disk. */
  async save(user: string, profile?: string): Promise<void> {
    const key = keyOf(user, profile);
    const m = this.live.get(key);
    if (!m) return;
    const empty = !Object.keys(m.written).length && m.everywhereAt === undefined;
    if (empty) await this.db.meta.remove(key);
    else await this.db.meta.put(key, m);
    await this.db.flushed();
  }
}
