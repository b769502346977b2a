/**
 * Research and tasks over REST: each route runs its operation (daemon/tools/tasks.ts) through the one
 * dispatch with the caller's X-Model-Key, so validation, audit, scrubbing and the error table are a tool's.
 * Ids in paths are checked by the operation's schema; another user's id is simply not found.
 */
import type { DaemonEnv } from '../env.js';
import type { UserRecord } from '../../storage/users.js';
import { BrowserdError } from '../../protocol/errors.js';
import { runOperation, toolBody, type Handler } from './rest-call.js';

function segment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new BrowserdError('validation_error', `"${raw.slice(0, 80)}" is not a valid URL path segment`, { next: 'Use the id as answered, unchanged.' });
  }
}

/** A whole number from the query string, or undefined when absent (the operation's schema checks the range). */
function intQuery(v: string | null, name: string): number | undefined {
  if (v === null) return undefined;
  if (!/^\d{1,6}$/.test(v)) throw new BrowserdError('validation_error', `${name} must be a whole number`, { next: `Pass ?${name}=30, or leave it out.` });
  return Number(v);
}

export function taskHandlers(env: DaemonEnv): Record<string, Handler> {
  const me = (u: UserRecord | undefined) => u!;
  return {
    'POST /v1/research': async (r, u) => runOperation(env, r, me(u), 'research', await toolBody(env, r, me(u), 'research'), 201),
    'GET /v1/research/{id}': (r, u, [id]) => runOperation(env, r, me(u), 'research_get', { id: segment(id!) }),
    'POST /v1/tasks': async (r, u) => runOperation(env, r, me(u), 'task_start', await toolBody(env, r, me(u), 'task_start'), 201),
    'GET /v1/tasks': (r, u) => {
      const state = r.query.get('state');
      return runOperation(env, r, me(u), 'task_list', state === null ? {} : { state });
    },
    'GET /v1/tasks/{id}': (r, u, [id]) => {
      const waitS = intQuery(r.query.get('waitS'), 'waitS');
      return runOperation(env, r, me(u), 'task_get', { id: segment(id!), ...(waitS !== undefined ? { waitS } : {}) });
    },
    'POST /v1/tasks/{id}/cancel': (r, u, [id]) => runOperation(env, r, me(u), 'task_cancel', { id: segment(id!) }),
    'DELETE /v1/tasks/{id}': (r, u, [id]) => runOperation(env, r, me(u), 'task_delete', { id: segment(id!) }),
  };
}
