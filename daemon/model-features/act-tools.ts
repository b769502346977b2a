/**
 * The interaction tools a model may choose for one act step, as it is shown them: the MCP tools' own names,
 * descriptions and schemas, less the arguments the server fills in (`tab`: the step's tab) or that would tie
 * the step to one screen layout (`x`/`y` of a click: a point cannot be found again on a later page, a ref's
 * element can). The model's call is checked against the tool's full schema before anything runs.
 */
import type { ToolDef } from '../call/define.js';
import { toJsonSchema } from '../call/schema.js';
import type { JsonSchema, ToolSpec } from '../models/types.js';

export const ACT_TOOLS = ['browser_click', 'browser_type', 'browser_fill', 'browser_select_options', 'browser_press', 'browser_hover', 'browser_fill_secret'] as const;
const LEFT_OUT = new Set(['tab', 'x', 'y']);

/**
 * The definitions of ACT_TOOLS by name, handed in by the act operation (act-operations.ts), which reads them
 * from the daemon's registry: the tools are other features' and none of them is imported here.
 */
export type ActToolDefs = ReadonlyMap<string, ToolDef<any>>;

/** An act tool's definition: its schema checks the model's call, its handler runs it. */
export function actTool(defs: ActToolDefs, name: (typeof ACT_TOOLS)[number]): ToolDef<any> {
  const def = defs.get(name);
  if (!def) throw new Error(`${name} is an act tool with no definition`);
  return def;
}

/** The model's way of saying the step cannot be done on this page (then nothing runs). */
export const ACT_IMPOSSIBLE = 'act_impossible';

const specsFor = new WeakMap<ActToolDefs, ToolSpec[]>();

export function actToolSpecs(defs: ActToolDefs): ToolSpec[] {
  const known = specsFor.get(defs);
  if (known) return known;
  const specs = [
    ...ACT_TOOLS.map((name) => {
      const tool = actTool(defs, name);
      const { properties: all = {}, required: allRequired = [], ...rest } = toJsonSchema(tool.input) as JsonSchema & { properties?: Record<string, unknown>; required?: string[] };
      const properties = Object.fromEntries(Object.entries(all).filter(([k]) => !LEFT_OUT.has(k)));
      const required = allRequired.filter((k) => !LEFT_OUT.has(k));
      return { name, description: tool.description, parameters: { ...rest, properties, ...(required.length ? { required } : {}) } };
    }),
    {
      name: ACT_IMPOSSIBLE,
      description: 'Call this instead when the step cannot be done on this page (no such element, or it needs something the page does not offer), saying why.',
      parameters: { type: 'object', properties: { reason: { type: 'string', description: 'Why the step cannot be done here, in one sentence.' } }, required: ['reason'], additionalProperties: false },
    },
  ];
  specsFor.set(defs, specs);
  return specs;
}

export function isActTool(name: string): name is (typeof ACT_TOOLS)[number] {
  return (ACT_TOOLS as readonly string[]).includes(name);
}
