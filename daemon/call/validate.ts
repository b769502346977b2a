/** Argument validation with ajv; messages name the offending key and what is accepted. */
import AjvModule from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { TSchema } from '@sinclair/typebox';
import { BrowserdError } from '../../protocol/errors.js';

const Ajv = (AjvModule as any).default ?? AjvModule;
const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true, coerceTypes: false });
const cache = new WeakMap<TSchema, ValidateFunction>();

function describe(e: ErrorObject, schema: any, tool: string): string {
  const where = e.instancePath ? e.instancePath.replace(/^\//, '').replace(/\//g, '.') : '';
  switch (e.keyword) {
    case 'additionalProperties': {
      const key = (e.params as any).additionalProperty;
      const parent = where ? where.split('.').reduce((s: any, k) => s?.properties?.[k] ?? s?.items, schema) : schema;
      const accepted = Object.keys(parent?.properties ?? {}).join(', ');
      return `unknown parameter "${where ? `${where}.` : ''}${key}" for ${tool}; accepted: ${accepted || '(none)'}`;
    }
    case 'required':
      return `${tool} needs "${(e.params as any).missingProperty}"${where ? ` in ${where}` : ''}`;
    case 'enum':
      return `"${where}" must be one of ${(e.params as any).allowedValues.map((v: unknown) => JSON.stringify(v)).join(', ')}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
    case 'minLength':
    case 'maxLength':
    case 'minItems':
    case 'maxItems':
    case 'minProperties':
    case 'maxProperties':
      return `"${where}" ${e.message}`;
    case 'pattern':
      return `"${where}" has the wrong form (${e.message})`;
    default:
      return `${where ? `"${where}" ` : ''}${e.message}`;
  }
}

export function validateArgs(tool: string, schema: TSchema, args: unknown): Record<string, unknown> {
  let fn = cache.get(schema);
  if (!fn) {
    fn = ajv.compile(schema);
    cache.set(schema, fn!);
  }
  const value = args === undefined || args === null ? {} : structuredClone(args);
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new BrowserdError('validation_error', `${tool} takes an object of named arguments`, { next: 'See the tool\'s input schema in tools/list.' });
  }
  if (!fn!(value)) {
    const errors = fn!.errors ?? [];
    // anyOf/oneOf produce noise for each branch; the first specific message is the useful one.
    const msgs = [...new Set(errors.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf' && e.keyword !== 'if').map((e) => describe(e, schema, tool)))];
    throw new BrowserdError('validation_error', msgs.slice(0, 3).join('; ') || `invalid arguments for ${tool}`, {
      next: "Fix the arguments as the message says; the tool's input schema is in tools/list.",
    });
  }
  return value as Record<string, unknown>;
}

/** No tool's schema nests anywhere near this deep; anything deeper is refused before it is walked. */
export const MAX_ARGS_DEPTH = 32;

/**
 * True when a value nests objects or arrays deeper than `max`. Walks with an explicit stack, so a body nested
 * ten thousand levels deep is measured without overflowing the call stack that validation and redaction use.
 */
export function argsDepthExceeds(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Object.values(v)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}
