/**
 * A disabled account stops at once, whichever door disabled it: its token is refused (users.authenticate), its
 * links no longer open (the doors ask `users.isActive`), and what it still had running is ended here: timed
 * CDP sessions, browsers (all profiles, closed gracefully so cookies reach the profile) and live viewers.
 *
 * The admin console disables in this process and calls stopDisabledAccount itself. `browserd user disable`
 * runs in another process and can only write the store, so the daemon also looks, every couple of seconds,
 * at the accounts that have something running.
 */
import type { DaemonEnv } from '../env.js';

export async function stopDisabledAccount(env: DaemonEnv, user: string): Promise<void> {
  env.live.endViewersOf(user);
  for (const session of env.cdpSessions.list(user)) await env.cdpSessions.stop(user, session.id).catch(() => false);
  const stopped = await env.pool.stopUser(user);
  if (stopped.length) env.log.info({ user, browsers: stopped }, 'account disabled: its browsers were stopped');
}

/** How often the daemon looks for accounts disabled from outside it. */
export const DISABLED_SWEEP_MS = 2000;

/** Starts the sweep; returns what stops it. */
export function watchDisabledAccounts(env: DaemonEnv, everyMs = DISABLED_SWEEP_MS): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void sweep(env)
      .catch((e) => env.log.error({ err: String(e) }, 'disabled-account sweep failed'))
      .finally(() => (running = false));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

async function sweep(env: DaemonEnv) {
  const busy = new Set([...env.pool.runningUsers(), ...env.cdpSessions.users(), ...env.live.viewerUsers()]);
  for (const user of busy) if (!env.users.isActive(user)) await stopDisabledAccount(env, user);
}
