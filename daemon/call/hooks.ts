/**
 * What features add to every call, at fixed points of dispatch.ts; registered once at start (main.ts). The
 * pipeline names the points, the features fill them: recording makes a step of a call, the vault names the
 * values hidden from its result.
 */
import type { ToolContext } from './context.js';
import type { CallStep } from './call.js';

export interface DispatchHooks {
  /** After the gate let the call through, just before the handler runs (records/recorder.ts: a step). */
  stepStarting(ctx: ToolContext, tool: string, args: Record<string, unknown>): Promise<CallStep | undefined>;
  /** After the call: the values hidden from its result and its audit entry (the vault's values, codes filled). */
  secretsOf(user: string): string[];
}
