/**
 * Learned extractors over REST: each route is one operation (daemon/tools/extractors.ts) through the one
 * dispatch, so validation, audit, scrubbing and errors are the tools' own. The id in the path is passed as an
 * argument (winning over one in the body) and checked by the operation's schema.
 */
import type { DaemonEnv } from '../env.js';
import { BrowserdError } from '../../protocol/errors.js';
import { runOperation, toolBody, type Handler } from './rest-call.js';

function segment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new BrowserdError('validation_error', `"${raw.slice(0, 80)}" is not a valid URL path segment`, { next: 'Use the id POST /v1/extractors answered: ext_ and 16 hex digits.' });
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

export function extractorHandlers(env: DaemonEnv): Record<string, Handler> {
  return {
    'POST /v1/extractors': async (r, u) => runOperation(env, r, u!, 'extractor_learn', await toolBody(env, r, u!, 'extractor_learn'), 201),
    'GET /v1/extractors': async (r, u) => runOperation(env, r, u!, 'extractor_list', {}),
    'GET /v1/extractors/{id}': async (r, u, [id]) => runOperation(env, r, u!, 'extractor_get', { id: segment(id) }),
    'DELETE /v1/extractors/{id}': async (r, u, [id]) => runOperation(env, r, u!, 'extractor_delete', { id: segment(id) }),
    'POST /v1/extractors/{id}/run': async (r, u, [id]) => {
      const b = await toolBody(env, r, u!, 'extractor_run');
      // A body that is not an object goes to the dispatch as it is, to be refused (and audited) there.
      return runOperation(env, r, u!, 'extractor_run', isObject(b) ? { ...b, id: segment(id) } : b);
    },
  };
}
