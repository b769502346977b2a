/**
 * Model steps on a tab over REST: observe, act and validate, each one operation (daemon/tools/act.ts) through
 * the one dispatch. The tab id in the path is passed as the `tab` argument, winning over one in the body.
 */
import { runOperation, toolBody, type Handler } from './rest-call.js';
import type { ServerDeps } from './deps.js';

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function tabRoute(server: ServerDeps, op: string): Handler  {
  const { env } = server;
  return async (r, u, _raw, { params }) => {
    const b = await toolBody(env, r, u!, op);
    // A body that is not an object goes to the dispatch as it is, to be refused (and audited) there.
    return runOperation(server, r, u!, op, isObject(b) ? { ...b, tab: params.id } : b);
  };
}

export function actHandlers(server: ServerDeps): Record<string, Handler> {
  return {
    'POST /v1/tabs/{id}/observe': tabRoute(server, 'tab_observe'),
    'POST /v1/tabs/{id}/act': tabRoute(server, 'tab_act'),
    'POST /v1/tabs/{id}/validate': tabRoute(server, 'tab_validate'),
  };
}
