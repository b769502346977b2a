/**
 * Research answers, kept so GET /v1/research/{id} returns what POST /v1/research answered. Keyed by
 * `<user>\0<id>`: the owner's id comes from the caller, so another user's id is simply not there.
 */
import type { Database } from 'lmdb';
import type { Db } from './db.js';
import type { ResearchRecord } from '../protocol/tasks.js';

export class ResearchStore {
  private records: Database<ResearchRecord, string>;

  constructor(private db: Db) {
    this.records = db.table<ResearchRecord>('research');
  }

  get(user: string, id: string): ResearchRecord | undefined {
    return this.records.get(`${user}\0${id}`);
  }

  /** Stores an answer and waits for the disk: the id handed back must still be readable after a crash. */
  async put(user: string, rec: ResearchRecord): Promise<void> {
    await this.records.put(`${user}\0${rec.id}`, rec);
    await this.db.flushed();
  }
}
