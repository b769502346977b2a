/**
 * A tool is one value: name, description for a model, JSON Schema input (TypeBox), effect class, how it
 * touches the page, and handler. Handlers get a ToolContext and write to its response builder; they never see
 * MCP or HTTP types, and never call the policy gate: the call pipeline gates what `touches` declares.
 */
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { ResponseBuilder } from './response.js';
import type { ToolContext } from './context.js';

/**
 * read: changes nothing anywhere. write: changes page state (may send network writes in an act tab).
 * sensitive: can move money, delete, send, change security, accept terms or run code: gated by policy.
 */
export type Effect = 'read' | 'write' | 'sensitive';

/** A pair of argument names holding a viewport point (x, y). */
export type PointArgs = readonly [x: string, y: string];

/**
 * One way a tool acts on a page, naming the ARGUMENTS that say where. The pipeline reads these, finds the
 * elements they land on and puts each through the policy gate before the handler runs, so a new input path
 * cannot forget the gate: declaring what it touches is part of defining it.
 */
export type Touch =
  /** A click (real pointer or DOM) on the element in `ref`, or at the point in `point`. */
  | { kind: 'click'; ref?: string; point?: PointArgs }
  /** A value typed or set into the field in `ref`; without that argument, into the element with focus. */
  | { kind: 'fill'; ref?: string }
  /** Values set into many fields: `fields` names an argument mapping ref -> value. */
  | { kind: 'fill_many'; fields: string }
  /** Enter pressed in `ref` (or the focused element) when the boolean argument `when` is true. */
  | { kind: 'submit'; when: string; ref?: string }
  /** A key or chord in argument `key`: Enter submits, Space clicks, a character or deletion types. */
  | { kind: 'key'; key: string }
  /** A file put into the file input in `ref`. */
  | { kind: 'file'; ref: string }
  /** The drop end of a drag: the element in `ref`, or the point in `point`. */
  | { kind: 'drop'; ref?: string; point?: PointArgs }
  /** Script run in the page. */
  | { kind: 'script' }
  /** A yes to the page's next confirm() or prompt(). */
  | { kind: 'confirm' };

export interface ToolDef<S extends TSchema = TSchema> {
  name: string;
  title: string;
  description: string;
  input: S;
  /**
   * The structured result: every field the handler sets with `out.set`, as a TypeBox object (output.ts).
   * Mark strings a page controls in bulk with PageText, so MCP clients get them fenced. A tool that sets no
   * field has none. Not ok, text, tool, operation, images or resources: the REST answer has those beside it.
   */
  output?: TObject;
  effect: Effect;
  /**
   * MCP hints where the effect class alone would say something untrue. The effect is about sites: a 'read' tool
   * sends no write to one, yet it may still change the browser (open, navigate, scroll) or stored data (start a
   * crawl, store a file); and a tool with a delete, remove, close or cancel action is destructive.
   * Defaults: readOnly when the effect is read, destructive when sensitive, idempotent when read-only.
   */
  hints?: { readOnly?: boolean; destructive?: boolean; idempotent?: boolean };
  /** Reaches sites on the web (MCP openWorldHint). Default true. */
  openWorld?: boolean;
  /**
   * The largest JSON body a REST call of this tool may send, in bytes (default 4 MiB, server/rest-call.ts);
   * past it the call is 413 payload_too_large before anything is parsed. Tools that take a file inline say more.
   */
  maxBodyBytes?: number;
  /** Needs the user's browser running (default true); tools that only read the store say false. */
  needsBrowser?: boolean;
  /** How the tool acts on the page in its `tab` argument; absent for tools that only read. */
  touches?: readonly Touch[];
  /**
   * Checks between arguments that a schema cannot say (x goes with y, one source of two): run with
   * validation, so bad input is a validation_error before any tab is locked or any gate is asked.
   */
  check?(args: Static<S>): void;
  handle(ctx: ToolContext, args: Static<S>, out: ResponseBuilder): Promise<void>;
}

export function defineTool<S extends TSchema>(def: ToolDef<S>): ToolDef<S> {
  return def;
}

/** A tool's definition by name, or undefined: how features that replay or list tools see the registry, handed in by main.ts. */
export type ToolLookup = (name: string) => ToolDef<any> | undefined;
