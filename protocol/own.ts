/**
 * Lookups in plain-object tables by a string that came from outside (a caller, a page, a provider, a file):
 * `TABLE[key]` answers for 'constructor', '__proto__' or 'toString' too, with what Object.prototype holds, and a
 * caller's tool name once turned that into HTTP 500. `own` answers only the table's own entries. A contract test
 * (test/contract/table-lookups.test.ts) refuses a computed index into a module-level table that skips it.
 */
export function own<V>(table: Readonly<Record<string, V>>, key: string | undefined | null): V | undefined {
  return typeof key === 'string' && Object.hasOwn(table, key) ? table[key] : undefined;
}
