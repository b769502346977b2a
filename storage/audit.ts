/** The audit log: every tool call, arguments redacted before they get here. Newest first per user. */
import type { Db } from './db.js';
import { SignedCursors } from './cursor-key.js';
import { range } from './key-range.js';

export interface AuditEntry {
  at: string;
  user: string;
  tool: string;
  tab?: string;
  via: 'mcp' | 'rest' | 'cli' | 'internal' | 'task';
  args: unknown;
  outcome: 'ok' | string;
  ms: number;
}

export { InvalidCursorError } from './cursor-key.js';

let seq = 0;

export class AuditStore {
  private cursors: SignedCursors;

  constructor(private db: Db) {
    this.cursors = new SignedCursors(db, 'auditCursorKey');
  }

  /** Appends durably: an audit entry is acknowledged only once it is on disk. */
  async append(e: AuditEntry): Promise<void> {
    const key = `${e.user}\u0000${e.at}\u0000${String(++seq % 1e9).padStart(9, '0')}`;
    await this.db.audit.put(key, e);
    await this.db.flushed();
  }

  /**
   * Appends, and on a failed write tells the operator's log instead of failing: the call the entry records
   * has happened (or been refused) either way, and its caller still gets the answer.
   */
  async appendOrLog(e: AuditEntry, log: { error(obj: object, msg: string): void }): Promise<void> {
    await this.append(e).catch((err) => log.error({ err: String(err) }, 'audit write failed'));
  }

  /** The opaque cursor for a key of this user's: the key's tail (base64url) signed for the user. */
  private cursorFor(user: string, key: string): string {
    return this.cursors.issue([user], Buffer.from(key.slice(user.length + 1), 'utf8').toString('base64url'));
  }

  /** The storage key a cursor stands for; the user part is always the caller's own, never taken from the cursor. */
  private keyFor(user: string, cursor: string): string {
    const rest = this.cursors.open([user], cursor, /^[A-Za-z0-9_-]{1,200}$/);
    return `${user}\u0000${Buffer.from(rest, 'base64url').toString('utf8')}`;
  }

  /** A page of one user's entries, newest first; `cursor` is the one returned with the previous page. */
  page(user: string, opts: { limit?: number; cursor?: string } = {}): { entries: AuditEntry[]; next?: string } {
    const limit = Math.min(Math.max(opts.limit ?? 50, 1), 500);
    const before = opts.cursor === undefined ? undefined : this.keyFor(user, opts.cursor);
    const start = before ?? `${user}\u0001`;
    const entries: AuditEntry[] = [];
    let lastKey: string | undefined;
    for (const { key, value } of range(this.db.audit, { start, end: `${user}\u0000`, reverse: true })) {
      if (key === before) continue;
      entries.push(value as AuditEntry);
      lastKey = key;
      if (entries.length >= limit) break;
    }
    return { entries, next: entries.length >= limit && lastKey ? this.cursorFor(user, lastKey) : undefined };
  }

  /** Every user's entries, newest first (admin). */
  all(limit = 100): AuditEntry[] {
    const out = [...this.db.audit.getRange({})].map((e) => e.value as AuditEntry);
    return out.sort((a, b) => b.at.localeCompare(a.at)).slice(0, limit);
  }
}
