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
import type { DaemonEnv } from '../env.js';
import { DISABLED_SWEEP_MS } from './sweep-interval.js';

/** Accounts whose tasks were held, per daemon: released by the sweep once the account is enabled again. */
const heldBy = new WeakMap<DaemonEnv, Set<string>>();

function held(env: DaemonEnv): Set<string> {
  let set = heldBy.get(env);
  if (!set) heldBy.set(env, (set = new Set()));
  return set;
}

export async function stopDisabledAccount(env: DaemonEnv, user: string): Promise<void> {
  held(env).add(user);
  env.live.endViewersOf(user);
  for (const session of env.cdpSessions.list(user)) await env.cdpSessions.stop(user, session.id).catch(() => false);
  await env.tasks.hold(user);
  const stopped = await env.pool.stopUser(user);
  if (stopped.length) env.log.info({ user, browsers: stopped }, 'account disabled: its browsers were stopped');
}

export { DISABLED_SWEEP_MS };

/** Starts the sweep; returns what stops it. */
export function watchDisabledAccounts(env: DaemonEnv, everyMs = DISABLED_SWEEP_MS): () => void {
  // Accounts already disabled at start: their queued tasks wait, and go on when the account is enabled.
  for (const u of env.users.list()) if (u.disabled) held(env).add(u.id);
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
  const busy = new Set([...env.pool.runningUsers(), ...env.cdpSessions.users(), ...env.live.viewerUsers(), ...env.tasks.runningUsers()]);
  for (const user of busy) if (!env.users.isActive(user)) await stopDisabledAccount(env, user);
  for (const user of [...held(env)]) {
    if (!env.users.isActive(user) || !env.users.get(user)) continue;
    held(env).delete(user);
    env.tasks.release(user);
  }
}
