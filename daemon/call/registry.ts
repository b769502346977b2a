/**
 * The tools and REST-only operations one daemon serves, by name. main.ts fills it from the features it
 * starts (each feature returns its own tools); dispatch looks a call up here and the server lists it, so
 * nothing keeps a second, static list of every tool.
 */
import type { ToolDef } from './define.js';

export class ToolRegistry {
  private readonly byName: Map<string, ToolDef<any>>;
  private readonly operationNames: Set<string>;

  /**
   * `tools` are offered over MCP and POST /v1/tools/{name}; `operations` run through the same dispatch
   * (validation, audit, scrubbing, errors) but only from the REST route that names them.
   */
  constructor(readonly tools: readonly ToolDef<any>[], readonly operations: readonly ToolDef<any>[] = []) {
    this.byName = new Map([...tools, ...operations].map((t) => [t.name, t]));
    if (this.byName.size !== tools.length + operations.length) {
      const seen = new Set<string>();
      const twice = [...tools, ...operations].map((t) => t.name).filter((n) => seen.has(n) || !seen.add(n));
      throw new Error(`two tools share a name: ${twice.join(', ')}`);
    }
    this.operationNames = new Set(operations.map((t) => t.name));
  }

  /** A tool, or (with `operations`) a REST-only operation, by name. */
  get(name: string, opts: { operations?: boolean } = {}): ToolDef<any> | undefined {
    if (this.operationNames.has(name) && !opts.operations) return undefined;
    return this.byName.get(name);
  }

  /** The tools' names, in the order tools/list gives them. */
  names(): string[] {
    return this.tools.map((t) => t.name);
  }
}

/** MCP annotations from the effect class. */
export function annotationsFor(t: ToolDef<any>) {
  const readOnly = t.hints?.readOnly ?? t.effect === 'read';
  return {
    title: t.title,
    readOnlyHint: readOnly,
    // MCP reads destructiveHint only when readOnlyHint is false; a read-only tool says false, not a guess.
    destructiveHint: !readOnly && (t.hints?.destructive ?? t.effect === 'sensitive'),
    idempotentHint: t.hints?.idempotent ?? readOnly,
    openWorldHint: t.openWorld !== false,
  };
}
