/**
 * Types from seen values: parameters (always strings on the wire) get integer, number, boolean or string with a
 * format when every value agrees; bodies and messages get JSON Schemas merged over every example by genson-js.
 */
import { createSchema, mergeSchemas } from 'genson-js';
import type { JsonSchema } from '../../../protocol/api-map.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const URI = /^[a-z][a-z0-9+.-]*:\/\/\S+$/i;

/** The schema of a parameter from the values it took. */
export function scalarSchema(values: readonly string[]): JsonSchema {
  if (!values.length) return { type: 'string' };
  if (values.every((v) => /^-?\d{1,15}$/.test(v))) return { type: 'integer' };
  if (values.every((v) => v !== '' && Number.isFinite(Number(v)) && /^-?[\d.e+-]+$/i.test(v))) return { type: 'number' };
  if (values.every((v) => v === 'true' || v === 'false')) return { type: 'boolean' };
  for (const [format, re] of [['uuid', UUID], ['date-time', DATE_TIME], ['email', EMAIL], ['uri', URI]] as const) {
    if (values.every((v) => re.test(v))) return { type: 'string', format };
  }
  return { type: 'string' };
}

/** One schema for every JSON value seen (undefined when none was JSON). */
export function mergedSchema(values: readonly unknown[]): JsonSchema | undefined {
  const schemas = values.filter((v) => v !== undefined).map((v) => createSchema(v as never) as JsonSchema);
  if (!schemas.length) return undefined;
  return schemas.length === 1 ? schemas[0] : (mergeSchemas(schemas as never) as JsonSchema);
}

/** Two schemas as one (for merging maps). */
export function mergeTwo(a: JsonSchema | undefined, b: JsonSchema | undefined): JsonSchema | undefined {
  if (!a) return b;
  if (!b) return a;
  return mergeSchemas([a, b] as never) as JsonSchema;
}

/** About how long a kept example may be. */
export const EXAMPLE_MAX = 2048;

function shrink(v: unknown, depth: number): unknown {
  if (Array.isArray(v)) return v.slice(0, depth > 0 ? 1 : 2).map((x) => shrink(x, depth + 1));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shrink(x, depth + 1)]));
  return typeof v === 'string' && v.length > 200 ? `${v.slice(0, 200)}…` : v;
}

/**
 * An example cut to about 2 KB. It gets text the redactor already returned: JSON is first made smaller the
 * JSON way (lists to their first items, long strings cut) so it stays JSON; only what is still long is cut.
 */
export function cutExample(redacted: string): string {
  if (redacted.length <= EXAMPLE_MAX) return redacted;
  try {
    const small = JSON.stringify(shrink(JSON.parse(redacted), 0));
    if (small.length <= EXAMPLE_MAX) return small;
  } catch {
    // Not JSON: cut as text.
  }
  return `${redacted.slice(0, EXAMPLE_MAX)}…[cut, ${redacted.length} chars]`;
}
