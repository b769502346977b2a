/**
 * The one check of a REST route's JSON body against the TypeBox schema on its routes.ts row (`body.schema`),
 * the same schema scripts/docs.ts writes into api/openapi.yaml. A body that does not fit is a validation_error
 * with a next step; its message names where and what, and quotes a sent value only where the value is one of a
 * closed set (an enum), so a vault secret is never echoed.
 */
import AjvModule from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { TSchema } from '@sinclair/typebox';
import { BrowserdError } from '../../protocol/errors.js';
import { hintOf } from './route-schemas.js';

const Ajv = (AjvModule as any).default ?? AjvModule;
// verbose: each error carries the schema node it failed, whose hint says what to do next. No defaults filled,
// no coercion: the handler sees the body as sent.
const ajv = new Ajv({ allErrors: false, strict: false, verbose: true, useDefaults: false, coerceTypes: false });
const compiled = new WeakMap<TSchema, ValidateFunction>();

function validator(schema: TSchema): ValidateFunction {
  let fn = compiled.get(schema);
  if (!fn) compiled.set(schema, (fn = ajv.compile(schema) as ValidateFunction));
  return fn!;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * The branch of a union of objects a body means: the one whose constant keys (kind: "otp_inbox") it matches,
 * preferring one that declares every key it sent. Its errors say more than the union's "matches no branch".
 */
function branchOf(schema: TSchema, value: unknown): TSchema | undefined {
  const branches = schema.anyOf as TSchema[] | undefined;
  if (!branches || !isObject(value)) return undefined;
  const fits = branches.filter((b) => {
    const props = (b.properties ?? {}) as Record<string, TSchema>;
    return Object.entries(props).every(([k, p]) => p.const === undefined || (k in value ? value[k] === p.const : !(b.required as string[] | undefined)?.includes(k)));
  });
  const declared = fits.find((b) => Object.keys(value).every((k) => k in ((b.properties ?? {}) as object)));
  return declared ?? fits[0] ?? branches[0];
}

const where = (e: ErrorObject) => e.instancePath.slice(1).replace(/\//g, '.');

function message(e: ErrorObject): string {
  const at = where(e);
  const p = e.params as Record<string, any>;
  if (e.keyword === 'additionalProperties') return `${at ? `${at}: ` : ''}unknown key "${String(p.additionalProperty).slice(0, 40)}"`;
  if (e.keyword === 'required') return `${at ? `${at}.` : ''}${p.missingProperty} is required`;
  if (!at && e.keyword === 'type') return 'the body must be a JSON object';
  if (e.keyword === 'enum') return `${at}: ${JSON.stringify(e.data).slice(0, 60)} is not one of ${(p.allowedValues as unknown[]).join(', ')}`;
  if (e.keyword === 'const') return `${at} must be ${JSON.stringify(p.allowedValue)}`;
  return `${at || 'the body'} ${e.message}`;
}

/** The body, checked against `schema`; a validation_error naming the first thing that does not fit. */
export function checkBody<T = unknown>(schema: TSchema, value: unknown, next?: string): T {
  const fn = validator(schema);
  if (fn(value)) return value as T;
  const branch = branchOf(schema, value);
  const inner = branch ? validator(branch) : undefined;
  const e = (inner && !inner(value) ? inner.errors![0] : fn.errors![0])!;
  const hint = hintOf((e.parentSchema ?? {}) as TSchema);
  throw new BrowserdError('validation_error', hint.message ?? message(e), { next: hint.next ?? next ?? hintOf(schema).next ?? 'See api/openapi.yaml for the body this route takes.' });
}
