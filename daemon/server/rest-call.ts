/**
 * How a REST handler runs a tool or an operation: through the one dispatch, with the caller's model key, its
 * answer as JSON and its error from the one table. Every rest-*.ts file takes these from here.
 */
import type { Platform } from '../platform.js';
import type { UserRecord } from '../../storage/users.js';
import { toBrowserdError } from '../../protocol/errors.js';
import type { RouteInput } from './route-input.js';
import { readJson, sendError, sendJson, TooDeepError, type Req } from '../http/exchange.js';
import type { ServerDeps } from './deps.js';

/**
 * `user` is the caller for user routes; admin and open routes get none. `params` are the raw path segments;
 * `input` the path and query checked against the route's schemas (route-input.ts), for routes that have them.
 */
export type Handler = (r: Req, user: UserRecord | undefined, params: string[], input: RouteInput) => Promise<void>;

export async function runTool(server: ServerDeps, r: Req, user: UserRecord, name: string, args: unknown, okStatus = 200)  {
  const result = await server.callTool(user, name, args, { signal: r.signal, via: 'rest', modelKey: r.headers['x-model-key'], requestId: r.id });
  if (!result.ok) return sendError(r, result.error);
  sendJson(r, okStatus, { ...result.out.renderJson(), tool: name });
}

/** A REST-only operation through the one dispatch; its answer is the result's fields. */
export async function runOperation(server: ServerDeps, r: Req, user: UserRecord, name: string, args: unknown, okStatus = 200)  {
  const result = await server.callTool(user, name, args, { signal: r.signal, via: 'rest', operation: true, modelKey: r.headers['x-model-key'], requestId: r.id });
  if (!result.ok) return sendError(r, result.error);
  sendJson(r, okStatus, { ...result.out.renderJson(), operation: name });
}

/**
 * The largest body of a tool call over REST unless the tool says otherwise (ToolDef.maxBodyBytes): far above
 * any argument a tool takes short of an inline file, so a body past it is 413, not a validation error later.
 */
export const TOOL_BODY_MAX = 4 * 1024 * 1024;

/**
 * Reads a tool call's JSON body, at most the tool's limit; a body too deep to walk never reaches the dispatch,
 * but the refusal is audited.
 */
export async function toolBody(server: ServerDeps, r: Req, user: UserRecord, tool: string): Promise<unknown> {
  const { env } = server;
  try {
    return await readJson(r, server.tools.get(tool, { operations: true })?.maxBodyBytes ?? TOOL_BODY_MAX);
  } catch (e) {
    if (e instanceof TooDeepError) {
      await env.audit.appendOrLog({ at: new Date().toISOString(), user: user.id, tool, via: 'rest', args: '[body nested too deep]', outcome: e.code, ms: 0 }, env.log);
    }
    throw e;
  }
}

/** Who an admin's changes (admin key, admin console) are audited as: no user name can be spelt so. */
export const ADMIN_ACTOR = { id: '(admin)' } as const;

/**
 * A REST change that is no tool call (vault entries, webhook receivers), audited refused or done, with what
 * `args` names (never a value or a secret), once it has settled.
 */
export async function auditedChange<T>(env: Platform, user: Pick<UserRecord, 'id'>, tool: string, args: Record<string, unknown>, change: () => Promise<T>): Promise<T> {
  const started = Date.now();
  let outcome = 'ok';
  try {
    return await change();
  } catch (e) {
    outcome = toBrowserdError(e).code;
    throw e;
  } finally {
    await env.audit.appendOrLog({ at: new Date().toISOString(), user: user.id, tool, via: 'rest', args, outcome, ms: Date.now() - started }, env.log);
  }
}
