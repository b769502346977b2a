/**
 * Stored GET/HEAD responses per user and cache name. The index is in LMDB; bodies are files under
 * <data>/cache/<user dir>/, named by their SHA-256 (equal bodies are stored once per user) and counted by
 * reference. Callers redact before storing (daemon/cache/redact.ts). Each user's caches together are capped at
 * `maxBytesPerUser`; past it the oldest entries go first. Every key starts with the owner's id.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from './db.js';
import { privateDir } from './private-fs.js';
import { entriesUnder, valuesUnder } from './key-range.js';

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

interface IndexEntry extends Omit<CachedResponse, 'body'> {
  name: string;
  bodyHash: string;
  size: number;
  /** Time-index key, to drop it from the eviction order when the entry is replaced or deleted. */
  timeKey: string;
}

const SEP = '\u0000';
let seq = 0;
/**
 * A URL up to this many bytes is its own part of the entry key; a longer one (a caller's or a page's URL can be any
 * length, and LMDB keys stop at 1,978 bytes) is keyed by its SHA-256 instead, after "#", which no absolute URL
 * starts with. Shorter URLs keep the plain form, so entries stored before this still answer.
 */
const URL_KEY_MAX_BYTES = 512;
const urlPart = (url: string) => (Buffer.byteLength(url) <= URL_KEY_MAX_BYTES ? url : `#${createHash('sha256').update(url).digest('hex')}`);

export class ResponseCacheStore {
  private readonly root: string;

  constructor(
    private readonly db: Db,
    dataDir: string,
    private readonly opts: { maxBytesPerUser: number },
  ) {
    this.root = join(dataDir, 'cache');
  }

  // Key spaces in the one cacheIndex database, each starting with the user's id:
  //   e <user> <name> <METHOD url>  -> IndexEntry (a long url hashed, see urlPart)
  //   t <user> <time> <seq>         -> entry key (eviction order, oldest first)
  //   r <user> <hash>               -> how many entries use that body file
  //   b <user>                      -> bytes the user's entries account for
  private entryKey = (user: string, name: string, method: string, url: string) => `e${SEP}${user}${SEP}${name}${SEP}${method} ${urlPart(url)}`;
  private userDir(user: string): string {
    return join(this.root, createHash('sha256').update(user).digest('hex').slice(0, 32));
  }

  get(user: string, name: string, method: 'GET' | 'HEAD', url: string): CachedResponse | undefined {
    const e = this.db.cacheIndex.get(this.entryKey(user, name, method, url)) as IndexEntry | undefined;
    if (!e) return undefined;
    let body: Buffer;
    try {
      body = method === 'HEAD' ? Buffer.alloc(0) : readFileSync(join(this.userDir(user), e.bodyHash));
    } catch {
      return undefined; // a body file lost (disk trouble) is a miss, never a wrong answer
    }
    return { method: e.method, url: e.url, finalUrl: e.finalUrl, status: e.status, headers: e.headers, body, storedAt: e.storedAt };
  }

  /** Stores (or replaces) one response and evicts the oldest past the cap; durable before it resolves. */
  async put(user: string, name: string, r: Omit<CachedResponse, 'storedAt'>): Promise<void> {
    const dir = privateDir(this.userDir(user));
    const bodyHash = createHash('sha256').update(r.body).digest('hex');
    const file = join(dir, bodyHash);
    if (!existsSync(file)) {
      const tmp = `${file}.${process.pid}.${++seq}.tmp`;
      writeFileSync(tmp, r.body, { mode: 0o600 });
      renameSync(tmp, file);
    }
    const storedAt = new Date().toISOString();
    const key = this.entryKey(user, name, r.method, r.url);
    const timeKey = `t${SEP}${user}${SEP}${storedAt}${SEP}${String(++seq).padStart(9, '0')}`;
    const orphans: string[] = [];
    await this.db.root.transaction(() => {
      const old = this.db.cacheIndex.get(key) as IndexEntry | undefined;
      if (old) this.dropEntry(user, key, old, orphans);
      const entry: IndexEntry = { method: r.method, url: r.url, finalUrl: r.finalUrl, status: r.status, headers: r.headers, storedAt, name, bodyHash, size: r.body.length, timeKey };
      this.db.cacheIndex.put(key, entry);
      this.db.cacheIndex.put(timeKey, key);
      this.addRef(user, bodyHash, 1);
      this.addBytes(user, entry.size);
      this.evict(user, orphans);
    });
    await this.db.flushed();
    this.removeFiles(user, orphans.filter((h) => h !== bodyHash || !this.refs(user, h)));
  }

