/**
 * What a task's model may call: the MCP tools as MCP clients see them (same names, descriptions and input
 * schemas), less the few that only make sense for a person or a live client, plus task_done to finish.
 */
import type { ToolDef } from '../call/define.js';
import { toJsonSchema } from '../call/schema.js';
import type { ToolSpec } from '../models/types.js';

export const TASK_DONE = 'task_done';

/**
 * Left out, and refused if named anyway: a task waits on its own hand-offs (so it must not wait, or resolve
 * the person's step itself), and raw CDP sessions and live-view links are for people and programs, not for a
 * model that cannot open them.
 */
export const NOT_FOR_TASKS: ReadonlySet<string> = new Set(['browser_handoff_wait', 'browser_handoff_resolve', 'browser_sessions', 'browser_viewer']);

const TASK_DONE_SPEC: ToolSpec = {
  name: TASK_DONE,
  description: 'Ends the task. Call it once the goal is reached, or when it cannot be reached, with the result for the user: what you found or did, or why it could not be done.',
  parameters: {
    type: 'object',
    properties: { result: { type: 'string', description: 'The outcome for the user, in plain words (structured findings as JSON text).' } },
    required: ['result'],
    additionalProperties: false,
  },
};

/** The specs for the tools this daemon runs (main.ts hands TaskService the registry's list). */
export function taskToolSpecs(tools: readonly ToolDef<any>[]): ToolSpec[] {
  return [
    ...tools
      .filter((t) => !NOT_FOR_TASKS.has(t.name))
      .map((t) => ({ name: t.name, description: t.description, parameters: toJsonSchema(t.input) as Record<string, unknown> })),
    TASK_DONE_SPEC,
  ];
}
