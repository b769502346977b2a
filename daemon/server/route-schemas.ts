/**
 * The server's own path, query and body schemas and the helpers every feature builds its own from (TypeBox,
 * like a tool's input): a route row carries them, route-input.ts and route-body.ts check every request against
 * them, and scripts/docs.ts writes them into api/openapi.yaml. One copy, so what is checked and what is
 * documented cannot drift apart.
 */
import { Type, type TSchema, type TObject, type TProperties } from '@sinclair/typebox';
import { USER_NAME } from '../../protocol/ids.js';
import { TOOLSETS } from './toolsets.js';

/**
 * What the validator says when a value does not fit, beside the schema. A symbol key: JSON (the OpenAPI, the
 * ajv compile) never sees it.
 */
export const HINT = Symbol('routeHint');
export interface ParamHint {
  /** The whole message, where the shape-derived one would not say it well. */
  message?: string;
  /** What the value should be, as in `"x" is not <what>` (path) or `name must be <what>` (query). */
  what?: string;
  /** The `next` of the validation_error. */
  next?: string;
  /** An empty query value counts as leaving the parameter out. */
  emptyIsAbsent?: boolean;
}

export function hinted<S extends TSchema>(schema: S, hint: ParamHint): S {
  (schema as unknown as Record<symbol, ParamHint>)[HINT] = hint;
  return schema;
}

export const hintOf = (schema: TSchema): ParamHint => (schema as unknown as Record<symbol, ParamHint | undefined>)[HINT] ?? {};

/** A route's path parameters or query: named strings and whole numbers; unknown query keys are ignored. */
export const group = <P extends TProperties>(props: P): TObject<P> => Type.Object(props);

/** A path segment, decoded; `next` says what to send when it cannot be decoded. */
export const segment = (description: string | undefined, next: string, extra: Record<string, unknown> = {}) =>
  hinted(Type.String({ ...(description ? { description } : {}), ...extra }), { next });

export const cursor = (next: string, empty?: string) =>
  hinted(Type.String({ description: 'Opaque, from the previous page, valid for the caller only; anything else is validation_error.', ...(empty ? { minLength: 1 } : {}) }), { next, ...(empty ? { message: empty } : {}) });

export const limit = (min: number, max: number, dflt: number | undefined) => Type.Integer({ minimum: min, maximum: max, ...(dflt !== undefined ? { default: dflt } : {}) });

export const CURSOR_NEXT = 'Pass the cursor from your previous page unchanged, or omit it to start at the beginning.';

// ---- tabs, tools, files
export const TabPath = group({ id: segment(undefined, 'Percent-encode the name correctly.') });
export const HarTabPath = group({ id: segment(undefined, 'Percent-encode the tab id correctly.') });
export const ToolPath = group({ name: segment(undefined, 'Percent-encode the name correctly.') });
export const FilePath = group({ name: segment(undefined, 'Percent-encode the name correctly.') });

// ---- usage and audit
const day = (name: string, description: string) =>
  hinted(Type.String({ format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description }), { what: 'a day as YYYY-MM-DD', next: `Pass ${name}=2026-01-31, or leave it out.` });
export const UsageQuery = group({ from: Type.Optional(day('from', 'First day (YYYY-MM-DD, UTC), inclusive')), to: Type.Optional(day('to', 'Last day (YYYY-MM-DD, UTC), inclusive')) });
export const AuditQuery = group({
  limit: Type.Optional(hinted(limit(1, 500, undefined), { next: 'Pass ?limit=50.' })),
  cursor: Type.Optional(cursor('Pass the cursor from your previous page unchanged, or omit it for the newest entries.')),
});
/** POST /mcp at initialize: the toolsets the session offers (server/toolsets.ts); read by the gateway, documented here. */
export const McpQuery = group({
  tools: Type.Optional(Type.String({ description: `Comma-separated toolsets the session lists and may call: ${Object.keys(TOOLSETS).join(', ')} or all (the default). Read at initialize.` })),
});
export const AdminAuditQuery = group({ limit: Type.Optional(hinted(limit(1, 10000, undefined), { next: 'Pass ?limit=100.' })) });

// ---- admin
export const NewUserBody = hinted(Type.Object({
  name: hinted(Type.String({ pattern: USER_NAME.source, description: '1-64 lowercase letters, digits, ".", "_" or "-", starting with a letter or digit' }), {
    message: 'name must be 1-64 lowercase letters, digits, ".", "_" or "-", starting with a letter or digit',
    next: 'Pick a name such as "alice".',
  }),
}), { next: 'Send {"name": "alice"}.' });
