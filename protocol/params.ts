/** Parameter fragments shared by tools, each described for a model. */
import { Type, type TSchema, type TObject, type TProperties } from '@sinclair/typebox';

export const TabParam = Type.Optional(
  Type.String({ description: 'Tab id such as "t2" (a named profile\'s tab is "<profile>/t2"). Default: the most recent or focused tab.', pattern: '^(?:[a-z0-9][a-z0-9_-]{0,39}/)?t[1-9][0-9]{0,8}$' }),
);
export const RefParam = (description = 'Element ref from browser_snapshot, browser_query or browser_find_text: "e12", or "f1:e3" inside frame 1 (same- or cross-origin).') =>
  Type.String({ description, pattern: '^(?:f[1-9][0-9]{0,4}:)?e[1-9][0-9]{0,8}$' });
export const IncludeHiddenParam = Type.Optional(Type.Boolean({ description: 'Include text a person cannot see (hidden, transparent, off-screen, background-coloured). Default false.', default: false }));

/** An object schema that refuses unknown keys (the validator names the accepted ones). */
export function params<P extends TProperties>(props: P, description?: string): TObject<P> {
  return Type.Object(props, { additionalProperties: false, ...(description ? { description } : {}) });
}

export type { TSchema };

/** A string that is one of fixed values, as a plain JSON Schema enum (clearer for models and for messages than anyOf). */
export function StringEnum<const T extends string>(values: readonly T[], opts: { description: string; default?: T }) {
  return Type.Unsafe<T>({ type: 'string', enum: [...values], ...opts });
}
