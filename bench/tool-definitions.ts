/**
 * Tool definitions: what an agent pays before its first call. For browserd's tools/list (built by the gateway's
 * own code, daemon/server/tool-list.ts, for every tool and for each toolset) beside Playwright MCP's (asked
 * over stdio): tokens a model reads (name, description and input schema of every tool, gpt-tokenizer's o200k
 * encoding), the same with output schemas, and the bytes of the whole tools/list JSON.
 */
import { TOOLS } from '../daemon/main.js';
import { toolList } from '../daemon/server/tool-list.js';
import { toolsetFilter } from '../daemon/server/toolsets.js';
import { measureToolList, type ToolListFigures } from '../test/fixtures/tool-measure.js';
import { printTable, startPlaywrightMcp } from './lib.js';

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const row = (label: string, f: ToolListFigures) => [label, f.tools, f.modelTokens.toLocaleString('en'), Math.round(f.modelTokens / f.tools), f.tokensWithOutput.toLocaleString('en'), kb(f.listBytes)];

export async function run(): Promise<void> {
  const ours = measureToolList(toolList(TOOLS.tools));
  const rows = [row('browserd, every tool', ours)];
  // What a connection that asks for fewer tools pays (/mcp?tools=...).
  for (const sets of ['core', 'core,vault']) {
    const only = toolsetFilter(sets)!;
    rows.push(row(`browserd, ?tools=${sets}`, measureToolList(toolList(TOOLS.tools.filter((t) => only.has(t.name))))));
  }
  const notes: string[] = [];
  try {
    const pw = await startPlaywrightMcp();
    try {
      const listed = await pw.client.listTools();
      rows.push(row('Playwright MCP (default tools)', measureToolList(listed)));
    } finally {
      await pw.close();
    }
  } catch (e) {
    notes.push(`Playwright MCP could not be run: ${e instanceof Error ? e.message : e}`);
  }
  notes.push('model-visible: name + description + inputSchema of each tool as JSON, counted with gpt-tokenizer (o200k_base).');
  notes.push('list: the whole tools/list result as compact JSON, output schemas and annotations included.');
  printTable('Tool definitions: tokens a model reads, bytes of tools/list', ['list', 'tools', 'model-visible tokens', 'per tool', 'tokens with output schemas', 'tools/list'], rows, notes);
  printTable('Heaviest browserd tools (model-visible tokens)', ['tool', 'tokens'], ours.perTool.slice(0, 10).map((t) => [t.name, t.tokens]));
}
