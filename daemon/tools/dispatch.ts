/**
 * The only way into a tool, for MCP and REST alike, as one sequence:
 *   look up -> validate (schema, then the tool's own check) -> capacity -> lock the tab -> policy gate ->
 *   handle (and the page's snapshot after it, when asked: snapshot-after.ts) -> respond -> audit.
 * The gate is a step here, driven by what each tool declares it touches (define.ts): no handler calls it, so
 * no handler can forget it. Every outcome, refusals included, is audited before the caller gets its answer.
 */
import { BrowserdError, toBrowserdError } from '../../protocol/errors.js';
import { movingRefusal, type UserRecord } from '../../storage/users.js';
import type { ToolDef } from '../call/define.js';
import { ToolContext, type CallScope } from '../call/context.js';
import { pageUrl, ResponseBuilder } from '../call/response.js';
import type { ToolRegistry } from '../call/registry.js';
import { MAX_ARGS_DEPTH, argsDepthExceeds, validateArgs } from '../call/validate.js';
import { gateTouches } from '../call/gate-step.js';
import { answerWithSnapshot } from './snapshot-after.js';
import { checkOutputs, outputProblems } from '../call/output.js';
import { Progress } from '../call/progress.js';
import { redactArgs, scrubText } from '../call/redact.js';
import type { CallOptions, CallOutcome, CallStep } from '../call/call.js';
import type { DispatchHooks } from '../call/hooks.js';

export type { CallOptions, CallOutcome } from '../call/call.js';

/** The pipeline as main.ts wires it: what every call shares, and the hooks features hang on it. */
export interface Pipeline extends CallScope {
  hooks: DispatchHooks;
  /** Every tool and operation of this daemon, filled from its features. */
  registry: ToolRegistry;
}

export async function callTool(pipeline: Pipeline, user: UserRecord, name: string, rawArgs: unknown, opts: CallOptions): Promise<CallOutcome> {
  const started = Date.now();
  const { env, hooks } = pipeline;
  const signal = opts.signal ?? new AbortController().signal;
  const ctx = new ToolContext(pipeline, user, signal, opts.via, opts.modelKey || undefined, new Progress(opts.onProgress));
  const out = new ResponseBuilder();
  let outcome: CallOutcome;
  let args: Record<string, unknown> | undefined;
  let step: CallStep | undefined;
  // Arguments too deep to walk are never walked again, not even to redact them for the audit log.
  const tooDeep = argsDepthExceeds(rawArgs, MAX_ARGS_DEPTH);
  try {
    const tool = lookUp(pipeline.registry, name, opts.operation === true, opts.tools);
    // Read now, not from the record the call began with: a task, monitor, crawl or replay started before the
    // admin disabled the account must not start its browser again.
    const account = env.users.get(user.id);
    if (account?.disabled) throw new BrowserdError('unauthorized', `the account ${user.id} is disabled`, { next: 'Ask the admin of this host to enable the account; nothing was done.' });
    // Held for a move to another host (fleet/host-routes.ts): nothing of theirs may start here again.
    if (account?.moving) throw movingRefusal(user.id);
    if (tooDeep) throw new BrowserdError('validation_error', `${name} arguments are nested more than ${MAX_ARGS_DEPTH} levels deep`, { next: "Pass the arguments the tool's input schema describes (tools/list)." });
    args = validateArgs(name, tool.input, rawArgs);
    tool.check?.(args);
    if (tool.needsBrowser !== false && env.pool.wouldExceed(user.id, profileOf(args))) throw env.pool.capacityError(user.id);
    if (await gate(ctx, tool, args, out)) {
      ctx.checkCancelled();
      step = await hooks.stepStarting(ctx, name, args);
      await tool.handle(ctx, args as never, out);
      await answerWithSnapshot(ctx, tool.input, args, out);
    }
    reportWrites(ctx, out);
    if (checkOutputs()) {
      const problem = outputProblems(tool, out.data);
      if (problem) throw new Error(problem);
    }
    outcome = { ok: true, out };
  } catch (e) {
    outcome = { ok: false, error: fromCdp(e) ?? toBrowserdError(e) };
    if (outcome.error.code === 'internal_error') env.log.error({ user: user.id, tool: name, err: scrubText(e instanceof Error ? e.stack ?? e.message : String(e), opts.modelKey ? [opts.modelKey] : []) }, 'tool failed');
  } finally {
    // A call on a recorded tab becomes a step while the call still holds the tab (hook: daemon/records/recorder.ts).
    if (step) await step.finish(outcome!);
    ctx.release();
  }
  // Read after the handler ran: a code it just filled, or a value saved meanwhile, is hidden from this result too.
  // The caller's model key is one more: nothing it reaches should ever echo it, but if something did, it goes.
  const secrets = [...hooks.secretsOf(user.id), ...(opts.modelKey ? [opts.modelKey] : [])];
  for (const s of secrets) out.addSecret(s);
  if (!outcome.ok) outcome = { ok: false, error: out.scrubError(outcome.error) };
  const tab = ctx.touched[0]?.id ?? (typeof args?.tab === 'string' ? args.tab : undefined);
  const outcomeCode = outcome.ok ? (outcome.out.approval ? 'needs_approval' : 'ok') : outcome.error.code;
  // The operator's line: which call, whose, how it ended and how long it took; arguments stay in the audit log.
  env.log.info({ reqId: opts.requestId, user: user.id, tool: typeof name === 'string' ? name.slice(0, 80) : '?', via: opts.via, tab, outcome: outcomeCode, ms: Date.now() - started }, 'tool call');
  await env.audit.appendOrLog({
    at: new Date().toISOString(),
    user: user.id,
    tool: name,
    tab,
    via: opts.via,
    args: tooDeep ? { omitted: `nested more than ${MAX_ARGS_DEPTH} levels deep` } : redactArgs(name, args ?? rawArgs, secrets),
    outcome: outcomeCode,
    ms: Date.now() - started,
  }, env.log);
  return outcome;
}

