/**
 * A tool call as seen from outside the call pipeline: its options, its outcome, the function that makes one,
 * and the hooks features register into it. Features that run tools (act, replay, tasks, live view) are handed
 * a CallTool (wired once in main.ts) and features that act around every call (recording, the vault's
 * scrubbing) register DispatchHooks (hooks.ts), so the pipeline (dispatch.ts) imports no feature and no
 * feature imports the pipeline's entry.
 */
import type { BrowserdError } from '../../protocol/errors.js';
import type { UserRecord } from '../../storage/users.js';
import type { ResponseBuilder } from './response.js';
import type { ProgressSink } from './progress.js';

/** Which door a call came in by; `task` is a server-run task's model choosing a tool. */
export type CallVia = 'mcp' | 'rest' | 'cli' | 'internal' | 'task';

export type CallOutcome = { ok: true; out: ResponseBuilder } | { ok: false; error: BrowserdError };

export interface CallOptions {
  signal?: AbortSignal;
  via: CallVia;
  /** Set by the REST route of a REST-only operation: only then may one be called. */
  operation?: boolean;
  /** The caller's X-Model-Key header, if any (see ToolContext.modelKey). */
  modelKey?: string;
  /** The HTTP request the call came in (its X-Request-Id), for the log line; none for background work. */
  requestId?: string;
  /** Where reports of a long call's progress go (an MCP caller's progressToken); none: not reported. */
  onProgress?: ProgressSink;
  /** The only tools this caller knows (an MCP connection's toolsets, server/toolsets.ts); any other is unknown to it. */
  tools?: ReadonlySet<string>;
}

/** One call through the whole pipeline (dispatch.ts callTool) as a user of this daemon. */
export type CallTool = (user: UserRecord, name: string, rawArgs: unknown, opts: CallOptions) => Promise<CallOutcome>;

/** A call under way that a hook follows: `finish` gets the outcome while the call still holds the tab. */
export interface CallStep {
  finish(outcome: CallOutcome): Promise<void>;
}
