/**
 * The tools/list entry of each tool, as MCP clients get it: built here once so the gateway (mcp.ts), the tool
 * budget test and the tool-definitions bench measure the very list a client receives.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolDef } from '../call/define.js';
import { annotationsFor } from '../call/registry.js';
import { toJsonSchema } from '../call/schema.js';
import { outputJsonSchema } from '../call/output.js';

export function toolListEntry(t: ToolDef<any>): Tool {
  return {
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: toJsonSchema(t.input) as Tool['inputSchema'],
    ...(t.output ? { outputSchema: outputJsonSchema(t) as Tool['outputSchema'] } : {}),
    annotations: annotationsFor(t),
  };
}

/** The answer to tools/list for these tools. */
export const toolList = (tools: readonly ToolDef<any>[]): { tools: Tool[] } => ({ tools: tools.map(toolListEntry) });
