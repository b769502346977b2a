/**
 * One act step on a tab: the model reads the tab's snapshot (fenced) and the user's words, and answers with
 * exactly one interaction tool call, which then runs through callTool as the same user by the caller's door
 * (`via`), so read tabs, host policy, the sensitive-action gate and approvals hold as for any tool call; a
 * needsApproval result comes back as it is. A %vault:site.field% value is filled by browser_fill_secret.
 *
 * Steps that ran are remembered (storage/action-cache.ts) by action text, host and page structure: the same
 * action on the same kind of page is replayed with no model request, its element found again by role, name
 * and position (page-targets.ts). A remembered step whose element is gone is forgotten and the model asked.
 */
import { BrowserdError } from '../../protocol/errors.js';
import type { CachedAction, CachedStep } from '../../storage/action-cache.js';
import type { ToolContext } from '../call/context.js';
import type { CallOutcome } from '../call/call.js';
import { pageUrl, type ResponseBuilder } from '../call/response.js';
import { validateArgs } from '../call/validate.js';
import { ACT_IMPOSSIBLE, actTool, actToolSpecs, isActTool, type ActToolDefs } from './act-tools.js';
import { resolveModel } from '../models/catalog.js';
import { FENCE_RULE, fenceText } from '../models/chunks.js';
import { describeTarget, findTarget, type PageTarget } from './page-targets.js';
import { openModelSession, type ModelSession } from '../models/session.js';
import { viewTab, viewText, type TabView } from './tab-view.js';
import type { ChatMessage, SessionUsage } from '../models/types.js';
import { secretCall } from './vault-placeholder.js';

export const ACTION_MAX = 2000;
/** Snapshot characters a step's model reads: a large page's outline, well inside any model's context. */
export const SNAPSHOT_CHARS = 40_000;

export interface ActArgs {
  tab: string;
  action: string;
  model?: string;
  maxTokensTotal?: number;
  /** false: ask the model even when a remembered step exists (and remember its answer). Default true. */
  cache?: boolean;
}

/** A step ready to run: the tool, its arguments, and the element (with this page's ref) it aims at. */
interface Step extends CachedStep {
  ref?: string;
}

const SYSTEM = [
  "You carry out one step of a user's instruction on a web page by calling exactly one of the tools given.",
  'Aim at elements by their ref from the page snapshot ([ref=e12]); never invent a ref.',
  'A value written like %vault:site.field% is a secret the server fills in: pass it exactly as written as the whole value (browser_fill value or browser_type text) and never guess what it stands for.',
  `If the step cannot be done on this page, call ${ACT_IMPOSSIBLE} with the reason.`,
  FENCE_RULE,
].join(' ');

/** `defs`: the act tools' definitions (act-tools.ts), from the operation that runs this. */
export async function runAct(ctx: ToolContext, args: ActArgs, out: ResponseBuilder, defs: ActToolDefs): Promise<void> {
  // An unknown model id is refused before the page is looked at, cache hit or not.
  resolveModel(ctx.env.cfg.models, args.model);
  const view = await viewTab(ctx, args.tab);
  const cache = ctx.env.actionCache;
  const user = ctx.user.id;
  const warnings: string[] = [];
  let steps: Step[] | undefined;
  let session: ModelSession | undefined;
  let cached: CachedAction | undefined;
  if (args.cache !== false) {
    cached = cache.get(user, args.action, view.host, view.structure);
    steps = cached && replayable(cached.steps, view);
    if (cached && !steps) {
      await cache.delete(user, cached);
      cached = undefined;
    }
  }
  if (!steps) {
    session = openModelSession({ env: ctx.env, user, model: args.model, key: ctx.modelKey, maxTokensTotal: args.maxTokensTotal, signal: ctx.signal });
    const chosen = await chooseStep(session, args.action, view, defs);
    steps = [chosen.step];
    warnings.push(...chosen.warnings);
  }
  const results: Record<string, unknown>[] = [];
  let completed = true;
  for (const step of steps) {
    ctx.checkCancelled();
    const outcome = await runStep(ctx, view, step);
    if (!outcome.ok) throw outcome.error;
    results.push(outcome.out.renderJson());
    reportBlocked(outcome, view, out);
    if (outcome.out.approval) {
      out.needsApproval(outcome.out.approval);
      completed = false;
      break;
    }
  }
  if (cached) await cache.hit(user, cached).catch((e) => ctx.env.log.warn({ err: String(e) }, 'action cache hit not counted'));
  else if (session && completed && args.cache !== false) {
    await cache.put(user, { action: args.action, host: view.host, structure: view.structure, steps: steps.map(({ ref: _ref, ...s }) => s), model: session.model.id });
  }
  const usage: Omit<SessionUsage, 'budget'> = session ? session.usage() : { model: cached!.model, turns: 0, inputTokens: 0, outputTokens: 0 };
  out.set('tab', view.tab).set('cached', !!cached).set('model', usage.model).set('usage', { turns: usage.turns, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens });
  out.set('steps', steps.map((s) => ({ tool: s.tool, args: { ...s.args, ...(s.ref ? { ref: s.ref } : {}) }, ...(s.target ? { element: s.target } : {}) })));
  out.set('results', results).set('warnings', warnings);
  // An element's name is the page's words: our line names the step by tool and ref, the element follows fenced.
  const did = steps.map((s) => `${s.tool}${s.target ? ` on ${s.ref}` : ''}`).join(', then ');
  out.text(`${view.tab}: ${completed ? 'ran' : 'stopped at'} ${did}${cached ? ' — replayed from the action cache, no model request.' : ` — chosen by ${usage.model} (${usage.inputTokens} input, ${usage.outputTokens} output tokens).`}`);
  const aimed = steps.filter((s) => s.target);
  if (aimed.length) out.page(`elements the step${aimed.length === 1 ? '' : 's'} aimed at`, aimed.map((s) => `${s.ref}: ${describeTarget(s.target!)}`).join('\n'));
  // Our own words (a vault value filled without key events): trusted lines.
  for (const w of warnings) out.text(`Warning: ${w}`);
}

