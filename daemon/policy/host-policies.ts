/**
 * The users' host rules as the daemon holds them: the store, plus the promise that a change is in force in
 * every open tab before anyone is told it is made. An act tab holds for a verdict only the requests its user's
 * rules could refuse (write-guard.ts), so a new rule must reach its sessions first.
 *
 * Changes made here are applied before setRules answers. Changes another process writes (the `browserd policy`
 * command beside a running daemon) are found by the change count the store keeps, checked every few tens of
 * milliseconds; once applied, the count is written back, and the command waits for it before it reports.
 */
import type { Db } from '../../storage/db.js';
import { PolicyStore, type StoredHostRule } from '../../storage/policies.js';

export const POLICY_WATCH_MS = 50;

export class HostPolicies extends PolicyStore {
  /** Puts the current rules in force in every open tab; set once the browsers exist. */
  onChange?: () => Promise<void>;
  private applied: number;
  private chain: Promise<void> = Promise.resolve();

  constructor(db: Db, private onError: (e: unknown) => void = () => undefined) {
    super(db);
    this.applied = this.version();
  }

  override async setRules(user: string, rules: StoredHostRule[]): Promise<number> {
    const version = await super.setRules(user, rules);
    await this.catchUp();
    return version;
  }

  /** Applies whatever changed since the last time; resolves once it is in force and the count is written back. */
  catchUp(): Promise<void> {
    this.chain = this.chain
      .then(async () => {
        const version = this.version();
        if (version === this.applied) return;
        await this.onChange?.();
        this.applied = version;
        await this.markApplied(version);
      })
      .catch(this.onError);
    return this.chain;
  }

  /** Watches for changes written by other processes; returns the stop. */
  watch(everyMs = POLICY_WATCH_MS): () => void {
    // Tabs start under the rules as they are now: say so, for a command waiting since before this start.
    void this.markApplied(this.applied).catch(this.onError);
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      void this.catchUp().finally(() => (running = false));
    }, everyMs);
    timer.unref();
    return () => clearInterval(timer);
  }
}
