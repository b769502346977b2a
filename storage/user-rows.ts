/**
 * Which rows of the store are one user's, in every named database: what a move between hosts of a fleet copies
 * and then removes. Each database says how its rows name their user (the key itself, a segment of the key, or
 * the record's `user` field); a database this table does not list makes `userRows` throw, so a store added
 * later cannot be left behind by a move without a test saying so (test/unit/storage/user-rows.test.ts).
 *
 * Rows are copied as LMDB holds them (the encoded bytes): sealed values stay sealed, which is why a fleet's
 * hosts share one vault key.
 */
import { asBinary, type Database } from 'lmdb';
import { unpack } from 'msgpackr';
import type { Db } from './db.js';
import { own } from '../protocol/own.js';

type Owner = (key: string, value: () => unknown) => string | undefined;

const NUL = '\u0000';
const segment = (sep: string, i: number): Owner => (key) => key.split(sep)[i];
const wholeKey: Owner = (key) => key;
const field: Owner = (_key, value) => (value() as { user?: unknown } | undefined)?.user as string | undefined;
/** `<user>\0...`, or an index row of the table (starting \u0001) whose record names the user. */
const userFirstOrIndexed: Owner = (key, value) => (key.startsWith('\u0001') ? field(key, value) : segment(NUL, 0)(key, value));

/** Meta keys that belong to one user: `<kind>\0<user>\0...`. Every other meta key is the host's. */
const USER_META = new Set(['counter', 'defaultTab', 'agentStorage']);

export const USER_ROWS: Record<string, Owner> = {
  users: wholeKey,
  tokens: (key, value) => (key.startsWith('user:') ? key.slice('user:'.length) : field(key, value)),
  policies: wholeKey,
  identities: wholeKey,
  meta: (key) => {
    const [kind, user] = key.split(NUL);
    return kind && USER_META.has(kind) ? user : undefined;
  },
  vault: userFirstOrIndexed,
  handoffs: userFirstOrIndexed,
  // r|s|j|p <user> ... and e|t|r|b <user> ...
  records: segment(NUL, 1),
  cacheIndex: segment(NUL, 1),
  // '/' rather than NUL in these keys (webhooks.ts says why).
  webhooks: segment('/', 0),
  webhookRows: segment('/', 0),
  webhookDue: segment('/', 0),
  ...Object.fromEntries(
    [
      'tabs', 'audit', 'savedSessions', 'smsMessages', 'crawls', 'crawlQueue', 'crawlSeen', 'crawlItems', 'siteMemory',
      'extractors', 'apiMaps', 'research', 'monitors', 'monitorChecks', 'monitorBaselines', 'tasks', 'action-cache',
      'model-usage', 'usage', 'userBytes',
    ].map((name) => [name, segment(NUL, 0)]),
  ),
};

export interface UserRow {
  table: string;
  key: unknown;
  /** The row's bytes as stored. */
  value: Buffer;
}

/** The named databases in the store (LMDB keeps their names as the root database's keys). */
export function tableNames(db: Db): string[] {
  return [...db.root.getKeys({})].map(String);
}

const keyText = (key: unknown) => (Array.isArray(key) ? key.join(NUL) : String(key));

/** Opens each named database once for a walk over many rows (db.table() opens and guards it anew each call). */
function tablesOf(db: Db): (name: string) => Database<any, string> {
  const open = new Map<string, Database<any, string>>();
  return (name) => {
    let t = open.get(name);
    if (!t) open.set(name, (t = db.table(name)));
    return t;
  };
}

/**
 * Whose a row is, by its table's rule (undefined for a table this file does not know, or a host's own row).
 * `decoded` is the row's record when the caller has already read it.
 */
export function rowOwner(row: UserRow, decoded?: unknown): string | undefined {
  const owner = own(USER_ROWS, row.table);
  return owner?.(keyText(row.key), () => decoded ?? unpack(row.value));
}

/**
 * The first of `rows` that would land on a key this store holds for someone other than `user`: rows are keyed by
 * hashes and index entries too, whose owner is read from the record, so such a row would take another user's
 * place (a token hash row would make their token open `user`).
 */
export function clashingRow(db: Db, rows: Iterable<UserRow>, user: string): UserRow | undefined {
  const table = tablesOf(db);
  for (const row of rows) {
    const have = table(row.table).getBinary(row.key as string);
    if (have && rowOwner({ table: row.table, key: row.key, value: Buffer.from(have) }) !== user) return row;
  }
  return undefined;
}

/** Every row of `user`, table by table. Throws for a database this file does not know. */
export function* userRows(db: Db, user: string): Generator<UserRow> {
  const tableNamed = tablesOf(db);
  for (const table of tableNames(db)) {
    const owner = own(USER_ROWS, table);
    if (!owner) throw new Error(`storage/user-rows.ts does not say how the rows of "${table}" name their user`);
    const t = tableNamed(table);
    for (const { key, value } of t.getRange({})) {
      if (owner(keyText(key), () => value) !== user) continue;
      yield { table, key, value: Buffer.from(t.getBinary(key as string)!) };
    }
  }
}

/** Writes rows as they were read on another host, in one transaction. */
export async function putUserRows(db: Db, rows: Iterable<UserRow>): Promise<number> {
  let n = 0;
  const table = tablesOf(db);
  await db.root.transaction(() => {
    for (const r of rows) {
      table(r.table).put(r.key as string, asBinary(r.value));
      n++;
    }
  });
  await db.flushed();
  return n;
}

/** Removes every row of `user`, in one transaction. */
export async function removeUserRows(db: Db, user: string): Promise<number> {
  const rows = [...userRows(db, user)];
  const table = tablesOf(db);
  await db.root.transaction(() => {
    for (const r of rows) table(r.table).remove(r.key as string);
  });
  await db.flushed();
  return rows.length;
}
