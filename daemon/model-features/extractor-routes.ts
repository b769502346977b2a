/**
 * Learned extractors over REST: each route is one operation (extractor-tools.ts) through the one
 * dispatch, so validation, audit, scrubbing and errors are the tools' own. The id in the path is passed as an
 * argument (winning over one in the body) and checked by the operation's schema.
 */
import { runOperation, toolBody, type Handler } from '../server/rest-call.js';
import type { ServerDeps } from '../server/deps.js';
import type { RouteSpec } from '../server/routes.js';
import { group, segment } from '../server/route-schemas.js';

// ---- extractors and model steps on a tab
export const ExtractorPath = group({ id: segment("ext_ and 16 hex digits; another user's id is not_found.", 'Use the id POST /v1/extractors answered: ext_ and 16 hex digits.') });


export const EXTRACTOR_ROUTES: readonly RouteSpec[] = [
  { method: 'POST', path: '/v1/extractors', auth: 'user', summary: 'Learn an extractor on a page (url or tab): per-field CSS selectors a model proposes, proven on the page against the schema before it is stored; answers its id (ext_…)', body: { operation: 'extractor_learn' } },
  { method: 'GET', path: '/v1/extractors', auth: 'user', summary: "The caller's learned extractors, most recently updated first" },
  { method: 'GET', path: '/v1/extractors/{id}', auth: 'user', summary: 'One learned extractor: schema, prompt, model, version, fields', params: ExtractorPath },
  { method: 'DELETE', path: '/v1/extractors/{id}', auth: 'user', summary: 'Delete a learned extractor', params: ExtractorPath },
  { method: 'POST', path: '/v1/extractors/{id}/run', auth: 'user', summary: 'Run an extractor on a tab, url or urls with no model; re-learns once (next version) when required fields stop matching', params: ExtractorPath, body: { operation: 'extractor_run' } },
];


const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

export function extractorHandlers(server: ServerDeps): Record<string, Handler> {
  return {
    'POST /v1/extractors': async (r, u) => runOperation(server, r, u!, 'extractor_learn', await toolBody(server, r, u!, 'extractor_learn'), 201),
    'GET /v1/extractors': async (r, u) => runOperation(server, r, u!, 'extractor_list', {}),
    'GET /v1/extractors/{id}': async (r, u, _raw, { params }) => runOperation(server, r, u!, 'extractor_get', { id: params.id }),
    'DELETE /v1/extractors/{id}': async (r, u, _raw, { params }) => runOperation(server, r, u!, 'extractor_delete', { id: params.id }),
    'POST /v1/extractors/{id}/run': async (r, u, _raw, { params }) => {
      const b = await toolBody(server, r, u!, 'extractor_run');
      // A body that is not an object goes to the dispatch as it is, to be refused (and audited) there.
      return runOperation(server, r, u!, 'extractor_run', isObject(b) ? { ...b, id: params.id } : b);
    },
  };
}
