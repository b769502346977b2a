/**
 * A network-guard refusal (vet.ts) told as a BrowserdError: one place decides each refusal's code, its words
 * and the next step, so the daemon's own connections (page fetches, webhook receivers, mailboxes) say the same
 * thing the same way. Each caller brings only what differs: what the target is called, and what to check.
 */
import { BrowserdError, type ErrorCode } from '../../protocol/errors.js';
import { vetTarget, VetRefusal, type VetGuard } from './vet.js';
import { ALLOW_PRIVATE_HOW } from './allow-private.js';

/** How one caller names its target in a refusal. */
export interface RefusalWords {
  /** Put before every message: '' (a page), 'url: ' (a webhook receiver), 'inbox NAME: ' (a mailbox). */
  prefix: string;
  /** Put instead of `prefix` before a name that did not resolve or a malformed target, when given. */
  failedPrefix?: string;
  /** What the host is called before its name: '' or 'the mailbox host '. */
  hostNoun?: string;
  /** The code for a name that did not resolve or a malformed target: what failed depends on who asked. */
  unresolvedCode: ErrorCode;
  /** The code for a malformed target (no host, a port outside 1-65535) when it is not `unresolvedCode`. */
  malformedCode?: ErrorCode;
  /** The next step for those. */
  checkNext: string;
  /** The next step for the daemon's own port. */
  ownPortNext: string;
  /** What to use instead of a private address: 'a public address', 'a mailbox on a public address'. */
  useInstead: string;
}

/** The error to throw for `e`; its host and port are the ones the caller asked vetTarget about. */
export function refusalError(e: VetRefusal, words: RefusalWords): BrowserdError {
  const { host, port } = e;
  const named = `${words.hostNoun ?? ''}${host}`;
  const failed = words.failedPrefix ?? words.prefix;
  if (e.kind === 'unresolved') return new BrowserdError(words.unresolvedCode, `${failed}${named} did not resolve`, { next: words.checkNext });
  if (e.kind === 'malformed') return new BrowserdError(words.malformedCode ?? words.unresolvedCode, `${failed}${named}:${port} is not a target`, { next: words.checkNext });
  if (e.kind === 'reserved_port') return new BrowserdError('blocked', `${words.prefix}port ${port} on this machine is the daemon's own`, { next: words.ownPortNext });
  return new BrowserdError('blocked', `${words.prefix}${named} is a ${(e.addressClass ?? 'private').replace('_', '-')} address, which the daemon may not reach`, {
    next: `Use ${words.useInstead}; ${ALLOW_PRIVATE_HOW}.`,
  });
}

/** vetTarget's answer, or its refusal thrown as refusalError. */
export async function vetOrRefuse(host: string, port: number, guard: VetGuard, words: RefusalWords): Promise<string[]> {
  try {
    return await vetTarget(host, port, guard);
  } catch (e) {
    if (!(e instanceof VetRefusal)) throw e;
    throw refusalError(e, words);
  }
}

/** The addresses a URL's host may be reached at (its port, or the scheme's), vetted as vetOrRefuse does. */
export function vetUrl(u: URL, guard: VetGuard, words: RefusalWords): Promise<string[]> {
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
  return vetOrRefuse(host, port, guard, words);
}
