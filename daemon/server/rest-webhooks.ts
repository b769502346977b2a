/**
 * Webhooks over REST: register a receiver (its secret answered this once), list them (never a secret), delete
 * one, and read one receiver's deliveries. Every lookup is under the caller's own id, so another user's webhook
 * id is simply not found. Changes are audited by id, events and the URL without its query (a receiver's query
 * string may carry a token of the receiver's own); the secret is never in an audit entry or a log line.
 */
import type { DaemonEnv } from '../env.js';
import type { UserRecord } from '../../storage/users.js';
import type { RowState } from '../../storage/webhooks.js';
import { BrowserdError } from '../../protocol/errors.js';
import { WEBHOOK_ID } from '../../protocol/ids.js';
import { readJson, sendJson, type Req } from './http.js';
import { auditedChange, type Handler } from './rest-call.js';

const ROW_STATES: readonly RowState[] = ['pending', 'delivered', 'failed'];

const bad = (message: string, next: string) => new BrowserdError('validation_error', message, { next });

function webhookId(raw: string): string {
  let id: string;
  try {
    id = decodeURIComponent(raw);
  } catch {
    id = raw;
  }
  if (!WEBHOOK_ID.test(id)) throw bad(`"${id.slice(0, 80)}" is not a webhook id`, 'Use the id POST /v1/webhooks answered: wh_ and 16 hex digits (GET /v1/webhooks lists yours).');
  return id;
}

function limitParam(r: Req): number {
  const raw = r.query.get('limit');
  if (raw === null) return 20;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > 100) throw bad('limit must be a whole number from 1 to 100', 'Pass ?limit=20.');
  return n;
}

function stateParam(r: Req): RowState | undefined {
  const raw = r.query.get('state');
  if (raw === null || raw === '') return undefined;
  if (!ROW_STATES.includes(raw as RowState)) throw bad(`state must be one of ${ROW_STATES.join(', ')}`, 'Pass ?state=failed, or leave it out for every delivery.');
  return raw as RowState;
}

/** The URL as an audit entry may show it: no query, no fragment. */
function auditedUrl(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  try {
    const u = new URL(raw);
    return `${u.origin}${u.pathname}`.slice(0, 300);
  } catch {
    return '[not a URL]';
  }
}

export function webhookHandlers(env: DaemonEnv): Record<string, Handler> {
  const me = (u: UserRecord | undefined) => u!;
  const audited = <T>(user: UserRecord, tool: string, args: Record<string, unknown>, change: () => Promise<T>) => auditedChange(env, user, tool, args, change);

  return {
    'POST /v1/webhooks': async (r, u) => {
      const user = me(u);
      const body = (await readJson(r)) as Record<string, unknown> | null;
      const args = { url: auditedUrl(body?.url), events: Array.isArray(body?.events) ? body!.events.slice(0, 10) : body?.events };
      const created = await audited(user, 'webhook_create', args, () => env.webhookReceivers.register(user.id, body));
      sendJson(r, 201, { ok: true, ...created });
    },
    'GET /v1/webhooks': async (r, u) => {
      sendJson(r, 200, { ok: true, webhooks: env.webhookReceivers.list(me(u).id) });
    },
    'DELETE /v1/webhooks/{id}': async (r, u, [raw]) => {
      const user = me(u);
      const id = webhookId(raw!);
      await audited(user, 'webhook_delete', { id }, () => env.webhookReceivers.delete(user.id, id));
      sendJson(r, 200, { ok: true, id, deleted: true });
    },
    'GET /v1/webhooks/{id}/deliveries': async (r, u, [raw]) => {
      const id = webhookId(raw!);
      const limit = limitParam(r);
      const state = stateParam(r);
      sendJson(r, 200, { ok: true, id, deliveries: env.webhookReceivers.deliveries(me(u).id, id, { limit, ...(state ? { state } : {}) }) });
    },
  };
}
