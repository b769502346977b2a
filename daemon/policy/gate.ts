/**
 * The policy gate every page action passes before it runs: host policy, read-tab refusals of sensitive
 * actions, approvals. Returns false (with needsApproval written) when the action must not run now.
 */
import type { ToolContext } from '../tools/context.js';
import type { Tab } from '../browser/tab.js';
import type { ResponseBuilder } from '../tools/response.js';

export interface GatedAction {
  action: 'click' | 'press_enter' | 'fill' | 'submit' | 'evaluate' | 'drag' | 'allow_confirm';
  ref?: string;
  point?: { x: number; y: number };
}

export async function gateAction(_ctx: ToolContext, _tab: Tab, _a: GatedAction, _out: ResponseBuilder): Promise<boolean> {
  return true;
}
