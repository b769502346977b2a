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
import { auditedChange, type Handler } from '../server/rest-call.js';
import type { RouteSpec } from '../server/routes.js';
import { StringEnum } from '../../protocol/params.js';
import { Type } from '@sinclair/typebox';
import { URL_MAX } from './receiver-url.js';
import { WEBHOOK_EVENTS } from '../../protocol/webhook-events.js';
import { WEBHOOK_ID } from '../../protocol/ids.js';
import { group, hinted, limit } from '../server/route-schemas.js';

// ---- webhooks
const WebhookPath = group({
  id: hinted(Type.String({ pattern: WEBHOOK_ID.source }), { what: 'a webhook id', next: 'Use the id POST /v1/webhooks answered: wh_ and 16 hex digits (GET /v1/webhooks lists yours).' }),
});
const DeliveriesQuery = group({
  limit: Type.Optional(limit(1, 100, 20)),
  state: Type.Optional(hinted(Type.Unsafe<string>({ type: 'string', enum: ['pending', 'delivered', 'failed'] }), { next: 'Pass ?state=failed, or leave it out for every delivery.', emptyIsAbsent: true })),
});

const WEBHOOK_NEXT = 'Send {"url": "https://\u2026", "events": ["monitor.changed", \u2026]} (events defaults to all).';
/** POST /v1/webhooks. The URL's scheme, credentials and address are the receiver's own checks (receiver-url.ts). */
export const WebhookBody = hinted(
  Type.Object(
    {
      url: Type.String({ maxLength: URL_MAX, description: 'The http(s) address of your receiver; no user or password in it.' }),
      events: Type.Optional(Type.Array(StringEnum(WEBHOOK_EVENTS, { description: 'An event name.' }), { minItems: 1, description: 'default: every event' })),
    },
    { additionalProperties: false },
  ),
  { next: WEBHOOK_NEXT },
);


export const WEBHOOK_ROUTES: readonly RouteSpec[] = [
  { method: 'POST', path: '/v1/webhooks', auth: 'user', summary: 'Register a webhook receiver {url, events?}; answers its id and signing secret (whsec_…), the secret this once only', body: { schema: WebhookBody }, refusalsAudited: true },
  { method: 'GET', path: '/v1/webhooks', auth: 'user', summary: "The caller's webhook receivers: id, url, events, pending rows (never a secret)" },
  { method: 'DELETE', path: '/v1/webhooks/{id}', auth: 'user', summary: 'Delete a webhook receiver with its outbox rows (pending ones are not sent)', params: WebhookPath },
  { method: 'GET', path: '/v1/webhooks/{id}/deliveries', auth: 'user', summary: "One receiver's deliveries, newest first: state, attempts, last status or error", params: WebhookPath, query: DeliveriesQuery },
];


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
