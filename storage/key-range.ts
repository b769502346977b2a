/**
 * The keys under a NUL-separated prefix, whatever their length. lmdb-js keeps a string key with a NUL in it of 64
 * characters or more in its array form, which sorts apart from the shorter ones (and reads back as an array): a
 * range over the string prefix alone misses the long keys (a crawl's seen set always, any row of a long user
 * name). Deletes read both ranges, so nothing of a deleted run or recording is left behind (nor counted).
 */
import type { Database } from 'lmdb';

const SEP = '\u0000';

export function* keysUnder(table: Database<any, string>, parts: string[]): Generator<string> {
  const prefix = parts.join(SEP);
  yield* table.getKeys({ start: `${prefix}${SEP}`, end: `${prefix}\u0001` }) as Iterable<string>;
  // The same prefix in array form: every longer key (element by element, so `crawl_1x` is not under `crawl_1`).
  yield* table.getKeys({ start: parts as unknown as string, end: [...parts, '\uffff'] as unknown as string }) as Iterable<string>;
}
