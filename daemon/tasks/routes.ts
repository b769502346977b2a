/**
 * Research and tasks over REST: each route runs its operation (operations.ts) through the one
 * dispatch with the caller's X-Model-Key, so validation, audit, scrubbing and the error table are a tool's.
 * Ids in paths are decoded by the route's schema and checked by the operation's; another user's id is simply
 * not found.
 */
import type { UserRecord } from '../../storage/users.js';
import { runOperation, toolBody, type Handler } from '../server/rest-call.js';
import type { ServerDeps } from '../server/deps.js';
import type { RouteSpec } from '../server/routes.js';
import { TASK_STATES } from '../../protocol/tasks.js';
import { Type } from '@sinclair/typebox';
import { group, hinted, segment } from '../server/route-schemas.js';

// ---- tasks: research and tasks: ids are checked by the operation's own schema (audited there), only decoded here
const opId = (what: string) => segment(`${what}; another user's id is not_found.`, 'Use the id as answered, unchanged.');
export const ResearchPath = group({ id: opId('res_ and 16 hex digits') });
export const TaskPath = group({ id: opId('task_ and 16 hex digits') });
export const TaskListQuery = group({ state: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: [...TASK_STATES] })) });
export const TaskGetQuery = group({ waitS: Type.Optional(hinted(Type.Integer({ minimum: 0, maximum: 60 }), { next: 'Pass ?waitS=30, or leave it out.' })) });


export const TASK_ROUTES: readonly RouteSpec[] = [
  { method: 'POST', path: '/v1/research', auth: 'user', summary: 'Research a question: web search, the best results read, an answer whose citations (URL and quote) are checked against the pages; stored (X-Model-Key: the provider key)', body: { operation: 'research' } },
  { method: 'GET', path: '/v1/research/{id}', auth: 'user', summary: 'A stored research answer', params: ResearchPath },
  { method: 'POST', path: '/v1/tasks', auth: 'user', summary: 'Start a server-run task: a model reaches a goal with the browser tools (audited, under the user\'s rules); at most two run per user, others queue; answers its id', body: { operation: 'task_start' } },
  { method: 'GET', path: '/v1/tasks', auth: 'user', summary: "The caller's tasks, newest first (?state= filters)", query: TaskListQuery },
  { method: 'GET', path: '/v1/tasks/{id}', auth: 'user', summary: 'One task: state, steps, tool calls, usage, result or error, and the hand-off link while paused (?waitS= waits while it is queued or running)', params: TaskPath, query: TaskGetQuery },
  { method: 'POST', path: '/v1/tasks/{id}/cancel', auth: 'user', summary: 'Cancel a queued, running or paused task', params: TaskPath },
  { method: 'DELETE', path: '/v1/tasks/{id}', auth: 'user', summary: "Delete a task with its conversation, steps and tool calls (a queued, running or paused one is cancelled first); frees its bytes in the storage quota", params: TaskPath },
];


export function taskHandlers(server: ServerDeps): Record<string, Handler> {
  const me = (u: UserRecord | undefined) => u!;
  return {
    'POST /v1/research': async (r, u) => runOperation(server, r, me(u), 'research', await toolBody(server, r, me(u), 'research'), 201),
    'GET /v1/research/{id}': (r, u, _raw, { params }) => runOperation(server, r, me(u), 'research_get', { id: params.id }),
    'POST /v1/tasks': async (r, u) => runOperation(server, r, me(u), 'task_start', await toolBody(server, r, me(u), 'task_start'), 201),
    'GET /v1/tasks': (r, u, _raw, { query }) => runOperation(server, r, me(u), 'task_list', query),
    'GET /v1/tasks/{id}': (r, u, _raw, { params, query }) => runOperation(server, r, me(u), 'task_get', { id: params.id, ...query }),
    'POST /v1/tasks/{id}/cancel': (r, u, _raw, { params }) => runOperation(server, r, me(u), 'task_cancel', { id: params.id }),
    'DELETE /v1/tasks/{id}': (r, u, _raw, { params }) => runOperation(server, r, me(u), 'task_delete', { id: params.id }),
  };
}
