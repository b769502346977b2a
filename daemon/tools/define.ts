/**
 * A tool is one value: name, description for a model, JSON Schema input (TypeBox), effect class and handler.
 * Handlers get a ToolContext and write to its response builder; they never see MCP or HTTP types.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import type { ResponseBuilder } from './response.js';
import type { ToolContext } from './context.js';

/**
 * read: changes nothing anywhere. write: changes page state (may send network writes in an act tab).
 * sensitive: can move money, delete, send, change security, accept terms or run code: gated by policy.
 */
export type Effect = 'read' | 'write' | 'sensitive';

export interface ToolDef<S extends TSchema = TSchema> {
  name: string;
  title: string;
  description: string;
  input: S;
  effect: Effect;
  /** Reaches sites on the web (MCP openWorldHint). Default true. */
  openWorld?: boolean;
  /** Needs the user's browser running (default true); tools that only read the store say false. */
  needsBrowser?: boolean;
  handle(ctx: ToolContext, args: Static<S>, out: ResponseBuilder): Promise<void>;
}

export function defineTool<S extends TSchema>(def: ToolDef<S>): ToolDef<S> {
  return def;
}
