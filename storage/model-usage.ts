/**
 * Model tokens used, as each provider reported them, per user, model and UTC day: one record per
 * (user, day, model), added to after every provider answer and flushed, so a crash loses no counted turn.
 * Kept in its own named database; `usage.ts` (CDP session minutes) is the other kind of usage.
 */
import type { Database } from 'lmdb';
import type { Db } from './db.js';
import { range as keyRange } from './key-range.js';

export interface ModelUsageRecord {
  /** YYYY-MM-DD, UTC. */
  day: string;
  model: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
}

export class ModelUsageStore {
  private records: Database<ModelUsageRecord, string>;

  constructor(private db: Db) {
    this.records = db.table<ModelUsageRecord>('model-usage');
  }

  /** Adds one provider answer's tokens (a transaction, so two calls at once both count) and waits for the disk. */
  async add(user: string, model: string, tokens: { input: number; output: number }, at = new Date()): Promise<void> {
    const day = at.toISOString().slice(0, 10);
    const key = `${user}\0${day}\0${model}`;
    await this.records.transaction(() => {
      const old = this.records.get(key) ?? { day, model, requests: 0, inputTokens: 0, outputTokens: 0 };
      this.records.put(key, { ...old, requests: old.requests + 1, inputTokens: old.inputTokens + tokens.input, outputTokens: old.outputTokens + tokens.output });
    });
    await this.db.flushed();
  }

  /** The user's records, oldest day first; `from`/`to` are inclusive YYYY-MM-DD days. */
  list(user: string, range: { from?: string; to?: string } = {}): ModelUsageRecord[] {
    const out: ModelUsageRecord[] = [];
    const start = `${user}\0${range.from ?? ''}`;
    const end = range.to ? `${user}\0${range.to}\x01` : `${user}\x01`;
    for (const { value } of keyRange(this.records, { start, end })) out.push(value);
    return out;
  }

  totals(user: string): { requests: number; inputTokens: number; outputTokens: number } {
    return this.list(user).reduce((t, r) => ({ requests: t.requests + r.requests, inputTokens: t.inputTokens + r.inputTokens, outputTokens: t.outputTokens + r.outputTokens }), { requests: 0, inputTokens: 0, outputTokens: 0 });
  }
}
