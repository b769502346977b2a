/** Parameter fragments shared by tools, each described for a model. */
import { Type, type TSchema, type TObject, type TProperties } from '@sinclair/typebox';

/*
 * tab, ref, snapshot, includeHidden, model and maxTokensTotal are explained once in the MCP server's
 * instructions (server/mcp.ts SERVER_INSTRUCTIONS), not in each of the 50-odd tools that take them: a model
 * reads every tool's schema on every turn. A tool gives a description only where it says something more.
 * REST readers get the same words per parameter in api/openapi.yaml, from protocol/shared-params.ts.
 */
export const TAB_PATTERN = '^(?:[a-z0-9][a-z0-9_-]{0,39}/)?t[1-9][0-9]{0,8}$';
export const REF_PATTERN = '^(?:f[1-9][0-9]{0,4}:)?e[1-9][0-9]{0,8}$';
export const TabParam = Type.Optional(Type.String({ pattern: TAB_PATTERN }));
export const RefParam = (description?: string) => Type.String({ ...(description ? { description } : {}), pattern: REF_PATTERN });
export const IncludeHiddenParam = Type.Optional(Type.Boolean({ default: false }));

/** An object schema that refuses unknown keys (the validator names the accepted ones). */
export function params<P extends TProperties>(props: P, description?: string): TObject<P> {
  return Type.Object(props, { additionalProperties: false, ...(description ? { description } : {}) });
}

export type { TSchema };

/** A string that is one of fixed values, as a plain JSON Schema enum (clearer for models and for messages than anyOf). */
export function StringEnum<const T extends string>(values: readonly T[], opts: { description?: string; default?: T } = {}) {
  return Type.Unsafe<T>({ type: 'string', enum: [...values], ...opts });
}
