/**
 * Stored GET/HEAD responses per user and cache name: an LMDB index, bodies in private files under
 * <data>/cache/, secrets already redacted by the caller, a size cap per user with the oldest evicted.
 * OWNER: part "cache". Interface fixed by the lead; body to be written.
 */
import type { Db } from './db.js';

export interface CachedResponse {
  method: 'GET' | 'HEAD';
  /** The request URL as stored (secret query values redacted). */
  url: string;
  finalUrl: string;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  storedAt: string;
}

export interface CacheInfo {
  name: string;
  entries: number;
  bytes: number;
  updatedAt?: string;
}

export class ResponseCacheStore {
  constructor(_db: Db, _dataDir: string, _opts: { maxBytesPerUser: number }) {}
  get(_user: string, _name: string, _method: 'GET' | 'HEAD', _url: string): CachedResponse | undefined {
    throw new Error('response cache: not built yet');
  }
  async put(_user: string, _name: string, _response: Omit<CachedResponse, 'storedAt'>): Promise<void> {
    throw new Error('response cache: not built yet');
  }
  list(_user: string): CacheInfo[] {
    throw new Error('response cache: not built yet');
  }
  async delete(_user: string, _name: string): Promise<boolean> {
    throw new Error('response cache: not built yet');
  }
}
