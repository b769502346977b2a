/**
 * The one check of a REST route's path parameters and query against the schemas in its routes.ts row, run by
 * app.ts after authentication and before the handler: a value that does not fit is a validation_error with a
 * next step, and the handler gets the decoded, checked values. Routes without schemas get empty input.
 */
import AjvModule from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { TObject, TSchema } from '@sinclair/typebox';
import { BrowserdError } from '../../protocol/errors.js';
import { hintOf } from './route-schemas.js';
import type { RouteSpec } from './routes.js';

const Ajv = (AjvModule as any).default ?? AjvModule;
const ajv = new Ajv({ allErrors: false, strict: false, useDefaults: true, coerceTypes: false });
// A day Date.parse reads (2026-13-01 is none): the pattern alone would pass it. The same test as before.
ajv.addFormat('date', (v: string) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)));
const compiled = new WeakMap<TObject, ValidateFunction>();

function validator(schema: TObject): ValidateFunction {
  let fn = compiled.get(schema);
  if (!fn) compiled.set(schema, (fn = ajv.compile(schema) as ValidateFunction));
  return fn!;
}

export interface RouteInput {
  /** Path parameters by name, percent-decoded and checked. */
  params: Record<string, string>;
  /** Query parameters by name, checked, whole numbers as numbers, schema defaults filled. */
  query: Record<string, any>;
}

const bad = (message: string, next: string) => new BrowserdError('validation_error', message, { next });

/** The `{param}` names of a route path, in order. */
export const pathParamNames = (path: string) => [...path.matchAll(/\{([a-z]+)\}/g)].map((m) => m[1]!);

const isInteger = (s: TSchema) => s.type === 'integer';
const enumOf = (s: TSchema): unknown[] | undefined => (Array.isArray(s.enum) ? s.enum : undefined);

/** The first ajv error's parameter name ("/limit" -> "limit"). */
const nameOf = (e: ErrorObject) => e.instancePath.split('/')[1] ?? '';

function queryProblem(name: string, schema: TSchema, raw: string): BrowserdError {
  const hint = hintOf(schema);
  const values = enumOf(schema);
  let message = hint.message;
  if (!message) {
    if (isInteger(schema)) message = `${name} must be a whole number${schema.minimum !== undefined && schema.maximum !== undefined ? ` from ${schema.minimum} to ${schema.maximum}` : ''}`;
    else if (values) message = `${name} must be one of ${values.join(', ')}`;
    else message = `${name} must be ${hint.what ?? 'of the documented form'}, not "${raw.slice(0, 40)}"`;
  }
  const next = hint.next ?? (schema.default !== undefined ? `Pass ?${name}=${schema.default}.` : values ? `Pass ?${name}=${values[0]}, or leave it out.` : `Leave ${name} out, or see api/openapi.yaml.`);
  return bad(message, next);
}

function checkParams(route: RouteSpec, raw: string[]): Record<string, string> {
  const names = pathParamNames(route.path);
  const props = (route.params?.properties ?? {}) as Record<string, TSchema>;
  const out: Record<string, string> = {};
  names.forEach((name, i) => {
    const seg = raw[i] ?? '';
    try {
      out[name] = decodeURIComponent(seg);
    } catch {
      throw bad(`"${seg.slice(0, 80)}" is not a valid URL path segment`, hintOf(props[name] ?? ({} as TSchema)).next ?? 'Percent-encode it correctly.');
    }
  });
  if (route.params) {
    const fn = validator(route.params);
    if (!fn(out)) {
      const name = nameOf(fn.errors![0]!);
      const hint = hintOf(props[name] ?? ({} as TSchema));
      throw bad(`"${String((out as Record<string, string>)[name] ?? '').slice(0, 80)}" is not ${hint.what ?? `a valid ${name}`}`, hint.next ?? 'See api/openapi.yaml for the form it takes.');
    }
  }
  return out;
}

function checkQuery(route: RouteSpec, query: URLSearchParams): Record<string, unknown> {
  if (!route.query) return {};
  const props = route.query.properties as Record<string, TSchema>;
  const value: Record<string, unknown> = {};
  const raws: Record<string, string> = {};
  for (const [name, schema] of Object.entries(props)) {
    const raw = query.get(name);
    if (raw === null || (raw === '' && hintOf(schema).emptyIsAbsent)) continue;
    raws[name] = raw;
    // Only plain digits are a whole number: "1e2", " 5" and "0x10" are refused, not read as numbers.
    value[name] = isInteger(schema) && /^\d+$/.test(raw) ? Number(raw) : raw;
  }
  const fn = validator(route.query);
  if (!fn(value)) {
    const name = nameOf(fn.errors![0]!);
    throw queryProblem(name, props[name]!, raws[name] ?? '');
  }
  return value;
}

/** The checked input of a route, or a validation_error naming the first value that does not fit. */
export function routeInput(route: RouteSpec, rawParams: string[], query: URLSearchParams): RouteInput {
  return { params: checkParams(route, rawParams), query: checkQuery(route, query) };
}
