/**
 * Learned extractors per user (extractor_learn makes them, extractor_run and crawls read them), in a named
 * database of their own keyed `<user>\0<id>`: every lookup starts with the caller's id, so another user's
 * extractor is simply not there. Writes resolve once they are on disk. A re-learn replaces a record only if
 * nobody re-learned it meanwhile (the version it started from is still the stored one), so two runs that both
 * saw the markup change cannot each bump the version over the other's work.
 */
import type { Db } from './db.js';
import { PerUserTable } from './per-user-table.js';

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

export class ExtractorStore extends PerUserTable<ExtractorRecord> {
  constructor(db: Db) {
    super(db, 'extractors');
  }

  /** The user's extractors, most recently updated first. */
  list(user: string): ExtractorRecord[] {
    return [...this.values(user)].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id));
  }

  /** Stores a new extractor; on disk before it resolves. */
  create(user: string, rec: ExtractorRecord): Promise<void> {
    return this.putDurably(user, rec.id, rec);
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
}
