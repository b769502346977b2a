/**
 * The one LMDB environment under the data dir, with a schema version. Every record kind has its own named
 * database and its own small typed store module beside this file. storage/ imports nothing from daemon/.
 */
import { open, type RootDatabase, type Database } from 'lmdb';
import { privateDir, privateFile } from './private-fs.js';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { assertRoom, storeReserveBytes, writeGuard } from './disk-reserve.js';
import { UserBytes } from './user-bytes.js';
import { guardKeySize } from './key-size.js';

export const SCHEMA_VERSION = 1;

export interface Db {
  root: RootDatabase;
  meta: Database<any, string>;
  users: Database<any, string>;
  tokens: Database<any, string>;
  tabs: Database<any, string>;
  audit: Database<any, string>;
  policies: Database<any, string>;
  /** Vault entries, sealed (storage/vault.ts). */
  vault: Database<any, string>;
  /** Saved sessions (cookies and storage), sealed (storage/saved-sessions.ts). */
  savedSessions: Database<any, string>;
  /** One-time-code messages forwarded to SMS inboxes, sealed, kept minutes (storage/sms-inbox.ts). */
  smsMessages: Database<any, string>;
  /** Hand-offs to a person, with their page-token index (storage/handoffs.ts). */
  handoffs: Database<any, string>;
  /** Crawl runs (spec, state, counters) by `<user>\0<id>` (storage/crawls.ts). */
  crawls: Database<any, string>;
  /** Pages waiting in each run's queue, in order (storage/crawls.ts). */
  crawlQueue: Database<any, string>;
  /** Every URL a run has queued, so no page is queued twice (storage/crawls.ts). */
  crawlSeen: Database<any, string>;
  /** Crawled pages, in the order they finished (storage/crawls.ts). */
  crawlItems: Database<any, string>;
  /** Response cache index; bodies are files under <data>/cache (storage/response-cache.ts). */
  cacheIndex: Database<any, string>;
  /** Remembered site maps and notes (storage/site-memory.ts). */
  siteMemory: Database<any, string>;
  /** Webhook receivers, their secrets sealed (storage/webhooks.ts). */
  webhooks: Database<any, string>;
  /** Webhook outbox rows, one per event and receiver, with their bodies and attempts (storage/webhooks.ts). */
  webhookRows: Database<any, string>;
  /** When each pending outbox row is next due, per receiver (storage/webhooks.ts). */
  webhookDue: Database<any, string>;
  /** Recordings, their steps and step screenshots, and replays (storage/records.ts). */
  records: Database<any, string>;
  /** Each user's drawn browser identity (storage/identities.ts). */
  identities: Database<any, string>;
  /** The bytes each user keeps in this store, counted in the same transactions as their rows (user-bytes.ts). */
  userBytes: UserBytes;
  /**
   * The one way a store opens a named database of its own: its adding writes pass the disk-full guard
   * (disk-reserve.ts) and its keys the size guard (key-size.ts) like every database above. A layering test refuses any other `openDB` call.
   */
  table<V = any>(name: string): Database<V, string>;
  close(): Promise<void>;
  /** Resolves once every write so far is on disk: await it before acknowledging a write that must survive a crash. */
  flushed(): Promise<void>;
}

export function openDb(dataDir: string): Db {
  privateDir(dataDir);
  const file = join(dataDir, 'browserd.lmdb');
  // Named databases: the ones below, those the stores open beside this file, and room for more.
  const root = open({ path: file, compression: false, maxDbs: 64 });
  // LMDB creates its files 0644 (less the umask): tighten them, the lock file too.
  privateFile(file);
  privateFile(`${file}-lock`);
  // Writes stop short of a full disk (disk-reserve.ts): lmdb-js can abort the process on a commit that fails.
  const reserve = storeReserveBytes();
  const guardWrites = writeGuard(() => assertRoom(dataDir, reserve));
  guardWrites(root);
  // A key past LMDB's size is refused as validation_error, not LMDB's plain Error (key-size.ts).
  guardKeySize(root);
  const sub = <V = any>(name: string): Database<V, string> => {
    const d = root.openDB<V, string>({ name });
    guardWrites(d);
    guardKeySize(d);
    return d;
  };
  const db: Omit<Db, 'userBytes'> & { userBytes?: UserBytes } = {
    root,
    meta: sub('meta'),
    users: sub('users'),
    tokens: sub('tokens'),
    tabs: sub('tabs'),
    audit: sub('audit'),
    policies: sub('policies'),
    vault: sub('vault'),
    savedSessions: sub('savedSessions'),
    smsMessages: sub('smsMessages'),
    handoffs: sub('handoffs'),
    crawls: sub('crawls'),
    crawlQueue: sub('crawlQueue'),
    crawlSeen: sub('crawlSeen'),
    crawlItems: sub('crawlItems'),
    cacheIndex: sub('cacheIndex'),
    siteMemory: sub('siteMemory'),
    webhooks: sub('webhooks'),
    webhookRows: sub('webhookRows'),
    webhookDue: sub('webhookDue'),
    records: sub('records'),
    identities: sub('identities'),
    table: sub,
    async close() {
      await root.close();
    },
    async flushed() {
      // lmdb-js resolves put() when the write is visible, not durable (overlappingSync); `flushed` is durable.
      await (root as any).flushed;
    },
  };
  migrate(db as Db);
  db.userBytes = new UserBytes(db);
  return db as Db;
}

/**
 * The store opened read-only, for checks that must change nothing (browserd doctor): no file is created,
 * no mode changed, no schema written. Undefined when there is no store yet.
 */
export function peekDb(dataDir: string): { meta: Database<any, string>; users: Database<any, string>; close(): Promise<void> } | undefined {
  const file = join(dataDir, 'browserd.lmdb');
  if (!existsSync(file)) return undefined;
  const root = open({ path: file, compression: false, maxDbs: 32, readOnly: true });
  return { meta: root.openDB<any, string>({ name: 'meta' }), users: root.openDB<any, string>({ name: 'users' }), close: () => root.close() };
}

/**
 * LMDB's own copy of the store into a new file, taken in one read transaction: every record as of one instant,
 * while a daemon goes on writing. The store is opened read-only for it, so nothing in it changes.
 */
export async function copyStore(dataDir: string, toFile: string): Promise<void> {
  const root = open({ path: join(dataDir, 'browserd.lmdb'), compression: false, readOnly: true });
  try {
    await root.backup(toFile, false);
  } finally {
    await root.close();
  }
}

function migrate(db: Db) {
  const v = db.meta.get('schemaVersion') as number | undefined;
  if (v === undefined) {
    db.meta.putSync('schemaVersion', SCHEMA_VERSION);
    return;
  }
  if (v > SCHEMA_VERSION) {
    throw new Error(`the data dir was written by a newer browserd (schema ${v} > ${SCHEMA_VERSION}); upgrade browserd`);
  }
  // Migrations from older versions go here, one step per version.
}
