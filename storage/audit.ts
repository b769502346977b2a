/** The audit log: every tool call, arguments redacted before they get here. Newest first per user. */
import type { Db } from './db.js';

export interface AuditEntry {
  at: string;
  user: string;
  tool: string;
  tab?: string;
  via: 'mcp' | 'rest' | 'cli' | 'internal';
  args: unknown;
  outcome: 'ok' | string;
  ms: number;
}

let seq = 0;

export class AuditStore {
  constructor(private db: Db) {}

  /** Appends durably: an audit entry is acknowledged only once it is on disk. */
  async append(e: AuditEntry): Promise<void> {
    const key = `${e.user}\u0000${e.at}\u0000${String(++seq % 1e9).padStart(9, '0')}`;
    await this.db.audit.put(key, e);
    await this.db.flushed();
  }

  /** A page of one user's entries, newest first; `before` is the cursor from the previous page. */
  page(user: string, opts: { limit?: number; before?: string } = {}): { entries: AuditEntry[]; next?: string } {
    const limit = Math.min(Math.max(opts.limit ?? 50, 1), 500);
    const start = opts.before ?? `${user}\u0001`;
    const entries: AuditEntry[] = [];
    let lastKey: string | undefined;
    for (const { key, value } of this.db.audit.getRange({ start, end: `${user}\u0000`, reverse: true })) {
      if (key === opts.before) continue;
      entries.push(value as AuditEntry);
      lastKey = key as string;
      if (entries.length >= limit) break;
    }
    return { entries, next: entries.length >= limit ? lastKey : undefined };
  }

  /** Every user's entries, newest first (admin). */
  all(limit = 100): AuditEntry[] {
    const out = [...this.db.audit.getRange({})].map((e) => e.value as AuditEntry);
    return out.sort((a, b) => b.at.localeCompare(a.at)).slice(0, limit);
  }
}
