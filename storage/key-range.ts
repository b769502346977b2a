/**
 * Range reads over string keys, whatever their length: every listing and prefix delete of the store goes
 * through here.
 *
 * Why: lmdb-js (ordered-binary) writes a string key of fewer than 64 UTF-16 units with the characters 0-4
 * escaped (NUL as the bytes 04 00), and a longer one as plain UTF-8 (NUL as 00, and it reads back as an array).
 * The same logical order is kept inside each form, but the two forms sort apart: a range whose bounds are
 * written in one form misses every key written in the other. A key's form depends on its whole length (user
 * name, id, sequence, URL hash), so a user with a long name (up to 64 characters, protocol/ids.ts) had rows
 * that listings never showed, a crawl's seen set was never deleted, and so on.
 *
 * So a range is read twice, once with its bounds written in each form (as raw bytes, so lmdb-js writes them as
 * given), each read keeping only the keys of its own form, and the two are merged in logical order. Keys come
 * back as the strings they were written as (an array-form key is joined again).
 */
import type { Database } from 'lmdb';

const SEP = '\u0000';
/** ordered-binary writes strings of this many UTF-16 units or more unescaped (ordered-binary/index.js). */
const LONG = 64;

export interface RangeOptions {
  /** Logical bounds as in lmdb-js: start inclusive, end exclusive; start above end when reverse. */
  start: string;
  end: string;
  reverse?: boolean;
  limit?: number;
  snapshot?: boolean;
}

/** The bytes ordered-binary writes for `s` in the short (escaped) form, or in the long (plain) form. */
function encode(s: string, long: boolean): Uint8Array {
  const out: number[] = [];
  const c0 = s.charCodeAt(0);
  if (!(c0 >= 28)) out.push(27);
  if (long) return Uint8Array.from([...out, ...Buffer.from(s, 'utf8')]);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c <= 4) out.push(4, c);
    else if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push((c >> 6) | 0xc0, (c & 0x3f) | 0x80);
    else if ((c & 0xfc00) === 0xd800 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      const cp = 0x10000 + ((c & 0x3ff) << 10) + (s.charCodeAt(++i) & 0x3ff);
      out.push((cp >> 18) | 0xf0, ((cp >> 12) & 0x3f) | 0x80, ((cp >> 6) & 0x3f) | 0x80, (cp & 0x3f) | 0x80);
    } else out.push((c >> 12) | 0xe0, ((c >> 6) & 0x3f) | 0x80, (c & 0x3f) | 0x80);
  }
  return Uint8Array.from(out);
}

/** A key as written: an array-form key (long, with NULs) joined again. */
export const keyString = (key: unknown): string => (Array.isArray(key) ? key.join(SEP) : String(key));

/** Code point order (the order of the UTF-8 bytes), not UTF-16 unit order. */
function compare(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      const fix = (c: number) => (c >= 0xd800 && c < 0xe000 ? c + 0x2000 : c >= 0xe000 ? c - 0x800 : c);
      return fix(x) - fix(y);
    }
  }
  return a.length - b.length;
}

function* oneForm<V>(table: Database<V, string>, o: RangeOptions, long: boolean, values: boolean): Generator<{ key: string; value: V }> {
  const q = { start: encode(o.start, long), end: encode(o.end, long), reverse: o.reverse, limit: o.limit, snapshot: o.snapshot } as any;
  if (values) {
    for (const { key, value } of table.getRange(q)) {
      const k = keyString(key);
      if (k.length >= LONG === long) yield { key: k, value };
    }
  } else {
    for (const key of table.getKeys(q)) {
      const k = keyString(key);
      if (k.length >= LONG === long) yield { key: k, value: undefined as V };
    }
  }
}

/**
 * The rows between two logical bounds, in logical order (both key forms merged). A limit is asked of each
 * form's read and again of the merge: each form comes sorted, so the first `limit` of the merge are among them
 * (a key of the other form inside a form's byte range, which needs a raw character 0-4 no key here holds, is
 * left out after the read and could make it short).
 */
export function* range<V>(table: Database<V, string>, o: RangeOptions, values = true): Generator<{ key: string; value: V }> {
  const a = oneForm(table, o, false, values);
  const b = oneForm(table, o, true, values);
  let x = a.next();
  let y = b.next();
  let n = 0;
  const sign = o.reverse ? -1 : 1;
  try {
    while (!x.done || !y.done) {
      if (o.limit !== undefined && n >= o.limit) return;
      n++;
      if (y.done || (!x.done && sign * compare(x.value.key, y.value.key) <= 0)) {
        yield x.value;
        x = a.next();
      } else {
        yield y.value;
        y = b.next();
      }
    }
  } finally {
    // A merge left early (a limit, a caller that stops) must end both lmdb reads: an unfinished range keeps its
    // read transaction, and enough of them fill the reader table (MDB_READERS_FULL on every later read).
    a.return(undefined);
    b.return(undefined);
  }
}

/**
 * The logical bounds of every key under a NUL-separated prefix (`a\0b\0...`): not `a\0bc`, not `a\0b` itself.
 * Reversed, the high bound comes first (as lmdb-js wants it).
 */
export function under(parts: string[], reverse = false): { start: string; end: string } {
  const prefix = parts.join(SEP);
  const low = `${prefix}${SEP}`;
  const high = `${prefix}\u0001`;
  return reverse ? { start: high, end: low } : { start: low, end: high };
}

/** The rows under a NUL-separated prefix, in order. */
export function entriesUnder<V>(table: Database<V, string>, parts: string[], o: Omit<RangeOptions, 'start' | 'end'> = {}): Generator<{ key: string; value: V }> {
  return range(table, { ...under(parts, o.reverse), ...o });
}

/** The values under a NUL-separated prefix, in order. */
export function* valuesUnder<V>(table: Database<V, string>, parts: string[], o: Omit<RangeOptions, 'start' | 'end'> = {}): Generator<V> {
  for (const { value } of entriesUnder(table, parts, o)) yield value;
}

/** The keys under a NUL-separated prefix, in order (no values read). */
export function* keysUnder(table: Database<any, string>, parts: string[], o: Omit<RangeOptions, 'start' | 'end'> = {}): Generator<string> {
  for (const { key } of range(table, { ...under(parts, o.reverse), ...o }, false)) yield key;
}

/** How many keys under a NUL-separated prefix. */
export function countUnder(table: Database<any, string>, parts: string[]): number {
  let n = 0;
  for (const _ of keysUnder(table, parts)) n++;
  return n;
}
