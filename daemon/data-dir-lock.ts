/**
 * One daemon per data dir. Two daemons on one store would both run its crawls, deliver its webhooks, resume its
 * tasks and start Chromium on the same profiles (a second Chromium on a profile hands itself to the first and
 * exits). The CLI's commands and `doctor` open the store beside a running daemon on purpose and take no lock.
 *
 * The lock is a file naming the holder by pid and by the kernel's start time of that pid, so a pid reused after
 * a kill -9 is not mistaken for the holder: a lock whose holder is gone is stale and taken over.
 */
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
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
    return undefined; // gone meanwhile, or half-written by a start that was killed: not a live holder
  }
}

export interface DataDirLock {
  release(): void;
}

/** Takes the data dir for this process, or throws naming the daemon that holds it. */
export function lockDataDir(dir: string): DataDirLock {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, LOCK_FILE);
  const me: Holder = { pid: process.pid, start: startTimeOf(process.pid) ?? '' };
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, JSON.stringify(me), { flag: 'wx', mode: 0o600 });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const held = readHolder(file);
    if (held && startTimeOf(held.pid) === held.start) {
      throw new Error(`another browserd (pid ${held.pid}) is running on the data dir ${dir}: stop it first, or give this one a data dir of its own (--data)`);
    }
    // Stale: its holder is gone, so it goes. (Two starts that both find the same stale lock within the same
    // instant could both go on; a start after a crash is one start, so that race is left alone.)
    if (attempt > 0) throw new Error(`could not take the data dir ${dir}: ${file} keeps coming back`);
    try {
      unlinkSync(file);
    } catch {
      // taken away by the other start meanwhile
    }
  }
  return {
    release() {
      // Only our own: after a takeover the file is another daemon's.
      const held = readHolder(file);
      if (held?.pid === me.pid && held.start === me.start) unlinkSync(file);
    },
  };
}