/** The remembered steps with this page's refs, or undefined when an element cannot be found again. */
function replayable(steps: CachedStep[], view: TabView): Step[] | undefined {
  const out: Step[] = [];
  for (const s of steps) {
    if (!s.target) {
      out.push({ ...s });
      continue;
    }
    const found = findTarget(view, s.target);
    if (!found) return undefined;
    out.push({ ...s, ref: found.ref });
  }
  return out;
}

function runStep(ctx: ToolContext, view: TabView, step: Step): Promise<CallOutcome> {
  const args = { ...step.args, ...(step.ref ? { ref: step.ref } : {}), tab: view.tab };
  return ctx.callTool(ctx.user, step.tool, args, { via: ctx.via, signal: ctx.signal, modelKey: ctx.modelKey });
}

/** Writes a read tab blocked (or an act tab sent) during the step, in our words, as callTool reported them. */
function reportBlocked(outcome: CallOutcome, view: TabView, out: ResponseBuilder) {
  if (!outcome.ok) return;
  const blocked = outcome.out.data.blocked as { method: string; url?: string; reason?: string }[] | undefined;
  if (!blocked?.length) return;
  out.set('blocked', blocked);
  out.text(`Blocked in ${view.tab}: ${blocked.map((b) => `${b.method} ${pageUrl(b.url ?? '')}`).join('; ')}. Nothing was sent.`);
  const whole = blocked.filter((b) => b.url && pageUrl(b.url) !== b.url).map((b) => `${b.method} ${b.url}`);
  if (whole.length) out.page(`addresses blocked in ${view.tab}`, whole.join('\n'));
}

/** Asks the model for the step; one repair turn when its call cannot run as given. */
async function chooseStep(session: ModelSession, action: string, view: TabView, defs: ActToolDefs): Promise<{ step: Step; warnings: string[] }> {
  const messages: ChatMessage[] = [{ role: 'user', content: `Action: ${action}\n\nThe page:\n${fenceText(`snapshot of ${view.tab}`, viewText(view), SNAPSHOT_CHARS)}` }];
  const tools = actToolSpecs(defs);
  for (let attempt = 0; attempt < 2; attempt++) {
    const res = await session.turn({ system: SYSTEM, messages, tools, toolChoice: 'required', maxOutputTokens: 1024 });
    const call = res.toolCalls[0];
    if (!call) {
      messages.push({ role: 'assistant', content: res.text }, { role: 'user', content: 'Answer by calling one of the tools.' });
      continue;
    }
    if (call.name === ACT_IMPOSSIBLE) {
      // The model's reason is its words about the page: the error's page text.
      const reason = typeof call.args.reason === 'string' ? call.args.reason.slice(0, 300) : 'no reason given';
      throw new BrowserdError('action_failed', `the model ${session.model.id} found the step cannot be done on this page (its reason is the page text of this error)`, {
        next: 'Check the page (browser_snapshot), then say the action in other words or act on another page.',
        pageText: reason,
      });
    }
    const step = toStep(call.name, call.args, view, defs);
    if (typeof step !== 'string') return step;
    messages.push(
      { role: 'assistant', toolCalls: [call] },
      ...res.toolCalls.slice(1).map((c) => ({ role: 'tool' as const, callId: c.id, name: c.name, content: 'Not run: one call per step.' })),
      { role: 'tool', callId: call.id, name: call.name, content: `Error: ${step}. Nothing was run. Call one tool again.` },
    );
  }
  throw new BrowserdError('action_failed', `the model ${session.model.id} did not choose a tool call that can run on this page, even after one repair turn`, { next: 'Say the action more precisely, check the page (browser_snapshot), or choose another model (GET /v1/models).' });
}

/** The model's call as a step to run, or what is wrong with it (for the repair turn). */
function toStep(name: string, rawArgs: Record<string, unknown>, view: TabView, defs: ActToolDefs): { step: Step; warnings: string[] } | string {
  if (!isActTool(name)) return `there is no tool "${name.slice(0, 80)}" here; use one of the tools given`;
  const { tab: _tab, ...given } = rawArgs ?? {};
  const secret = secretCall(name, given);
  if (typeof secret === 'string') return secret;
  const tool = secret?.tool ?? name;
  const args = secret?.args ?? given;
  const def = actTool(defs, tool);
  let valid: Record<string, unknown>;
  try {
    valid = validateArgs(tool, def.input, { ...args, tab: view.tab });
    def.check?.(valid as never);
  } catch (e) {
    return e instanceof BrowserdError ? e.message : String(e);
  }
  const { tab: _t, ref, ...rest } = valid;
  let target: PageTarget | undefined;
  if (typeof ref === 'string') {
    target = view.byRef.get(ref);
    if (!target) return `there is no element ${ref} in the snapshot; use a ref the snapshot shows`;
  }
  const warnings = secret?.dropped.length ? [`a vault value is filled without key events, so ${secret.dropped.join(', ')} of browser_type did not happen; act again to send the form`] : [];
  return { step: { tool, args: rest, ...(target ? { ref: target.ref, target: { role: target.role, name: target.name, nth: target.nth } } : {}) }, warnings };
}
