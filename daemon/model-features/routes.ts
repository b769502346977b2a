/**
 * Model extraction and questions over REST: POST /v1/extract is the tool browser_extract_ai, POST /v1/ask the
 * REST-only operation `ask`, both through the one dispatch (validation, audit, scrubbing, the error table), with
 * the caller's X-Model-Key carried by runTool / runOperation and nowhere else.
 */
import { runOperation, runTool, toolBody, type Handler } from '../server/rest-call.js';
import type { ServerDeps } from '../server/deps.js';
import type { RouteSpec } from '../server/routes.js';


export const MODEL_ROUTES: readonly RouteSpec[] = [
  { method: 'POST', path: '/v1/extract', auth: 'user', summary: 'Fill a JSON Schema from a tab, url or urls with a model (as browser_extract_ai): data checked against the schema, citations checked against the page, usage and model', body: { tool: 'browser_extract_ai' } },
  { method: 'POST', path: '/v1/ask', auth: 'user', summary: 'Ask a question about a tab, url or urls with a model: an answer with citations checked against the page', body: { operation: 'ask' } },
];


export function modelHandlers(server: ServerDeps): Record<string, Handler> {
  return {
    'POST /v1/extract': async (r, u) => runTool(server, r, u!, 'browser_extract_ai', await toolBody(server, r, u!, 'browser_extract_ai')),
    'POST /v1/ask': async (r, u) => runOperation(server, r, u!, 'ask', await toolBody(server, r, u!, 'ask')),
  };
}
