/**
 * Research answers, kept so GET /v1/research/{id} returns what POST /v1/research answered. Keyed by
 * `<user>\0<id>`: the owner's id comes from the caller, so another user's id is simply not there.
 */
import type { Db } from './db.js';
import type { ResearchRecord } from '../protocol/tasks.js';
import { PerUserTable } from './per-user-table.js';

export class ResearchStore extends PerUserTable<ResearchRecord> {
  constructor(db: Db) {
    super(db, 'research');
  }

  /** Stores an answer and waits for the disk: the id handed back must still be readable after a crash. */
  put(user: string, rec: ResearchRecord): Promise<void> {
    return this.putDurably(user, rec.id, rec);
  }
}
