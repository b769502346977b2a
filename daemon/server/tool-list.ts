/**
 * The tools/list entry of each tool, as MCP clients get it: built here once so the gateway (mcp.ts), the tool
 * budget test and the tool-definitions bench measure the very list a client receives.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolDef } from '../call/define.js';
import { annotationsFor } from '../call/registry.js';
import { toJsonSchema } from '../call/schema.js';
import { listedOutputSchema, withoutStringLimits } from '../call/output.js';

const listedInputs = new WeakMap<ToolDef<any>, Tool['inputSchema']>();

/**
 * A tool's input schema as tools/list gives it: every parameter with its type, enum, range, default and
 * description, without the patterns and lengths of strings. Those cost a model about 3,900 tokens over all
 * tools (a tab id's pattern alone is 35, in 47 tools) and tell it nothing it needs: ids come from earlier
 * results, and the server still checks every limit and names the one broken (validation_error). REST clients
 * find them in api/openapi.yaml.
 */
function listedInputSchema(t: ToolDef<any>): Tool['inputSchema'] {
  let s = listedInputs.get(t);
  if (!s) listedInputs.set(t, (s = withoutStringLimits(toJsonSchema(t.input)) as Tool['inputSchema']));
  return s;
}

export function toolListEntry(t: ToolDef<any>): Tool {
  // The title once, at the top, where clients of 2025-06-18 and later look first; the hints stay.
  const { title: _title, ...hints } = annotationsFor(t);
  return {
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: listedInputSchema(t),
    ...(t.output ? { outputSchema: listedOutputSchema(t) as Tool['outputSchema'] } : {}),
    annotations: hints,
  };
}

/** The answer to tools/list for these tools. */
export const toolList = (tools: readonly ToolDef<any>[]): { tools: Tool[] } => ({ tools: tools.map(toolListEntry) });
