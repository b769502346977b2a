/** The audit log: every tool call, arguments redacted before they get here. Newest first per user. */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Db } from './db.js';
import { cursorKey } from './cursor-key.js';
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

/** A cursor that was not issued to this caller (another user's, edited or garbled). */
export class InvalidCursorError extends Error {
  constructor() {
    super('the cursor is not one this server gave you');
    this.name = 'InvalidCursorError';
  }
}

let seq = 0;

export class AuditStore {
  private cursorKey: Buffer;

  constructor(private db: Db) {
    this.cursorKey = cursorKey(db, 'auditCursorKey');
  }

  /** Appends durably: an audit entry is acknowledged only once it is on disk. */
  async append(e: AuditEntry): Promise<void> {
    const key = `${e.user}\u0000${e.at}\u0000${String(++seq % 1e9).padStart(9, '0')}`;
    await this.db.audit.put(key, e);
    await this.db.flushed();
  }

  private sign(user: string, rest: string): string {
    return createHmac('sha256', this.cursorKey).update(`${user}\u0000${rest}`).digest().subarray(0, 16).toString('base64url');
  }

  /** The opaque cursor for a key of this user's: the key's tail plus a MAC binding it to the user. */
  private cursorFor(user: string, key: string): string {
    const rest = key.slice(user.length + 1);
    return `${Buffer.from(rest, 'utf8').toString('base64url')}.${this.sign(user, rest)}`;
  }

  /** The storage key a cursor stands for; the user part is always the caller's own, never taken from the cursor. */
  private keyFor(user: string, cursor: string): string {
    const m = /^([A-Za-z0-9_-]{1,200})\.([A-Za-z0-9_-]{22})$/.exec(cursor);
    if (!m) throw new InvalidCursorError();
    const rest = Buffer.from(m[1], 'base64url').toString('utf8');
    const want = Buffer.from(this.sign(user, rest), 'base64url');
    const got = Buffer.from(m[2], 'base64url');
    if (got.length !== want.length || !timingSafeEqual(got, want)) throw new InvalidCursorError();
    return `${user}\u0000${rest}`;
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