  private refs(user: string, hash: string): number {
    return (this.db.cacheIndex.get(`r${SEP}${user}${SEP}${hash}`) as number | undefined) ?? 0;
  }

  private addRef(user: string, hash: string, by: number): number {
    const n = this.refs(user, hash) + by;
    if (n > 0) this.db.cacheIndex.put(`r${SEP}${user}${SEP}${hash}`, n);
    else this.db.cacheIndex.remove(`r${SEP}${user}${SEP}${hash}`);
    return n;
  }

  /** Bytes the user's entries account for (the storage quota counts them). */
  usedBytes(user: string): number {
    return this.bytes(user);
  }

  private bytes(user: string): number {
    return (this.db.cacheIndex.get(`b${SEP}${user}`) as number | undefined) ?? 0;
  }

  private addBytes(user: string, by: number) {
    this.db.cacheIndex.put(`b${SEP}${user}`, Math.max(0, this.bytes(user) + by));
  }

  /** Inside a transaction: removes an entry's index rows; a body no entry uses any more goes to `orphans`. */
  private dropEntry(user: string, key: string, e: IndexEntry, orphans: string[]) {
    this.db.cacheIndex.remove(key);
    this.db.cacheIndex.remove(e.timeKey);
    this.addBytes(user, -e.size);
    if (this.addRef(user, e.bodyHash, -1) === 0) orphans.push(e.bodyHash);
  }

  /** Inside a transaction: oldest entries out until the user is under the cap. */
  private evict(user: string, orphans: string[]) {
    if (this.bytes(user) <= this.opts.maxBytesPerUser) return;
    for (const { key: timeKey, value } of entriesUnder(this.db.cacheIndex, ['t', user])) {
      const e = this.db.cacheIndex.get(value as string) as IndexEntry | undefined;
      if (e) this.dropEntry(user, value as string, e, orphans);
      else this.db.cacheIndex.remove(timeKey as string);
      if (this.bytes(user) <= this.opts.maxBytesPerUser) break;
    }
  }

  private removeFiles(user: string, hashes: string[]) {
    for (const h of hashes) rmSync(join(this.userDir(user), h), { force: true });
  }

  /** The user's caches: entries, bytes (before de-duplication) and the newest store time, by name. */
  list(user: string): CacheInfo[] {
    const by = new Map<string, CacheInfo>();
    for (const value of valuesUnder(this.db.cacheIndex, ['e', user])) {
      const e = value as IndexEntry;
      const info = by.get(e.name) ?? { name: e.name, entries: 0, bytes: 0 };
      info.entries++;
      info.bytes += e.size;
      if (!info.updatedAt || e.storedAt > info.updatedAt) info.updatedAt = e.storedAt;
      by.set(e.name, info);
    }
    return [...by.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Deletes one cache of the user; false when it had no entries. */
  async delete(user: string, name: string): Promise<boolean> {
    const orphans: string[] = [];
    let found = false;
    await this.db.root.transaction(() => {
      for (const { key, value } of [...entriesUnder(this.db.cacheIndex, ['e', user, name])]) {
        found = true;
        this.dropEntry(user, key as string, value as IndexEntry, orphans);
      }
    });
    await this.db.flushed();
    this.removeFiles(user, orphans);
    return found;
  }
}
