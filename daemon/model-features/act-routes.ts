/**
 * Model steps on a tab over REST: observe, act and validate, each one operation (act-operations.ts) through
 * the one dispatch. The tab id in the path is passed as the `tab` argument, winning over one in the body.
 */
import { runOperation, toolBody, type Handler } from '../server/rest-call.js';
import type { ServerDeps } from '../server/deps.js';
import type { RouteSpec } from '../server/routes.js';
import { group, segment } from '../server/route-schemas.js';


export const ActTabPath = group({ id: segment("The tab id (t2, or <profile>%2Ft2); another user's tab is not_found.", 'Use a tab id such as t2 (browser_tabs lists them).') });

export const ACT_ROUTES: readonly RouteSpec[] = [
  { method: 'POST', path: '/v1/tabs/{id}/observe', auth: 'user', summary: 'Candidate actions on the tab toward an instruction (tool, ref, element), proposed by a model from the snapshot; nothing is done (X-Model-Key: the provider key)', params: ActTabPath, body: { operation: 'tab_observe' } },
  { method: 'POST', path: '/v1/tabs/{id}/act', auth: 'user', summary: 'One step on the tab in plain words: a model picks one interaction tool call, run as the caller would run it (read tabs, policy, approvals hold); %vault:site.field% filled by browser_fill_secret; a repeat on the same page structure is replayed from the action cache with no model request', params: ActTabPath, body: { operation: 'tab_act' } },
  { method: 'POST', path: '/v1/tabs/{id}/validate', auth: 'user', summary: 'Whether the tab shows an assertion holds: pass only with a quote checked against the page text', params: ActTabPath, body: { operation: 'tab_validate' } },
];


const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function tabRoute(server: ServerDeps, op: string): Handler  {
  return async (r, u, _raw, { params }) => {
    const b = await toolBody(server, r, u!, op);
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
