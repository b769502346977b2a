/**
 * Free space the store keeps in hand. LMDB writes pages as a commit needs them, and when the disk fills in the
 * middle of a commit lmdb-js has been seen to abort the whole process ("corrupted size vs. prev_size" after the
 * failed write), taking every user's calls with it. So a write is refused before it starts while the data dir's
 * file system has less than the reserve free: the error carries ENOSPC, which the daemon answers as
 * storage_full, and nothing is stored. Deletions are let through, as they are how space comes back.
 */
import { statfsSync } from 'node:fs';

/** BROWSERD_STORE_RESERVE_MB, default 64: room for a few large commits and LMDB's own bookkeeping. */
export function storeReserveBytes(env: NodeJS.ProcessEnv = process.env): number {
  const mb = Number(env.BROWSERD_STORE_RESERVE_MB ?? 64);
  return (Number.isFinite(mb) && mb >= 0 ? mb : 64) * 1024 * 1024;
}

export function freeBytes(path: string): number {
  const s = statfsSync(path);
  return s.bavail * s.bsize;
}

/** Throws an ENOSPC error when `path`'s file system has less than `reserve` bytes free. */
export function assertRoom(path: string, reserve: number): void {
  if (reserve <= 0) return;
  const free = freeBytes(path);
  if (free >= reserve) return;
  const e = new Error(`the data dir's disk has ${Math.floor(free / 1024 / 1024)} MB free, less than the ${Math.round(reserve / 1024 / 1024)} MB the store keeps in hand; nothing was written`) as NodeJS.ErrnoException;
  e.code = 'ENOSPC';
  throw e;
}

/** The write methods of an lmdb-js root or database that add data; remove and drop stay open (see above). */
const ADDING = ['put', 'putSync', 'ifNoExists'] as const;
const TRANSACTIONS = ['transaction', 'transactionSync'] as const;
const SYNC = new Set<string>(['putSync', 'transactionSync']);

/**
 * A guard shared by the root and every database of one store: each adding write checks the reserve first (async
 * ones reject, sync ones throw). A transaction is checked once, as it starts; the writes inside its callback are
 * not checked again, so a transaction is refused whole or runs whole, never half.
 */
export function writeGuard(check: () => void) {
  let inside = 0;
  const refuse = (name: string, e: unknown) => {
    if (SYNC.has(name)) throw e;
    return Promise.reject(e);
  };
  return (target: object): void => {
    const t = target as Record<string, unknown>;
    for (const name of ADDING) {
      const original = t[name] as ((...a: unknown[]) => unknown) | undefined;
      if (typeof original !== 'function') continue;
      t[name] = function (this: unknown, ...args: unknown[]) {
        if (!inside) {
          try {
            check();
          } catch (e) {
            return refuse(name, e);
          }
        }
        return original.apply(this, args);
      };
    }
    for (const name of TRANSACTIONS) {
      const original = t[name] as ((cb: (...a: unknown[]) => unknown, ...rest: unknown[]) => unknown) | undefined;
      if (typeof original !== 'function') continue;
      t[name] = function (this: unknown, cb: (...a: unknown[]) => unknown, ...rest: unknown[]) {
        if (!inside) {
          try {
            check();
          } catch (e) {
            return refuse(name, e);
          }
        }
        // lmdb-js runs the callback synchronously inside the write transaction: mark that span.
        const wrapped = (...a: unknown[]) => {
          inside++;
          try {
            return cb(...a);
          } finally {
            inside--;
          }
        };
        return original.call(this, wrapped, ...rest);
      };
    }
  };
}
