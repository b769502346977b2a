/**
 * Research and tasks over REST: each route runs its operation (daemon/tools/tasks.ts) through the one
 * dispatch with the caller's X-Model-Key, so validation, audit, scrubbing and the error table are a tool's.
 * Ids in paths are decoded by the route's schema and checked by the operation's; another user's id is simply
 * not found.
 */
import type { UserRecord } from '../../storage/users.js';
import { runOperation, toolBody, type Handler } from './rest-call.js';
import type { ServerDeps } from './deps.js';

export function taskHandlers(server: ServerDeps): Record<string, Handler> {
  const { env } = server;
  const me = (u: UserRecord | undefined) => u!;
  return {
    'POST /v1/research': async (r, u) => runOperation(server, r, me(u), 'research', await toolBody(env, r, me(u), 'research'), 201),
    'GET /v1/research/{id}': (r, u, _raw, { params }) => runOperation(server, r, me(u), 'research_get', { id: params.id }),
    'POST /v1/tasks': async (r, u) => runOperation(server, r, me(u), 'task_start', await toolBody(env, r, me(u), 'task_start'), 201),
    'GET /v1/tasks': (r, u, _raw, { query }) => runOperation(server, r, me(u), 'task_list', query),
    'GET /v1/tasks/{id}': (r, u, _raw, { params, query }) => runOperation(server, r, me(u), 'task_get', { id: params.id, ...query }),
    'POST /v1/tasks/{id}/cancel': (r, u, _raw, { params }) => runOperation(server, r, me(u), 'task_cancel', { id: params.id }),
    'DELETE /v1/tasks/{id}': (r, u, _raw, { params }) => runOperation(server, r, me(u), 'task_delete', { id: params.id }),
  };
}
