/**
 * What collect (daemon/docs/collect.ts) remembers per user: for each file URL, the bytes it gave last time
 * (sha-256), the name they are stored under, and the validators (ETag, Last-Modified) to ask the site whether
 * they changed; and for each sha-256, the stored name, so the same bytes from another URL are not stored twice.
 * Keyed `<user>\0u\0<url>` and `<user>\0h\0<sha256>`, the user part always the caller's own. Opens its own
 * named database in the one environment.
 */
import type { Database } from 'lmdb';
import type { Db } from './db.js';

export interface CollectedFile {
  url: string;
  sha256: string;
  /** The name in the user's files. */
  name: string;
  size: number;
  /** The collect type (pdf, csv, image, ...). */
  type: string;
  contentType?: string;
  etag?: string;
  lastModified?: string;
  at: string;
}

const stores = new WeakMap<Db, CollectedStore>();

export class CollectedStore {
  private readonly table: Database<any, string>;

  private constructor(private readonly db: Db) {
    this.table = db.root.openDB<any, string>({ name: 'collected' });
  }

  /** One store per environment (opened on first use). */
  static of(db: Db): CollectedStore {
    let s = stores.get(db);
    if (!s) stores.set(db, (s = new CollectedStore(db)));
    return s;
  }

  byUrl(user: string, url: string): CollectedFile | undefined {
    return this.table.get(`${user}\u0000u\u0000${url}`) as CollectedFile | undefined;
  }

  nameOfHash(user: string, sha256: string): string | undefined {
    return this.table.get(`${user}\u0000h\u0000${sha256}`) as string | undefined;
  }

  /** The name the bytes with this sha-256 are stored under: recorded as the file is written, before any other addition looks. */
  async rememberHash(user: string, sha256: string, name: string): Promise<void> {
    await this.table.put(`${user}\u0000h\u0000${sha256}`, name);
    await this.db.flushed();
  }

  async remember(user: string, f: CollectedFile): Promise<void> {
    await this.db.root.transaction(() => {
      this.table.put(`${user}\u0000u\u0000${f.url}`, f);
      this.table.put(`${user}\u0000h\u0000${f.sha256}`, f.name);
    });
    await this.db.flushed();
  }
}
