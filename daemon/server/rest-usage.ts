/** The models a call may choose, and what the caller has used: GET /v1/models, GET /v1/usage. */
import type { Platform } from '../platform.js';
import { listModels } from '../models/catalog.js';
import { BrowserdError } from '../../protocol/errors.js';
import { sendJson } from '../http/exchange.js';
import type { Handler } from './rest-call.js';

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
