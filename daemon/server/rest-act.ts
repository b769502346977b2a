/**
 * Model steps on a tab over REST: observe, act and validate, each one operation (daemon/tools/act.ts) through
 * the one dispatch. The tab id in the path is passed as the `tab` argument, winning over one in the body.
 */
import type { DaemonEnv } from '../env.js';
import { BrowserdError } from '../../protocol/errors.js';
import { runOperation, toolBody, type Handler } from './rest-call.js';

function segment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new BrowserdError('validation_error', `"${raw.slice(0, 80)}" is not a valid URL path segment`, { next: 'Use a tab id such as t2 (browser_tabs lists them).' });
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function tabRoute(env: DaemonEnv, op: string): Handler {
  return async (r, u, [id]) => {
    const b = await toolBody(env, r, u!, op);
    // A body that is not an object goes to the dispatch as it is, to be refused (and audited) there.
    return runOperation(env, r, u!, op, isObject(b) ? { ...b, tab: segment(id) } : b);
  };
}

export function actHandlers(env: DaemonEnv): Record<string, Handler> {
  return {
    'POST /v1/tabs/{id}/observe': tabRoute(env, 'tab_observe'),
    'POST /v1/tabs/{id}/act': tabRoute(env, 'tab_act'),
    'POST /v1/tabs/{id}/validate': tabRoute(env, 'tab_validate'),
  };
}
