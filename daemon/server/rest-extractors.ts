/**
 * Learned extractors over REST: each route is one operation (daemon/tools/extractors.ts) through the one
 * dispatch, so validation, audit, scrubbing and errors are the tools' own. The id in the path is passed as an
 * argument (winning over one in the body) and checked by the operation's schema.
 */
import { runOperation, toolBody, type Handler } from './rest-call.js';
import type { ServerDeps } from './deps.js';

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

export function extractorHandlers(server: ServerDeps): Record<string, Handler> {
  const { env } = server;
  return {
    'POST /v1/extractors': async (r, u) => runOperation(server, r, u!, 'extractor_learn', await toolBody(env, r, u!, 'extractor_learn'), 201),
    'GET /v1/extractors': async (r, u) => runOperation(server, r, u!, 'extractor_list', {}),
    'GET /v1/extractors/{id}': async (r, u, _raw, { params }) => runOperation(server, r, u!, 'extractor_get', { id: params.id }),
    'DELETE /v1/extractors/{id}': async (r, u, _raw, { params }) => runOperation(server, r, u!, 'extractor_delete', { id: params.id }),
    'POST /v1/extractors/{id}/run': async (r, u, _raw, { params }) => {
      const b = await toolBody(env, r, u!, 'extractor_run');
      // A body that is not an object goes to the dispatch as it is, to be refused (and audited) there.
      return runOperation(server, r, u!, 'extractor_run', isObject(b) ? { ...b, id: params.id } : b);
    },
  };
}
