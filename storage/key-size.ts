/**
 * The backstop against over-long keys. LMDB (lmdb-js) refuses a key past 1,978 bytes with a plain Error, which the
 * daemon answered as internal_error (issue 34: a 2,048-character host for browser_remember). Callers' strings are
 * bounded where they come in (tool schemas, route checks) or hashed by the store that keys on them (the response
 * cache's URLs); this guard is for the key nobody bounded yet: every database of the store refuses it first, as
 * validation_error with a next step, before anything is written.
 */
import { BrowserdError } from '../protocol/errors.js';

/** lmdb-js's limit on a key's stored bytes (its "maximum key size"). */
export const MAX_KEY_BYTES = 1978;

/** ordered-binary writes strings of this many UTF-16 units or more unescaped (see key-range.ts). */
const LONG = 64;

/**
 * The bytes ordered-binary stores for a key: a string's UTF-8 (characters 0-4 escaped to two bytes in the short
 * form), plus a marker byte when it starts below character 28; an array's parts, each with a separator.
 */
export function keyBytes(key: unknown): number {
  if (typeof key === 'string') {
    let n = Buffer.byteLength(key) + (key.length && key.charCodeAt(0) >= 28 ? 0 : 1);
    if (key.length < LONG) for (let i = 0; i < key.length; i++) if (key.charCodeAt(i) <= 4) n++;
    return n;
  }
  if (key instanceof Uint8Array) return key.length;
  if (Array.isArray(key)) return key.reduce((n: number, k) => n + keyBytes(k) + 1, 0);
  return 9;
}

/** Whether `key` fits: most keys are short strings, answered without counting (a UTF-16 unit is at most 3 bytes). */
export function keyFits(key: unknown): boolean {
  if (typeof key === 'string' && key.length * 3 < MAX_KEY_BYTES) return true;
  return keyBytes(key) <= MAX_KEY_BYTES;
}

/** Throws validation_error when `key` is past LMDB's limit. */
export function assertKeySize(key: unknown): void {
  if (keyFits(key)) return;
  throw new BrowserdError('validation_error', `a name or address in this call is too long to store (${keyBytes(key)} bytes as a key; the store takes at most ${MAX_KEY_BYTES})`, {
    next: 'Use a shorter name, id, host or URL: names are at most a few hundred characters.',
  });
}

/** The methods of an lmdb-js database that take a key to write or delete (all throw synchronously, as LMDB does). */
const KEYED_WRITES = ['put', 'putSync', 'remove', 'removeSync', 'ifNoExists', 'ifVersion'] as const;
/**
 * Reads by key: no row can have a key past the limit, so such a read finds nothing (lmdb-js would throw "String
 * does not fit in target buffer" past about 4 KB).
 */
const KEYED_READS: Record<string, undefined | false> = { get: undefined, getBinary: undefined, getBinaryFast: undefined, getEntry: undefined, doesExist: false };
/** Range reads: a bound past the limit is refused like a key (key-range.ts passes bounds as bytes). */
const RANGES = ['getRange', 'getKeys'] as const;

/** Makes each keyed write, read and range of `target` check its key first, before LMDB sees it. */
export function guardKeySize(target: object): void {
  const t = target as Record<string, unknown>;
  const wrap = (name: string, check: (key: unknown, original: (...a: unknown[]) => unknown, self: unknown, rest: unknown[]) => unknown) => {
    const original = t[name] as ((...a: unknown[]) => unknown) | undefined;
    if (typeof original !== 'function') return;
    t[name] = function (this: unknown, key: unknown, ...rest: unknown[]) {
      return check(key, original, this, rest);
    };
  };
  for (const name of KEYED_WRITES) {
    wrap(name, (key, original, self, rest) => {
      assertKeySize(key);
      return original.call(self, key, ...rest);
    });
  }
  for (const [name, none] of Object.entries(KEYED_READS)) {
    wrap(name, (key, original, self, rest) => (keyFits(key) ? original.call(self, key, ...rest) : none));
  }
  for (const name of RANGES) {
    wrap(name, (o, original, self, rest) => {
      const r = o as { start?: unknown; end?: unknown } | undefined;
      if (r?.start !== undefined) assertKeySize(r.start);
      if (r?.end !== undefined) assertKeySize(r.end);
      return original.call(self, o, ...rest);
    });
  }
}
