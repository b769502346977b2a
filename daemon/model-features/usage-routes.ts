/** The models a call may choose, and what the caller has used: GET /v1/models, GET /v1/usage. */
import type { Platform } from '../platform.js';
import { listModels } from '../models/catalog.js';
import { BrowserdError } from '../../protocol/errors.js';
import { sendJson } from '../http/exchange.js';
import type { Handler } from '../server/rest-call.js';
import type { RouteSpec } from '../server/routes.js';
import * as S from '../server/route-schemas.js';


export const USAGE_ROUTES: readonly RouteSpec[] = [
  { method: 'GET', path: '/v1/models', auth: 'user', summary: 'The model ids a model-using call may choose (`openai/…`, `anthropic/…`, `gemini/…`), with the default marked' },
  { method: 'GET', path: '/v1/usage', auth: 'user', summary: "The caller's model tokens per day and model as the providers reported them, with totals and CDP session minutes", query: S.UsageQuery },
];


export function usageHandlers(env: Platform): Record<string, Handler> {
  return {
    'GET /v1/models': async (r) => sendJson(r, 200, { ok: true, models: listModels(env.cfg.models).map(({ id, provider, default: d }) => ({ id, provider, default: d })) }),
    'GET /v1/usage': async (r, u, _raw, { query }) => {
      const { from, to } = query as { from?: string; to?: string };
      // Across the two days: a rule the per-day schema cannot say.
      if (from && to && from > to) throw new BrowserdError('validation_error', `from (${from}) is after to (${to})`, { next: 'Swap them.' });
      const models = env.modelUsage.list(u!.id, { from, to });
      const totals = models.reduce((t, m) => ({ requests: t.requests + m.requests, inputTokens: t.inputTokens + m.inputTokens, outputTokens: t.outputTokens + m.outputTokens }), { requests: 0, inputTokens: 0, outputTokens: 0 });
      sendJson(r, 200, { ok: true, models, totals, cdpSessionMinutes: env.usage.minutes(u!.id, 'cdp_session') });
    },
  };
}
