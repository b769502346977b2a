/**
 * Learned extractors per user (extractor_learn makes them, extractor_run and crawls read them), in a named
 * database of their own keyed `<user>\0<id>`: every lookup starts with the caller's id, so another user's
 * extractor is simply not there. Writes resolve once they are on disk. A re-learn replaces a record only if
 * nobody re-learned it meanwhile (the version it started from is still the stored one), so two runs that both
 * saw the markup change cannot each bump the version over the other's work.
 */
import type { Database } from 'lmdb';
import type { Db } from './db.js';
import { countUnder, valuesUnder } from './key-range.js';

/** How one field's value is read: the text (or `attr`) of the first match of `css`, or of every match with `all`. */
export interface ExtractorField {
  css: string;
  attr?: string;
  all?: boolean;
}

export interface ExtractorRecord {
  id: string;
  name: string;
  /** The caller's JSON Schema: an object whose top-level properties are the fields. */
  schema: Record<string, unknown>;
  prompt?: string;
  /** The model id that learned (and re-learns) it. */
  model: string;
  /** 1 when learned; +1 at each re-learn. */
  version: number;
  fields: Record<string, ExtractorField>;
  /** The page the current version was proven on. */
  learnedOn: string;
  createdAt: string;
  updatedAt: string;
}

/** Extractors a user may keep: each is small, but a list call reads every one. */
export const MAX_EXTRACTORS_PER_USER = 500;

export class ExtractorStore {
  private records: Database<ExtractorRecord, string>;

  constructor(private readonly db: Db) {
    this.records = db.table<ExtractorRecord>('extractors');
  }

  private key = (user: string, id: string) => `${user}\u0000${id}`;

  get(user: string, id: string): ExtractorRecord | undefined {
    return this.records.get(this.key(user, id));
  }

  /** The user's extractors, most recently updated first. */
  list(user: string): ExtractorRecord[] {
    const out: ExtractorRecord[] = [];
    for (const value of valuesUnder(this.records, [user])) out.push(value);
    return out.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id));
  }

  count(user: string): number {
    return countUnder(this.records, [user]);
  }

  /** Stores a new extractor; on disk before it resolves. */
  async create(user: string, rec: ExtractorRecord): Promise<void> {
    await this.records.put(this.key(user, rec.id), rec);
    await this.db.flushed();
  }

  /**
   * Replaces an extractor with its next version, only while `fromVersion` is still the stored one. Answers the
   * stored record: the new one, or (when someone else re-learned first, or it was deleted) what is there now.
   */
  async replace(user: string, rec: ExtractorRecord, fromVersion: number): Promise<{ replaced: boolean; current?: ExtractorRecord }> {
    const key = this.key(user, rec.id);
    const replaced = await this.db.root.transaction(() => {
      const cur = this.records.get(key);
      if (!cur || cur.version !== fromVersion) return false;
      void this.records.put(key, rec);
      return true;
    });
    await this.db.flushed();
    return { replaced, current: this.get(user, rec.id) };
  }

  /** Removes one extractor (nothing happens when there is none); on disk before it resolves. */
  async delete(user: string, id: string): Promise<void> {
    await this.records.remove(this.key(user, id));
    await this.db.flushed();
  }
}
