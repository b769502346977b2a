/**
 * Per-user host policy rules (the rules themselves are validated by daemon/policy/host-policy). Every change
 * also counts up one number shared by all users, so a running daemon learns of rules another process wrote
 * (the `browserd policy` command) and can say, by writing back the number, that its tabs apply them.
 */
import type { Db } from './db.js';

export interface StoredHostRule { pattern: string; access: 'read_only' | 'blocked' | 'allowed' }

const VERSION_KEY = 'policyVersion';
const APPLIED_KEY = 'policyApplied';

export class PolicyStore {
  constructor(private db: Db) {}

  rules(user: string): StoredHostRule[] {
    return (this.db.policies.get(user) as StoredHostRule[] | undefined) ?? [];
  }

  /** Stores a user's rules; answers the change count they were stored under. */
  async setRules(user: string, rules: StoredHostRule[]): Promise<number> {
    let version = 0;
    await this.db.root.transaction(() => {
      version = this.version() + 1;
      this.db.policies.put(user, rules);
      this.db.meta.put(VERSION_KEY, version);
    });
    await this.db.flushed();
    return version;
  }

  /** Adds or replaces the rule for one pattern; answers the rules and their change count. */
  async upsert(user: string, rule: StoredHostRule): Promise<{ rules: StoredHostRule[]; version: number }> {
    const next = [...this.rules(user).filter((r) => r.pattern !== rule.pattern), rule];
    return { rules: next, version: await this.setRules(user, next) };
  }

  /** Removes the rule for one pattern; answers its change count, or undefined when there was no such rule. */
  async remove(user: string, pattern: string): Promise<number | undefined> {
    const cur = this.rules(user);
    const next = cur.filter((r) => r.pattern !== pattern);
    if (next.length === cur.length) return undefined;
    return this.setRules(user, next);
  }

  /** How many changes the rules have had (all users together). */
  version(): number {
    return (this.db.meta.get(VERSION_KEY) as number | undefined) ?? 0;
  }

  /** The change count a running daemon's tabs apply (written by the daemon). */
  appliedVersion(): number {
    return (this.db.meta.get(APPLIED_KEY) as number | undefined) ?? 0;
  }

  async markApplied(version: number): Promise<void> {
    await this.db.meta.put(APPLIED_KEY, version);
  }
}
