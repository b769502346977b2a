/**
 * Webhooks over REST: register a receiver (its secret answered this once), list them (never a secret), delete
 * one, and read one receiver's deliveries. Every lookup is under the caller's own id, so another user's webhook
 * id is simply not found. Changes are audited by id, events and the URL without its query (a receiver's query
 * string may carry a token of the receiver's own); the secret is never in an audit entry or a log line.
 */
import type { Platform } from '../platform.js';
import type { UserRecord } from '../../storage/users.js';
import type { RowState } from '../../storage/webhooks.js';
import { sendJson } from '../http/exchange.js';
import { auditedChange, type Handler } from './rest-call.js';

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

export function webhookHandlers(env: Platform): Record<string, Handler> {
  const me = (u: UserRecord | undefined) => u!;
  const audited = <T>(user: UserRecord, tool: string, args: Record<string, unknown>, change: () => Promise<T>) => auditedChange(env, user, tool, args, change);

  return {
    'POST /v1/webhooks': async (r, u, _raw, input) => {
      const user = me(u);
      // The body as sent names the audit entry; its check (the route's WebhookBody) runs inside the audited change.
      const sent = (await input.json()) as Record<string, unknown> | null;
      const args = { url: auditedUrl(sent?.url), events: Array.isArray(sent?.events) ? sent!.events.slice(0, 10) : sent?.events };
      const created = await audited(user, 'webhook_create', args, async () => env.webhookReceivers.register(user.id, await input.body()));
      sendJson(r, 201, { ok: true, ...created });
    },
    'GET /v1/webhooks': async (r, u) => {
      sendJson(r, 200, { ok: true, webhooks: env.webhookReceivers.list(me(u).id) });
    },
    'DELETE /v1/webhooks/{id}': async (r, u, _raw, { params }) => {
      const user = me(u);
      const id = params.id!;
      await audited(user, 'webhook_delete', { id }, () => env.webhookReceivers.delete(user.id, id));
      sendJson(r, 200, { ok: true, id, deleted: true });
    },
    'GET /v1/webhooks/{id}/deliveries': async (r, u, _raw, { params, query }) => {
      const id = params.id!;
      const { limit, state } = query as { limit: number; state?: RowState };
      sendJson(r, 200, { ok: true, id, deliveries: env.webhookReceivers.deliveries(me(u).id, id, { limit, ...(state ? { state } : {}) }) });
    },
  };
}
