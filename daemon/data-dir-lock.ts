/**
 * One daemon per data dir. Two daemons on one store would both run its crawls, deliver its webhooks, resume its
 * tasks and start Chromium on the same profiles (a second Chromium on a profile hands itself to the first and
 * exits). The CLI's commands and `doctor` open the store beside a running daemon on purpose and take no lock.
 *
 * What makes the lock exclusive is the kernel: the daemon listens on an abstract Unix socket named after the data
 * dir, a name only one process can hold and which the kernel frees the moment that process ends, kill -9
 * included. Nothing is left to go stale, so two starts after a crash cannot both take it over (a lock file
 * judged stale by its pid could be taken by both). The file beside the data names the holder, for the refusal's
 * message and for a person looking; it also refuses a start while a live holder it names is running in another
 * network namespace (abstract sockets belong to one), the one case the socket cannot see.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, realpathSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { statFields } from './proc-stat.js';

export const LOCK_FILE = 'daemon.lock';

interface Holder {
  pid: number;
  start: string;
}

/** The kernel's start time of a process (clock ticks since boot, /proc/<pid>/stat field 22), or undefined when it is gone. */
function startTimeOf(pid: number): string | undefined {
  try {
    return statFields(readFileSync(`/proc/${pid}/stat`, 'utf8'))[19];
  } catch {
    return undefined;
  }
}

function readHolder(file: string): Holder | undefined {
  try {
    const h = JSON.parse(readFileSync(file, 'utf8'));
    return typeof h?.pid === 'number' && typeof h?.start === 'string' ? h : undefined;
  } catch {
    return undefined; // gone, or half-written by a start that was killed: not a live holder
  }
}

/** The abstract socket name of a data dir (a leading NUL: no file, gone with its holder). */
function lockSocketName(dir: string): string {
  return `\0browserd-data-dir-${createHash('sha256').update(realpathSync(dir)).digest('hex').slice(0, 40)}`;
}

function refusal(dir: string, held: Holder | undefined): Error {
  const who = held ? `pid ${held.pid}` : 'its pid is not recorded';
  return new Error(`another browserd (${who}) is running on the data dir ${dir}: stop it first, or give this one a data dir of its own (--data)`);
}

function listen(server: Server, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ path: name, exclusive: true }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** The live daemon the data dir's lock file names (pid and kernel start time both match), or undefined. */
export function runningDaemon(dir: string): { pid: number } | undefined {
  const held = readHolder(join(dir, LOCK_FILE));
  return held && startTimeOf(held.pid) === held.start ? { pid: held.pid } : undefined;
}

export interface DataDirLock {
  release(): Promise<void>;
}

/** Takes the data dir for this process, or throws naming the daemon that holds it. */
export async function lockDataDir(dir: string): Promise<DataDirLock> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, LOCK_FILE);
  const me: Holder = { pid: process.pid, start: startTimeOf(process.pid) ?? '' };
  const held = readHolder(file);
  if (held && !(held.pid === me.pid && held.start === me.start) && startTimeOf(held.pid) === held.start) throw refusal(dir, held);
  // Nobody speaks on it: whoever connects (any local process may) is hung up on.
  const server = createServer((socket) => socket.destroy());
  try {
    await listen(server, lockSocketName(dir));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') throw refusal(dir, readHolder(file));
    throw e;
  }
  // It must not keep the process alive on its own: the daemon's own servers and timers decide when it ends.
  server.unref();
  writeFileSync(file, JSON.stringify(me), { mode: 0o600 });
  return {
    async release() {
      // The file only if it is still ours, then the name (in that order: a start that sees the name free finds
      // our file gone or naming an ended process).
      const now = readHolder(file);
      if (now?.pid === me.pid && now.start === me.start) {
        try {
          unlinkSync(file);
        } catch {
          // removed by hand meanwhile
        }
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
