/**
 * POST /v1/inbox/sms/{inbox}: where an SMS forwarder app on the user's phone posts the texts it receives.
 * The router lets the request in without a user token (the phone holds no browserd token); this handler
 * demands the inbox's own secret instead. A wrong secret and an unknown inbox get the same answer, and
 * nothing is stored for either, so the endpoint tells a guesser nothing. An inbox of a disabled account takes
 * no text while the account is disabled (the forwarder, which holds the secret, is told so).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Platform } from '../platform.js';
import { BrowserdError } from '../../protocol/errors.js';
import { bearer, parseJsonBounded, readBody, sendJson } from '../http/exchange.js';
import type { Handler } from '../server/rest-call.js';
import type { RouteSpec } from '../server/routes.js';


export const INBOX_ROUTES: readonly RouteSpec[] = [
  { method: 'POST', path: '/v1/inbox/sms/{inbox}', auth: 'none', summary: "An SMS forwarder posts a received text into an SMS otp_inbox; authenticated by that inbox's secret, not a user token", body: { handler: 'JSON, a form or plain text from a forwarder app, read only after the inbox secret is checked' } },
];


/** Far above any text message (a long SMS is ~1.6 KB), far below anything that could hurt. */
export const SMS_BODY_MAX = 16 * 1024;
const TEXT_MAX = 8 * 1024;
const FROM_MAX = 200;

const WHAT_TO_SEND = 'Send JSON {"text": "...", "from": "...", "receivedAt": "ISO time"} or a form with From and Body.';

// Compared through a hash so both sides have the same length and the comparison time says nothing.
const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
const decoy = randomBytes(32).toString('hex');

function sameSecret(given: string | undefined, expected: string | undefined): boolean {
  const ok = timingSafeEqual(digest(given ?? ''), digest(expected ?? decoy));
  return ok && given !== undefined && expected !== undefined;
}

const bad = (message: string): never => {
  throw new BrowserdError('validation_error', message, { next: WHAT_TO_SEND });
};

/** The message in a forwarder's body: JSON, form-encoded (Twilio-style From/Body) or plain text. */
export function parseSmsBody(contentType: string, body: Buffer): { from?: string; text: string; receivedAt?: string } {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  const raw = body.toString('utf8');
  let from: unknown;
  let text: unknown;
  let receivedAt: unknown;
  if (type === 'application/x-www-form-urlencoded') {
    const form = new URLSearchParams(raw);
    const pick = (...names: string[]) => names.map((n) => form.get(n)).find((v) => v !== null) ?? undefined;
    from = pick('From', 'from', 'sender');
    text = pick('Body', 'body', 'text', 'message');
    receivedAt = pick('receivedAt', 'ReceivedAt', 'received_at');
  } else if (type === 'text/plain') {
    text = raw;
  } else {
    const json = parseJsonBounded(raw) as Record<string, unknown> | null;
    if (!json || typeof json !== 'object' || Array.isArray(json)) bad('the body must be a JSON object');
    ({ from, text, receivedAt } = json!);
  }
  if (typeof text !== 'string' || !text.trim()) bad('text is missing or empty');
  if ((text as string).length > TEXT_MAX) bad(`text is longer than ${TEXT_MAX} characters`);
  if (from !== undefined && from !== null && (typeof from !== 'string' || from.length > FROM_MAX)) bad(`from must be text of at most ${FROM_MAX} characters`);
  let received: string | undefined;
  if (receivedAt !== undefined && receivedAt !== null && receivedAt !== '') {
    // Forwarders send ISO text or epoch milliseconds (as a number or digits).
    const ms = typeof receivedAt === 'number' ? receivedAt : /^\d{10,16}$/.test(String(receivedAt)) ? Number(receivedAt) : Date.parse(String(receivedAt));
    if (!Number.isFinite(ms)) bad('receivedAt must be an ISO time or epoch milliseconds');
    received = new Date(ms).toISOString();
  }
  return { ...(typeof from === 'string' && from ? { from } : {}), text: text as string, ...(received ? { receivedAt: received } : {}) };
}

export function inboxHandlers(env: Platform): Record<string, Handler> {
  return {
    'POST /v1/inbox/sms/{inbox}': async (r, _user, [raw]) => {
      const body = await readBody(r, SMS_BODY_MAX);
      let id: string;
      try {
        id = decodeURIComponent(raw!);
      } catch {
        id = '';
      }
      const owner = id ? env.vault.findSmsInbox(id) : undefined;
      const expected = owner ? env.vault.secrets(owner.user, owner.name)?.smsSecret : undefined;
      if (!sameSecret(bearer(r), expected)) {
        throw new BrowserdError('unauthorized', 'unknown inbox or wrong secret', { next: "Use the forwarding URL and the secret given when the SMS inbox was created; send Authorization: Bearer <the inbox's secret>." });
      }
      if (!env.users.isActive(owner!.user)) {
        throw new BrowserdError('forbidden', 'the account this inbox belongs to is disabled: the text was not stored', {
          next: 'Ask the admin of this host to enable the account; texts sent after that are stored again.',
        });
      }
      const msg = parseSmsBody(r.headers['content-type'] ?? 'application/json', body);
      await env.smsInbox.add(owner!.user, owner!.name, msg);
      sendJson(r, 202, { ok: true });
    },
  };
}