function lookUp(registry: ToolRegistry, name: string, operation: boolean, only?: ReadonlySet<string>): ToolDef<any> {
  // A tool outside the caller's toolsets is unknown to it, in the same words as one that does not exist.
  const known = typeof name === 'string' && (!only || only.has(name));
  const tool = known ? registry.get(name, { operations: operation }) : undefined;
  // details.unknownTool lets the MCP gateway answer a JSON-RPC error (-32602) as the protocol asks, not a result.
  if (!tool) throw new BrowserdError('validation_error', `unknown tool "${String(name).slice(0, 80)}"`, { next: `Tools are: ${registry.names().filter((n) => !only || only.has(n)).join(', ')}.`, details: { unknownTool: true } });
  return tool;
}

/**
 * Locks the tab the tool acts on and puts what it is about to do through the policy gate. False when the
 * action needs the user's approval first: the response says so and the handler does not run.
 */
async function gate(ctx: ToolContext, tool: ToolDef<any>, args: Record<string, unknown>, out: ResponseBuilder): Promise<boolean> {
  if (!tool.touches?.length) return true;
  const tab = await ctx.tab(typeof args.tab === 'string' ? args.tab : undefined);
  const approval = await gateTouches(ctx, tab, tool.touches, args);
  if (!approval) return true;
  out.needsApproval(approval);
  return false;
}

/**
 * CDP failures in words a caller can act on: a slow page is a timeout, a vanished or crashed browser restarts.
 * Recognised by name and kind rather than by class, so tools stay clear of the CDP layer.
 */
function fromCdp(e: unknown): BrowserdError | undefined {
  if (!(e instanceof Error) || e.name !== 'CdpError') return undefined;
  const { kind, method } = e as Error & { kind?: string; method?: string };
  if (kind === 'timeout') return new BrowserdError('timeout', `the page did not answer in time (${method})`, { next: 'The page may be slow or stuck: try again, or browser_navigate elsewhere.' });
  if (kind === 'closed' || kind === 'crashed') return new BrowserdError('browser_crashed', "the user's browser or this tab went away during the call", { next: 'Call again: the browser restarts with your tabs.' });
  return undefined;
}

function profileOf(args: Record<string, unknown>): string | undefined {
  if (typeof args.profile === 'string') return args.profile;
  if (typeof args.tab === 'string' && args.tab.includes('/')) return args.tab.split('/')[0];
  return undefined;
}

/** Writes blocked in a read tab (and sent from an act tab) during this call are part of its result. */
function reportWrites(ctx: ToolContext, out: ResponseBuilder) {
  for (const tab of ctx.touched) {
    const since = ctx.logMarks.get(tab) ?? tab.writeLog.count;
    const entries = tab.writeLog.since(since).filter((e) => e.kind === 'write_blocked' || e.kind === 'navigation_blocked');
    if (!entries.length) continue;
    out.set('blocked', entries.map((e) => ({ method: e.method, url: e.url, reason: e.detail })));
    out.text(`Blocked in ${tab.id} (${tab.mode} tab): ${entries.map((e) => `${e.method} ${pageUrl(e.url ?? '')}`).join('; ')}. Nothing was sent.`);
    const whole = entries.filter((e) => e.url && pageUrl(e.url) !== e.url).map((e) => `${e.method} ${e.url}`);
    if (whole.length) out.page(`addresses blocked in ${tab.id}`, whole.join('\n'));
  }
}
