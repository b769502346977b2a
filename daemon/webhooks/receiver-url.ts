/**
 * A receiver URL, checked the way the egress guard checks a page's target: http(s) only, no credentials in it,
 * then the host resolved once and EVERY address classified (vet.ts). Registration refuses a blocked address;
 * each delivery checks again after DNS and connects only to an address it just checked, so a name that later
 * points at loopback or the metadata service never receives a callback. No user host policy applies to
 * receivers (they are the user's own endpoints), but the same address rules and allowances do.
 */
import { BrowserdError } from '../../protocol/errors.js';
import { vetTarget, VetRefusal, type VetGuard } from '../net/vet.js';

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

/** The addresses a delivery may connect to: every one the host resolves to, each allowed; a throw otherwise. */
export async function vetReceiver(u: URL, guard: VetGuard): Promise<string[]> {
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
  try {
    return await vetTarget(host, port, guard);
  } catch (e) {
    if (!(e instanceof VetRefusal)) throw e;
    if (e.kind === 'unresolved') throw new BrowserdError('validation_error', `url: ${host} did not resolve`, { next: 'Check the receiver address.' });
    if (e.kind === 'reserved_port') throw new BrowserdError('blocked', `url: port ${port} on this machine is the daemon's own`, { next: 'Point the webhook at your receiver, not at browserd.' });
    if (e.kind === 'malformed') throw new BrowserdError('validation_error', `url: ${host}:${port} is not a target`, { next: 'Check the receiver address.' });
    throw new BrowserdError('blocked', `url: ${host} is a ${(e.addressClass ?? 'private').replace('_', '-')} address, which the daemon may not call`, {
      next: 'Use a public receiver address; an admin can allow private networks (--allow-private-network) or single targets (BROWSERD_ALLOW_TARGETS).',
    });
  }
}
