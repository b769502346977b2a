/**
 * The storage quota: the bytes one user keeps on the host's disk, counted where they are (their files with the
 * downloads still arriving, their uploads, their HAR files) plus their response caches as the cache's index
 * accounts them, plus their rows in the store (recordings, monitors, tasks, crawls) as the store's own tally
 * counts them (storage/user-bytes.ts). Files are counted from the disk at each store rather than kept as a
 * running total, so nothing that writes or deletes behind the count (a crash, a download half written) can
 * make it drift; the store's tally changes in the same transaction as its rows, so it cannot drift either.
 */
import { join } from 'node:path';
import { quotaError } from './limits.js';
import { bytesUnder } from '../../storage/dir-bytes.js';

export interface StorageQuotaOptions {
  dataDir: string;
  /** Bytes per user (--max-storage-mb-per-user). */
  limit: number;
  /** The user's response-cache bytes as the cache's index accounts them. */
  cacheBytes(user: string): number;
  /** The user's bytes in the store, by kind (storage/user-bytes.ts); none when not given. */
  storeBytes?(user: string): Record<string, number>;
}

/** Where a user's stored bytes are, as GET /v1/me shows them. */
export interface StorageUse {
  files: number;
  uploads: number;
  har: number;
  caches: number;
  /** Rows in the store by kind: records, monitors, tasks, crawls. */
  [kind: string]: number;
}

const NEXT = 'Delete files you no longer need (DELETE /v1/files/{name}), caches (DELETE /v1/caches/{name}), crawls (DELETE /v1/crawls/{id}), recordings or monitors (their tools\' action "delete"), then try again.';

/** A user id as the HAR recordings name their directory (traffic/har-recordings.ts). */
const harSegment = (s: string) => encodeURIComponent(s).replace(/\./g, '%2E');

export class StorageQuota {
  constructor(private opts: StorageQuotaOptions) {}

  get limit(): number {
    return this.opts.limit;
  }

  /** The user's stored bytes now; `except` is a file already on disk that is about to be stored (counted once, as `adding`). */
  used(user: string, except?: string): number {
    return Object.values(this.use(user, except)).reduce((a, b) => a + b, 0);
  }

  /** The user's stored bytes by where they are. */
  use(user: string, except?: string): StorageUse {
    const d = this.opts.dataDir;
    return {
      files: bytesUnder(join(d, 'files', user), except),
      uploads: bytesUnder(join(d, 'uploads', user), except),
      har: bytesUnder(join(d, 'har', harSegment(user)), except),
      caches: this.opts.cacheBytes(user),
      ...this.opts.storeBytes?.(user),
    };
  }

  /** Bytes the user may still store. */
  room(user: string): number {
    return Math.max(0, this.opts.limit - this.used(user));
  }

  /** Throws `refused` naming --max-storage-mb-per-user when `adding` more bytes would pass the user's quota; stores nothing. */
  check(user: string, adding: number, except?: string): void {
    const used = this.used(user, except);
    if (used + adding > this.opts.limit) {
      throw quotaError('storageBytes', used, this.opts.limit, NEXT, adding);
    }
  }
}
