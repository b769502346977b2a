/**
 * The only way into a tool, for MCP and REST alike: look up -> validate -> start -> handle -> render -> audit.
 * Page-level policy (read tabs, sensitive actions, host policy) is applied by the handlers through policy/gate.
 */
import { BrowserdError, toBrowserdError } from '../../protocol/errors.js';
import { CdpError } from '../cdp/connection.js';
import type { DaemonEnv } from '../env.js';
import type { UserRecord } from '../../storage/users.js';
import { ToolContext } from './context.js';
import { ResponseBuilder } from './response.js';
import { getTool, toolNames } from './registry.js';
import { validateArgs } from './validate.js';
import { redactArgs } from './redact.js';

export type CallOutcome = { ok: true; out: ResponseBuilder } | { ok: false; error: BrowserdError };

export interface CallOptions {
  signal?: AbortSignal;
  via: 'mcp' | 'rest' | 'cli' | 'internal';
}

export async function callTool(env: DaemonEnv, user: UserRecord, name: string, rawArgs: unknown, opts: CallOptions): Promise<CallOutcome> {
  const started = Date.now();
  const signal = opts.signal ?? new AbortController().signal;
  const ctx = new ToolContext(env, user, signal, opts.via);
  const out = new ResponseBuilder();
  let outcome: CallOutcome;
  let args: Record<string, unknown> | undefined;
  try {
    const tool = getTool(name);
    if (!tool) {
      throw new BrowserdError('validation_error', `unknown tool "${name}"`, { next: `Tools are: ${toolNames().join(', ')}.` });
    }
    args = validateArgs(name, tool.input, rawArgs);
    if (tool.needsBrowser !== false && env.pool.wouldExceed(user.id, profileOf(args))) throw env.pool.capacityError();
    await tool.handle(ctx, args as never, out);
    reportWrites(ctx, out);
    outcome = { ok: true, out };
  } catch (e) {
    outcome = { ok: false, error: fromCdp(e) ?? toBrowserdError(e) };
    if (outcome.error.code === 'internal_error') env.log.error({ user: user.id, tool: name, err: e instanceof Error ? e.stack : String(e) }, 'tool failed');
  } finally {
    ctx.release();
  }
  const tab = ctx.touched[0]?.id ?? (typeof args?.tab === 'string' ? args.tab : undefined);
  await env.audit
    .append({
      at: new Date().toISOString(),
      user: user.id,
      tool: name,
      tab,
      via: opts.via,
      args: redactArgs(name, args ?? rawArgs),
      outcome: outcome.ok ? (outcome.out.approval ? 'needs_approval' : 'ok') : outcome.error.code,
      ms: Date.now() - started,
    })
    .catch((e) => env.log.error({ err: String(e) }, 'audit write failed'));
  return outcome;
}

/** CDP failures in words a caller can act on: a slow page is a timeout, a vanished browser restarts. */
function fromCdp(e: unknown): BrowserdError | undefined {
  if (!(e instanceof CdpError)) return undefined;
  if (e.kind === 'timeout') return new BrowserdError('timeout', `the page did not answer in time (${e.method})`, { next: 'The page may be slow or stuck: try again, or browser_navigate elsewhere.' });
  if (e.kind === 'closed' || e.kind === 'crashed') return new BrowserdError('browser_crashed', "the user's browser or this tab went away during the call", { next: 'Call again: the browser restarts with your tabs.' });
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
    out.text(`Blocked in ${tab.id} (${tab.mode} tab): ${entries.map((e) => `${e.method} ${e.url}`).join('; ')}. Nothing was sent.`);
  }
}
