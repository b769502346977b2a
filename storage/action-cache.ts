/**
 * Remembered act steps, per user, in a named LMDB database of their own. The key is the user id and a hash of
 * the action text, the page's host and its structure hash (daemon/models/page-targets.ts): the same words on
 * the same kind of page mean the same step, so it is replayed without asking a model.
 *
 * A value is the tool call(s) the model chose, as they can be replayed on a later load of the page: the tool
 * name and its arguments without `tab` and `ref` (both differ per load), and the element the ref pointed at as
 * role + accessible name + nth, re-found in the new snapshot at replay. A vault placeholder stays the
 * placeholder (%vault:site.field%): no value is ever stored here.
 *
 * Per user because a step is one user's own: another user's action on their pages is not theirs to replay
 * (nor to learn about). Bounded per user: the least recently used entry goes when a new one would pass the cap.
 */
import { createHash } from 'node:crypto';
import type { Database } from 'lmdb';
import type { Db } from './db.js';
import { countUnder, entriesUnder } from './key-range.js';

/** An element as a person would find it again: role, accessible name, and which of those it is (from 0). */
export interface Target {
  role: string;
  name: string;
  nth: number;
}

export interface CachedStep {
  tool: string;
  /** The call's arguments without tab and ref. */
  args: Record<string, unknown>;
  /** The element `ref` pointed at, when the tool takes one. */
  target?: Target;
}

export interface CachedAction {
  action: string;
  host: string;
  structure: string;
  steps: CachedStep[];
  /** The model that chose the steps. */
  model: string;
  createdAt: string;
  usedAt: string;
  hits: number;
}

export const MAX_CACHED_ACTIONS_PER_USER = 2000;

export class ActionCacheStore {
  private records: Database<CachedAction, string>;

  constructor(private readonly db: Db) {
    this.records = db.table<CachedAction>('action-cache');
  }

  private key(user: string, action: string, host: string, structure: string): string {
    const h = createHash('sha256').update(`${action}\u0000${host}\u0000${structure}`).digest('hex');
    return `${user}\u0000${h}`;
  }

  get(user: string, action: string, host: string, structure: string): CachedAction | undefined {
    return this.records.get(this.key(user, action, host, structure));
  }

  /** Stores (or replaces) the steps for this action on this kind of page; on disk before it resolves. */
  async put(user: string, rec: Omit<CachedAction, 'createdAt' | 'usedAt' | 'hits'>): Promise<void> {
    const key = this.key(user, rec.action, rec.host, rec.structure);
    const at = new Date().toISOString();
    if (!this.records.get(key) && this.count(user) >= MAX_CACHED_ACTIONS_PER_USER) await this.evictOldest(user);
    await this.records.put(key, { ...rec, createdAt: at, usedAt: at, hits: 0 });
    await this.db.flushed();
  }

  /** Counts a replay (best effort: a lost count costs nothing but eviction order). */
  async hit(user: string, rec: CachedAction): Promise<void> {
    await this.records.put(this.key(user, rec.action, rec.host, rec.structure), { ...rec, usedAt: new Date().toISOString(), hits: rec.hits + 1 });
  }

  /** Forgets a step that no longer replays (its element is gone although the structure matched). */
  async delete(user: string, rec: CachedAction): Promise<void> {
    await this.records.remove(this.key(user, rec.action, rec.host, rec.structure));
  }

  count(user: string): number {
    return countUnder(this.records, [user]);
  }

  private async evictOldest(user: string): Promise<void> {
    let oldest: { key: string; usedAt: string } | undefined;
    for (const { key, value } of entriesUnder(this.records, [user])) {
      if (!oldest || value.usedAt < oldest.usedAt) oldest = { key: key as string, usedAt: value.usedAt };
    }
    if (oldest) await this.records.remove(oldest.key);
  }
}
