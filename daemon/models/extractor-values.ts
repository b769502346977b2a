/**
 * What an extractor reads and how it is judged, with no model: the schema shapes an extractor can serve (one
 * field per top-level property), the values its selectors read from a page, and the proof that they fill the
 * schema (every required field matched, ajv satisfied). Learning, running and crawls all judge by this one
 * module, so an extractor that was proven when learned is checked the same way on every later page.
 */
import { compile } from 'css-select';
import { coercingSchemaValidator } from '../json-schema.js';
import { BrowserdError } from '../../protocol/errors.js';
import { readFields } from '../read/fields.js';
import { absoluteHttp, documentBase } from '../read/metadata.js';
import type { HDocument } from '../read/html-tree.js';
import type { ExtractorField } from '../../storage/extractors.js';
import type { JsonSchema } from './types.js';

export const MAX_EXTRACTOR_FIELDS = 50;
const SCALARS = new Set(['string', 'number', 'integer', 'boolean']);
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,99}$/;
const ATTR_NAME = /^[A-Za-z_:][A-Za-z0-9_.:-]{0,99}$/;

const bad = (message: string, next: string) => new BrowserdError('validation_error', message, { next });
const SCHEMA_NEXT = 'Give a flat object schema, e.g. {"type":"object","properties":{"title":{"type":"string"},"price":{"type":"number"},"tags":{"type":"array","items":{"type":"string"}}},"required":["title","price"]}.';


const typesOf = (s: Record<string, unknown>): string[] => (Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : []);

/**
 * Refuses a schema an extractor cannot serve: not compilable, not an object with 1-50 properties, a property
 * that is neither a scalar nor a list of scalars (a selector reads text, not nested objects), or `required`
 * naming a property that is not there.
 */
export function checkExtractorSchema(schema: JsonSchema): void {
  try {
    coercingSchemaValidator(schema);
  } catch (e) {
    throw bad(`schema is not a usable JSON Schema: ${(e as Error).message}`, SCHEMA_NEXT);
  }
  const types = typesOf(schema);
  if (types.length && !types.includes('object')) throw bad('schema must describe an object (one field per property)', SCHEMA_NEXT);
  const props = schema.properties;
  if (!props || typeof props !== 'object' || Array.isArray(props) || !Object.keys(props).length) throw bad('schema needs properties: one per field to read', SCHEMA_NEXT);
  const names = Object.keys(props);
  if (names.length > MAX_EXTRACTOR_FIELDS) throw bad(`schema has ${names.length} properties; an extractor reads at most ${MAX_EXTRACTOR_FIELDS}`, 'Split it into several extractors.');
  for (const name of names) {
    if (!FIELD_NAME.test(name)) throw bad(`property "${name.slice(0, 100)}" is not a usable field name (letters, digits, "_" or "-", starting with a letter or "_")`, SCHEMA_NEXT);
    const p = (props as Record<string, unknown>)[name];
    if (!p || typeof p !== 'object') throw bad(`property "${name}" must be a schema object`, SCHEMA_NEXT);
    const pt = typesOf(p as Record<string, unknown>);
    if (pt.includes('object')) throw bad(`property "${name}" is an object; a field holds text, a number, a boolean or a list of them`, 'Flatten it into fields of their own, e.g. "author_name" and "author_url".');
    if (pt.includes('array')) {
      const items = (p as Record<string, unknown>).items;
      const it = items && typeof items === 'object' && !Array.isArray(items) ? typesOf(items as Record<string, unknown>) : [];
      if (!it.length || !it.every((x) => SCALARS.has(x))) throw bad(`property "${name}" is a list whose items are not text, numbers or booleans`, 'Give "items": {"type": "string"} (or number, integer, boolean).');
    }
  }
  const required = schema.required;
  if (required !== undefined) {
    if (!Array.isArray(required) || required.some((r) => typeof r !== 'string' || !names.includes(r))) throw bad('schema.required must list names of its properties', SCHEMA_NEXT);
  }
}

export const requiredFields = (schema: JsonSchema): string[] => (Array.isArray(schema.required) ? (schema.required as string[]) : []);

/** Does this field's schema want a list? Then its selector reads every match. */
export function wantsList(schema: JsonSchema, name: string): boolean {
  const p = (schema.properties as Record<string, Record<string, unknown>>)[name];
  return !!p && typesOf(p).includes('array');
}

/**
 * Refuses selectors a model made up that cannot be run: an unknown field, a selector that does not parse, a
 * bad attribute name. Answers the problems as lines for the model's retry (empty when all are usable).
 */
export function selectorProblems(schema: JsonSchema, fields: Record<string, ExtractorField>): string[] {
  const names = Object.keys(schema.properties as object);
  const out: string[] = [];
  for (const [name, f] of Object.entries(fields)) {
    if (!names.includes(name)) {
      out.push(`${name}: not a property of the schema`);
      continue;
    }
    try {
      compile(f.css);
    } catch (e) {
      out.push(`${name}: ${JSON.stringify(f.css)} is not a CSS selector (${(e as Error).message})`);
    }
    if (f.attr !== undefined && !ATTR_NAME.test(f.attr)) out.push(`${name}: ${JSON.stringify(f.attr)} is not an attribute name`);
  }
  return out;
}

/** The raw values the fields read from a page: text or attribute of the first match, every match with `all`. */
export function readExtractorValues(doc: HDocument, pageUrl: string, fields: Record<string, ExtractorField>): Record<string, unknown> {
  const base = documentBase(doc, pageUrl);
  return readFields(doc, fields, (u) => absoluteHttp(u, base));
}

/** "Price: $1,299.00" -> "1299.00": a number field takes the one number its text holds. */
function numberIn(text: string): string {
  const found = text.match(/-?\d[\d,]*(?:\.\d+)?|-?\.\d+/g);
  return found && found.length === 1 ? found[0].replace(/,/g, '') : text;
}

export interface Judged {
  /** The values, coerced to the schema's types; unmatched optional fields left out. */
  data: Record<string, unknown>;
  /** Required fields no element matched (or whose every match was empty). */
  missing: string[];
  /** ajv's complaints ("/price: must be number"), when the values do not satisfy the schema. */
  errors: string[];
}

/**
 * Judges raw values against the schema: an empty match counts as no match, number fields take the number in
 * their text, then ajv (coercing "12" to 12) checks the rest. `ok` means every required field matched and the
 * schema is satisfied.
 */
export function judgeValues(schema: JsonSchema, raw: Record<string, unknown>): Judged & { ok: boolean } {
  const props = schema.properties as Record<string, Record<string, unknown>>;
  const data: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(raw)) {
    const numeric = props[name] && (typesOf(props[name]).some((x) => x === 'number' || x === 'integer') || (typesOf(props[name]).includes('array') && typesOf((props[name].items as Record<string, unknown>) ?? {}).some((x) => x === 'number' || x === 'integer')));
    if (Array.isArray(v)) {
      const list = v.filter((x) => typeof x === 'string' && x !== '').map((x) => (numeric ? numberIn(x as string) : x));
      if (list.length) data[name] = list;
    } else if (typeof v === 'string' && v !== '') data[name] = numeric ? numberIn(v) : v;
  }
  const missing = requiredFields(schema).filter((n) => !(n in data));
  const check = coercingSchemaValidator(schema);
  const errors = check(data) ? [] : (check.errors ?? []).filter((e) => e.keyword !== 'required').slice(0, 20).map((e) => `${e.instancePath || '/'}: ${e.message ?? 'invalid'}`);
  return { data, missing, errors, ok: !missing.length && !errors.length };
}
