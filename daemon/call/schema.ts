/** A tool's TypeBox schema as plain JSON Schema (TypeBox keeps its own markers in symbol keys, which JSON drops). */
import type { TSchema } from '@sinclair/typebox';

const cache = new WeakMap<TSchema, object>();

export function toJsonSchema(s: TSchema): object {
  let j = cache.get(s);
  if (!j) {
    j = JSON.parse(JSON.stringify(s));
    cache.set(s, j!);
  }
  return j!;
}
