/**
 * Observe: what could be done on a tab toward an instruction. The model reads the tab's snapshot (fenced) and
 * proposes candidate actions, each an interaction tool call on a ref; nothing runs. A candidate whose tool is
 * not an interaction tool, or whose ref the snapshot does not show, is dropped and named in the warnings.
 */
import type { ToolContext } from '../call/context.js';
import { ACT_TOOLS, isActTool } from './act-tools.js';
import { FENCE_RULE, fenceText } from '../models/chunks.js';
import { forcedAnswer } from './forced-answer.js';
import { SNAPSHOT_CHARS } from './act.js';
import { openModelSession } from '../models/session.js';
import { viewTab, viewText } from './tab-view.js';
import type { ToolSpec } from '../models/types.js';
import type { Target } from './page-targets.js';

export const INSTRUCTION_MAX = 2000;
const MAX_CANDIDATES = 10;

export interface Candidate {
  description: string;
  ref?: string;
  element?: Target;
  tool: string;
  args: Record<string, unknown>;
}

const PROPOSE: ToolSpec = {
  name: 'propose_actions',
  description: 'The actions on this page that would carry out the instruction, best first (none when nothing fits).',
  parameters: {
    type: 'object',
    properties: {
      candidates: {
        type: 'array',
        maxItems: MAX_CANDIDATES,
        items: {
          type: 'object',
          properties: {
            description: { type: 'string', description: 'What the action does, in a few words ("Click the Save button").' },
            ref: { type: 'string', description: 'The ref of the element from the snapshot, such as e12 (omit for a key press).' },
            tool: { type: 'string', enum: [...ACT_TOOLS], description: 'The tool that would do it.' },
            args: { type: 'object', description: "The tool's other arguments (value, text, key, values ...), without ref and tab." },
          },
          required: ['description', 'tool'],
        },
      },
    },
    required: ['candidates'],
  },
};

const SYSTEM = [
  'You look at a web page and list the actions that would carry out an instruction, each as one tool call on an element of the page (its ref from the snapshot).',
  'Do not carry anything out; only propose. Never invent a ref.',
  FENCE_RULE,
].join(' ');

export async function runObserve(ctx: ToolContext, args: { tab: string; instruction: string; model?: string; maxTokensTotal?: number }) {
  const session = openModelSession({ env: ctx.env, user: ctx.user.id, model: args.model, key: ctx.modelKey, maxTokensTotal: args.maxTokensTotal, signal: ctx.signal });
  const view = await viewTab(ctx, args.tab);
  const warnings: string[] = [];
  const raw = await forcedAnswer(session, { system: SYSTEM, user: `Instruction: ${args.instruction}\n\nThe page:\n${fenceText(`snapshot of ${view.tab}`, viewText(view), SNAPSHOT_CHARS)}`, tool: PROPOSE }, (a) =>
    Array.isArray(a.candidates) ? (a.candidates as unknown[]) : '"candidates" is not an array',
  );
  const candidates: Candidate[] = [];
  for (const [i, c] of raw.slice(0, MAX_CANDIDATES).entries()) {
    const o = (c && typeof c === 'object' ? c : {}) as Record<string, unknown>;
    const tool = typeof o.tool === 'string' ? o.tool : '';
    const ref = typeof o.ref === 'string' && o.ref ? o.ref : undefined;
    if (!isActTool(tool)) {
      warnings.push(`candidate ${i + 1} dropped: "${tool.slice(0, 80)}" is not an interaction tool`);
      continue;
    }
    const element = ref ? view.byRef.get(ref) : undefined;
    if (ref && !element) {
      warnings.push(`candidate ${i + 1} dropped: ${ref.slice(0, 40)} is not on the page`);
      continue;
    }
    const given = o.args && typeof o.args === 'object' && !Array.isArray(o.args) ? (o.args as Record<string, unknown>) : {};
    const { tab: _tab, ref: _ref, ...rest } = given;
    candidates.push({
      description: typeof o.description === 'string' ? o.description.slice(0, 500) : '',
      ...(element ? { ref: element.ref, element: { role: element.role, name: element.name, nth: element.nth } } : {}),
      tool,
      args: rest,
    });
  }
  return { tab: view.tab, url: view.url, candidates, warnings, model: session.model.id, usage: session.usage() };
}
