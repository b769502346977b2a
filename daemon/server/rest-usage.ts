/** The models a call may choose, and what the caller has used: GET /v1/models, GET /v1/usage. */
import type { Platform } from '../platform.js';
import { listModels } from '../models/catalog.js';
import { BrowserdError } from '../../protocol/errors.js';
import { sendJson, type Req } from './http.js';
import type { Handler } from './rest-call.js';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function day(r: Req, name: string): string | undefined {
  const v = r.query.get(name);
  if (v === null) return undefined;
  if (!DAY.test(v) || Number.isNaN(Date.parse(`${v}T00:00:00Z`))) throw new BrowserdError('validation_error', `${name} must be a day as YYYY-MM-DD, not "${v.slice(0, 40)}"`, { next: `Pass ${name}=2026-01-31, or leave it out.` });
  return v;
}

export function usageHandlers(env: Platform): Record<string, Handler> {
  return {
    'GET /v1/models': async (r) => sendJson(r, 200, { ok: true, models: listModels(env.cfg.models).map(({ id, provider, default: d }) => ({ id, provider, default: d })) }),
    'GET /v1/usage': async (r, u) => {
      const from = day(r, 'from');
      const to = day(r, 'to');
      if (from && to && from > to) throw new BrowserdError('validation_error', `from (${from}) is after to (${to})`, { next: 'Swap them.' });
      const models = env.modelUsage.list(u!.id, { from, to });
      const totals = models.reduce((t, m) => ({ requests: t.requests + m.requests, inputTokens: t.inputTokens + m.inputTokens, outputTokens: t.outputTokens + m.outputTokens }), { requests: 0, inputTokens: 0, outputTokens: 0 });
      sendJson(r, 200, { ok: true, models, totals, cdpSessionMinutes: env.usage.minutes(u!.id, 'cdp_session') });
    },
  };
}
