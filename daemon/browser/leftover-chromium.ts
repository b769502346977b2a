/**
 * A Chromium still running on a profile when its daemon is gone. Killed with kill -9, a daemon leaves its
 * browsers to notice the closed CDP pipe and shut down by themselves, which takes them a moment (longer on a busy
 * host). A daemon restarted within that moment (systemd restarts it at once) would start a second Chromium on
 * the same profile, and Chromium refuses that: it finds the profile's SingletonLock held by a live browser, hands
 * itself over to it and exits (code 21), so the call that needed the browser fails.
 *
 * One daemon holds a data dir (data-dir-lock.ts), so a live Chromium whose command line names one of its profiles
 * is a leftover of a daemon that died: it is given a moment to finish its own shutdown, then ended. A lock that
 * names another host, a process that is gone, or a process on another profile is left alone (Chromium clears a
 * stale lock itself).
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** How long a leftover gets to finish the shutdown its closed pipe started, before SIGTERM and then SIGKILL. */
const OWN_SHUTDOWN_MS = 5000;
const TERM_MS = 3000;

/** The pid the profile's SingletonLock names on this host ("<hostname>-<pid>"), if any. */
function lockHolder(userDataDir: string): number | undefined {
  let target: string;
  try {
    target = readlinkSync(join(userDataDir, 'SingletonLock'));
  } catch {
    return undefined; // no lock: no browser on this profile
  }
  const dash = target.lastIndexOf('-');
  if (dash < 0 || target.slice(0, dash) !== hostname()) return undefined;
  const pid = Number(target.slice(dash + 1));
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/** Whether `pid` is alive and runs with this exact profile directory. */
function runsOnProfile(pid: number, userDataDir: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(`--user-data-dir=${userDataDir}`);
  } catch {
    return false; // gone
  }
}

function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Resolves true once `pid` has exited, false if it still runs after `ms`. A foreign pid has no exit event to wait on. */
async function exitWithin(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (!gone(pid)) {
    if (Date.now() >= until) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

/**
 * Ends a Chromium left running on `userDataDir` by a daemon that died, so a new one can take the profile.
 * Returns the pid it ended, or undefined when the profile was free.
 */
export async function endLeftoverChromium(userDataDir: string): Promise<number | undefined> {
  const pid = lockHolder(userDataDir);
  if (pid === undefined || pid === process.pid || !runsOnProfile(pid, userDataDir)) return undefined;
  if (await exitWithin(pid, OWN_SHUTDOWN_MS)) return pid;
  process.kill(pid, 'SIGTERM');
  if (await exitWithin(pid, TERM_MS)) return pid;
  process.kill(pid, 'SIGKILL');
  await exitWithin(pid, TERM_MS);
  return pid;
}
