/**
 * Model extraction and questions over REST: POST /v1/extract is the tool browser_extract_ai, POST /v1/ask the
 * REST-only operation `ask`, both through the one dispatch (validation, audit, scrubbing, the error table), with
 * the caller's X-Model-Key carried by runTool / runOperation and nowhere else.
 */
import { runOperation, runTool, toolBody, type Handler } from './rest-call.js';
import type { ServerDeps } from './deps.js';

export function modelHandlers(server: ServerDeps): Record<string, Handler> {
  const { env } = server;
  return {
    'POST /v1/extract': async (r, u) => runTool(server, r, u!, 'browser_extract_ai', await toolBody(env, r, u!, 'browser_extract_ai')),
    'POST /v1/ask': async (r, u) => runOperation(server, r, u!, 'ask', await toolBody(env, r, u!, 'ask')),
  };
}
