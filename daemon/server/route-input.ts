/**
 * The one check of a REST route's path parameters and query against the schemas in its routes.ts row, run by
 * app.ts after authentication and before the handler: a value that does not fit is a validation_error with a
 * next step, and the handler gets the decoded, checked values. Routes without schemas get empty input. A row's
 * JSON body is read and checked (route-body.ts) when its handler asks, so an audited change can audit a refusal.
 */
import AjvModule from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { TObject, TSchema } from '@sinclair/typebox';
import { BrowserdError } from '../../protocol/errors.js';
import { hintOf } from './route-schemas.js';
import type { RouteSpec, SchemaBody } from './routes.js';
import { checkBody } from './route-body.js';
import { MAX_BODY, parseJsonBounded } from '../http/exchange.js';

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
  /**
   * Throws the refusal of a path parameter of a `refusalsAudited` row, deferred so the handler's audited change
   * audits it; a no-op on other rows (their parameters were refused before the handler ran).
   */
  checked(): void;
  /** The JSON body as sent, parsed but not checked (what an audit entry may name before the check). */
  json(): Promise<unknown>;
  /** The JSON body checked against the row's `body.schema` (read first if not yet read). */
  body<T = any>(): Promise<T>;
}

/** How the body's bytes are read (the request's readBody); absent where no request is at hand (unit tests). */
export type ReadBytes = (max: number) => Promise<Buffer>;

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

/** The path parameters decoded (a segment that cannot be decoded is refused at once: there is no name to audit). */
function decodeParams(route: RouteSpec, raw: string[]): Record<string, string> {
  const props = (route.params?.properties ?? {}) as Record<string, TSchema>;
  const out: Record<string, string> = {};
  pathParamNames(route.path).forEach((name, i) => {
    const seg = raw[i] ?? '';
    try {
      out[name] = decodeURIComponent(seg);
    } catch {
      throw bad(`"${seg.slice(0, 80)}" is not a valid URL path segment`, hintOf(props[name] ?? ({} as TSchema)).next ?? 'Percent-encode it correctly.');
    }
  });
  return out;
}

/** The refusal of decoded path parameters that do not fit the row's schema, if any. */
function paramsProblem(route: RouteSpec, out: Record<string, string>): BrowserdError | undefined {
  if (!route.params) return undefined;
  const props = route.params.properties as Record<string, TSchema>;
  const fn = validator(route.params);
  if (fn(out)) return undefined;
  const name = nameOf(fn.errors![0]!);
  const hint = hintOf(props[name] ?? ({} as TSchema));
  return bad(`"${String(out[name] ?? '').slice(0, 80)}" is not ${hint.what ?? `a valid ${name}`}`, hint.next ?? 'See api/openapi.yaml for the form it takes.');
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

const schemaBody = (route: RouteSpec): SchemaBody | undefined => (route.body && 'schema' in route.body ? route.body : undefined);

/** The checked input of a route, or a validation_error naming the first value that does not fit. */
export function routeInput(route: RouteSpec, rawParams: string[], query: URLSearchParams, read?: ReadBytes): RouteInput {
  const params = decodeParams(route, rawParams);
  // A decoded parameter that does not fit its schema is refused here, or by input.checked() inside the
  // handler's audited change on a row that audits its refusals.
  const refusal = paramsProblem(route, params);
  if (refusal && !route.refusalsAudited) throw refusal;
  const checkedQuery = checkQuery(route, query);
  const spec = schemaBody(route);
  let raw: Promise<unknown> | undefined;
  const json = () =>
    (raw ??= (async () => {
      if (!spec || !read) throw new Error(`${route.method} ${route.path} reads no JSON body`);
      const buf = await read(spec.maxBytes ?? MAX_BODY);
      if (!buf.length) return spec.emptyIsAbsent ? undefined : {};
      return parseJsonBounded(buf.toString('utf8'));
    })());
  const checked = () => {
    if (refusal) throw refusal;
  };
  return {
    params,
    query: checkedQuery,
    checked,
    json,
    body: async <T>() => {
      checked();
      const value = await json();
      return (spec!.check ? spec!.check(value) : checkBody(spec!.schema, value)) as T;
    },
  };
}
