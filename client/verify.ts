/**
 * Checking a browserd webhook on the receiving side (Standard Webhooks scheme): the signature is an HMAC-SHA256
 * over `${webhook-id}.${webhook-timestamp}.${body}` under the secret (the base64 after `whsec_`), sent as
 * `v1,<base64>`; one header may hold several, space-separated (during a secret rotation). A call is accepted only
 * when one of them matches, compared in constant time, and its timestamp is within 5 minutes of now (so a
 * captured call cannot be replayed later). Pass the body exactly as received: re-serialised JSON will not match.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const TOLERANCE_S = 5 * 60;

export type WebhookEventType = 'monitor.changed' | 'recording.finished' | 'replay.finished' | 'task.finished' | 'download.finished' | 'handoff.finished';

export interface WebhookEvent<D = Record<string, unknown>> {
  type: WebhookEventType;
  /** When the event happened (ISO 8601); the same on every attempt. */
  timestamp: string;
  data: D;
}

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return Array.isArray(v) ? v.join(' ') : v;
  return undefined;
}

function secretKey(secret: string): Buffer {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  if (!key.length) throw new WebhookVerificationError('the secret is empty or not base64');
  return key;
}

/**
 * The event, parsed, when the call is browserd's; a WebhookVerificationError otherwise (missing headers,
 * no matching signature, timestamp too old or too new, body not an event). `now` (epoch ms) is for tests.
 */
export function verifyWebhook(secret: string, headers: HeaderBag, body: string | Buffer | Uint8Array, opts: { now?: number } = {}): WebhookEvent {
  const id = header(headers, 'webhook-id');
  const ts = header(headers, 'webhook-timestamp');
  const sigs = header(headers, 'webhook-signature');
  if (!id || !ts || !sigs) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature');
  if (!/^\d{1,15}$/.test(ts.trim())) throw new WebhookVerificationError('webhook-timestamp is not whole seconds');
  const sent = Number(ts.trim());
  const now = Math.floor((opts.now ?? Date.now()) / 1000);
  if (now - sent > TOLERANCE_S) throw new WebhookVerificationError('the timestamp is too old (more than 5 minutes)');
  if (sent - now > TOLERANCE_S) throw new WebhookVerificationError('the timestamp is too new (more than 5 minutes ahead)');
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
  const expected = createHmac('sha256', secretKey(secret)).update(`${id}.${ts.trim()}.`).update(bytes).digest();
  let matched = false;
  for (const versioned of sigs.split(' ')) {
    const [version, sig] = versioned.split(',', 2);
    if (version !== 'v1' || !sig) continue;
    const given = Buffer.from(sig, 'base64');
    // Every candidate is compared whole, in constant time; no early exit reveals which one matched.
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  if (!matched) throw new WebhookVerificationError('no matching signature');
  let event: unknown;
  try {
    event = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('the body is not JSON');
  }
  const e = event as Partial<WebhookEvent>;
  if (!e || typeof e !== 'object' || typeof e.type !== 'string' || typeof e.timestamp !== 'string' || !e.data || typeof e.data !== 'object') {
    throw new WebhookVerificationError('the body is not a webhook event {type, timestamp, data}');
  }
  return e as WebhookEvent;
}
