/**
 * A disabled account stops at once, whichever door disabled it: its token is refused (users.authenticate), its
 * links no longer open (the doors ask `users.isActive`: live links, hand-off pages, CDP URLs, share links
 * `/dl/…`, the SMS inbox's forwarding URL), and what it still had running is ended here: timed CDP sessions,
 * browsers (all profiles, closed gracefully so cookies reach the profile), live viewers and server-run tasks.
 * Work that runs on its own schedule asks too and does nothing while the account is disabled: crawls start no
 * page (crawl/engine.ts), monitors check nothing (monitors/service.ts), tasks do not start (tasks/service.ts).
 * Enabled again, crawls go on by themselves and tasks are released here.
 *
 * The admin console disables in this process and calls stopDisabledAccount itself. `browserd user disable`
 * runs in another process and can only write the store, so the daemon also looks, every couple of seconds,
 * at the accounts that have something running, and at the ones it held, to release them once enabled.
 */
import type { Platform } from '../platform.js';
import type { TaskService } from '../tasks/service.js';
import { DISABLED_SWEEP_MS } from '../config.js';

/** What stopping an account reaches: the platform's doors and browsers, and the tasks it may hold and release. */
export interface AccountDeps {
  env: Platform;
  tasks: Pick<TaskService, 'hold' | 'release' | 'runningUsers'>;
}

export class DisabledAccounts {
  /** Accounts whose tasks were held: released by the sweep once the account is enabled again. */
  private readonly held = new Set<string>();

  constructor(private readonly deps: AccountDeps) {}

  /** Ends what the account still runs, at once (the admin console calls it when it disables one). */
  async stop(user: string): Promise<void> {
    const { env, tasks } = this.deps;
    this.held.add(user);
    env.live.endViewersOf(user);
    for (const session of env.cdpSessions.list(user)) await env.cdpSessions.stop(user, session.id).catch(() => false);
    await tasks.hold(user);
    const stopped = await env.pool.stopUser(user);
    if (stopped.length) env.log.info({ user, browsers: stopped }, 'account disabled: its browsers were stopped');
  }

  /** Starts the sweep; returns what stops it. */
  watch(everyMs = DISABLED_SWEEP_MS): () => void {
    const { env } = this.deps;
    // Accounts already disabled at start: their queued tasks wait, and go on when the account is enabled.
    for (const u of env.users.list()) if (u.disabled) this.held.add(u.id);
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      void this.sweep()
        .catch((e) => env.log.error({ err: String(e) }, 'disabled-account sweep failed'))
        .finally(() => (running = false));
    }, everyMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  private async sweep() {
    const { env, tasks } = this.deps;
    const busy = new Set([...env.pool.runningUsers(), ...env.cdpSessions.users(), ...env.live.viewerUsers(), ...tasks.runningUsers()]);
    for (const user of busy) if (!env.users.isActive(user)) await this.stop(user);
    for (const user of [...this.held]) {
      if (!env.users.isActive(user) || !env.users.get(user)) continue;
      this.held.delete(user);
      tasks.release(user);
    }
  }
}
