/**
 * A receiver URL, checked the way the egress guard checks a page's target: http(s) only, no credentials in it,
 * then the host resolved once and EVERY address classified (vet.ts). Registration refuses a blocked address;
 * each delivery checks again after DNS and connects only to an address it just checked, so a name that later
 * points at loopback or the metadata service never receives a callback. No user host policy applies to
 * receivers (they are the user's own endpoints), but the same address rules and allowances do.
 */
import { BrowserdError } from '../../protocol/errors.js';
import type { VetGuard } from '../net/vet.js';
import { vetUrl, type RefusalWords } from '../net/refusal-error.js';

export const URL_MAX = 2048;

/** The URL as stored: parsed, http(s), without credentials; validation_error naming `url` otherwise. */
export function parseReceiverUrl(raw: unknown): URL {
  const bad = (why: string) => new BrowserdError('validation_error', `url ${why}`, { next: 'Give the full http(s) address of your receiver, e.g. https://example.com/hooks/browserd.' });
  if (typeof raw !== 'string' || !raw.trim()) throw bad('is required and must be a string');
  if (raw.length > URL_MAX) throw bad(`is ${raw.length} characters; at most ${URL_MAX}`);
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw bad(`is not a URL: ${JSON.stringify(raw.slice(0, 200))}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw bad(`must be http or https, not ${u.protocol}`);
  if (u.username || u.password) throw bad('may not carry a user or password; the signature authenticates each call');
  u.hash = '';
  return u;
}

/** How a webhook receiver is named in a refusal (net/refusal-error.ts). */
const RECEIVER_WORDS: RefusalWords = {
  prefix: 'url: ',
  unresolvedCode: 'validation_error',
  checkNext: 'Check the receiver address.',
  ownPortNext: 'Point the webhook at your receiver, not at browserd.',
  useInstead: 'a public receiver address',
};

/** The addresses a delivery may connect to: every one the host resolves to, each allowed; a throw otherwise. */
export function vetReceiver(u: URL, guard: VetGuard): Promise<string[]> {
  return vetUrl(u, guard, RECEIVER_WORDS);
}
