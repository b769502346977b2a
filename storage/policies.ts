/** Per-user host policy rules (the rules themselves are validated by daemon/policy/host-policy). */
import type { Db } from './db.js';

export interface StoredHostRule { pattern: string; access: 'read_only' | 'blocked' | 'allowed' }

export class PolicyStore {
  constructor(private db: Db) {}

  rules(user: string): StoredHostRule[] {
    return (this.db.policies.get(user) as StoredHostRule[] | undefined) ?? [];
  }

  async setRules(user: string, rules: StoredHostRule[]): Promise<void> {
    await this.db.policies.put(user, rules);
    await this.db.flushed();
  }

  /** Adds or replaces the rule for one pattern. */
  async upsert(user: string, rule: StoredHostRule): Promise<StoredHostRule[]> {
    const next = [...this.rules(user).filter((r) => r.pattern !== rule.pattern), rule];
    await this.setRules(user, next);
    return next;
  }

  async remove(user: string, pattern: string): Promise<boolean> {
    const cur = this.rules(user);
    const next = cur.filter((r) => r.pattern !== pattern);
    if (next.length === cur.length) return false;
    await this.setRules(user, next);
    return true;
  }
}
