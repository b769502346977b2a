/**
 * The daemon's own HTTP client for pages (crawl http mode, robots.txt, sitemaps, feeds). Pages the browser
 * loads are guarded by the egress proxy; requests the daemon makes itself get the same guard here, the same
 * way (vet.ts: resolve once, check every address, connect only to a checked one), on EVERY redirect hop, plus
 * the user's host policy. Callers' headers never carry cookies or credentials, and Set-Cookie never leaves this
 * file. The one way a Cookie header goes out is `cookiesFor`: the daemon's own lookup in the user's browser or
 * saved session (browser_api_call server mode), asked per hop for that hop's address, after it was vetted, so a
 * redirect elsewhere gets only what belongs there.
 */
import http from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';
import type { Platform } from '../platform.js';
import type { Fetcher, FetchedResponse, FetchOptions } from '../../protocol/crawl.js';
import { BrowserdError } from '../../protocol/errors.js';
import { vetUrl, type RefusalWords } from '../net/refusal-error.js';
import { pinnedRequest } from '../net/pinned-request.js';
import { lookupWithRules, parseResolverRules } from '../browser/resolver-rules.js';
import { evaluateHostPolicy } from '../policy/host-policy.js';
import { VERSION } from '../version.js';

export interface FetchGuard {
  allowPrivateNetwork: boolean;
  allowTargets?: Iterable<string>;
  deniedPorts(): Set<number>;
  /** Name resolution (tests map names to loopback the way Chromium's --host-resolver-rules does). */
  lookup?: (host: string) => Promise<{ address: string; family?: number }[]>;
  /** The user's host policy: a `blocked` host is refused like a private address. */
  hostAccess?: (url: string) => 'read_only' | 'blocked' | 'allowed' | 'default';
}

/** Says who we are, so a site can tell a browserd crawl apart and robots.txt can address it ("browserd"). */
export const CRAWLER_USER_AGENT = `Mozilla/5.0 (compatible; browserd/${VERSION}; +crawler)`;

const MAX_REDIRECTS = 10;
const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 30_000;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

// Connections are kept alive between pages of a crawl. Safe with the guard: every pooled socket was opened to
// an address vetTarget checked, and every request is vetted again (host policy, redirects) before it may use one.
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 16 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 16 }),
};

/** The guard for one user's requests: the daemon's network settings and that user's host policy. */
export function fetchGuardFor(env: Pick<Platform, 'cfg' | 'deniedPorts' | 'policies'>, user: string): FetchGuard {
  return {
    allowPrivateNetwork: env.cfg.allowPrivateNetwork,
    allowTargets: env.cfg.allowTargets,
    deniedPorts: () => env.deniedPorts(),
    lookup: lookupWithRules(parseResolverRules(env.cfg.chromeArgs)),
    hostAccess: (url) => evaluateHostPolicy(env.policies.rules(user), url),
  };
}

export function networkFetcher(guard: FetchGuard): Fetcher {
  return (url, opts) => guardedFetch(url, { ...opts, guard });
}

/**
 * GET or HEAD `url`, following up to 10 redirects (each hop checked), body decompressed and capped.
 * Throws BrowserdError: blocked (guard or host policy), navigation_failed (network, too large), timeout.
 */
export interface GuardedFetchOptions extends Omit<FetchOptions, 'method'> {
  guard: FetchGuard;
  /** GET and HEAD by default; other methods (browser_api_call) send `body` and are never sent to a read-only site. */
  method?: string;
  body?: Buffer;
  /** The Cookie header for a vetted hop's address, from the daemon's own store (never from a caller's headers). */
  cookiesFor?: (url: URL) => Promise<string | undefined>;
  /** The error for a body past maxBytes (default: navigation_failed, "not a page to read whole"). */
  tooLarge?: (url: string, maxBytes: number) => BrowserdError;
}

export async function guardedFetch(url: string, opts: GuardedFetchOptions): Promise<FetchedResponse> {
  const deadline = Date.now() + (opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  let method = opts.method ?? 'GET';
  let current = url;
  for (let hop = 0; ; hop++) {
    const target = checkedUrl(current, opts.guard);
    const writes = method !== 'GET' && method !== 'HEAD';
    if (writes && opts.guard.hostAccess?.(target.href) === 'read_only') {
      throw new BrowserdError('site_read_only', `${target.hostname} is read-only by your host policy: a ${method} is not sent there`, { next: 'Report this to the user; do not try another way.' });
    }
    const addresses = await vetted(target, opts.guard);
    const cookie = await opts.cookiesFor?.(target);
    const res = await requestOnce(target, addresses, method, writes ? opts.body : undefined, cookie, opts, deadline);
    const location = res.headers.location;
    if (REDIRECTS.has(res.status) && location) {
      if (hop >= MAX_REDIRECTS) throw new BrowserdError('navigation_failed', `${url}: more than ${MAX_REDIRECTS} redirects`, { next: 'Check the address; the site redirects in a loop.' });
      let nextUrl: string;
      try {
        nextUrl = new URL(location, target).href;
      } catch {
        throw new BrowserdError('navigation_failed', `${target.href} redirects to an address that is not a URL`, { next: 'The site is broken at this address; try another page.' });
      }
      // The caller's say over the hop (a crawl's rules), before anything is sent to it.
      await opts.beforeRedirect?.(nextUrl, target.href);
      // As browsers do: 303 always, and 301/302 after a POST, go on as a GET without the body.
      if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) method = 'GET';
      current = nextUrl;
      continue;
    }
    return { requestedUrl: url, url: target.href, status: res.status, headers: res.headers, body: res.body };
  }
}

/**
 * Why `url` may not be fetched under `guard` (scheme, credentials, host policy, a private or reserved address
 * its name resolves to), or undefined when it may: the same checks every hop of guardedFetch gets, asked ahead
 * (a crawl judging a browser's redirect hop the way it judges its own).
 */
export async function addressRefusal(url: string, guard: FetchGuard): Promise<string | undefined> {
  try {
    await vetted(checkedUrl(url, guard), guard);
    return undefined;
  } catch (e) {
    if (e instanceof BrowserdError && e.code !== 'navigation_failed') return e.message;
    // A name that does not resolve is no refusal: the request fails by itself.
    if (e instanceof BrowserdError) return undefined;
    throw e;
  }
}

function checkedUrl(raw: string, guard: FetchGuard): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new BrowserdError('validation_error', `not a URL: ${JSON.stringify(raw.slice(0, 200))}`, { next: 'Give a full http(s) address.' });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new BrowserdError('blocked', `${u.protocol} addresses are not fetched`, { next: 'Only http(s) pages can be read.' });
  if (u.username || u.password) throw new BrowserdError('blocked', 'addresses with credentials in them are not fetched', { next: 'Remove the user:password@ part; a saved session or the vault signs in instead.' });
  if (guard.hostAccess?.(u.href) === 'blocked') throw new BrowserdError('blocked', `${u.hostname} is blocked by your host policy`, { next: 'Ask an admin to change the host policy, or leave this site out.' });
  return u;
}

/** How a page fetch names a refused target (net/refusal-error.ts). */
const PAGE_WORDS: RefusalWords = {
  prefix: '',
  unresolvedCode: 'navigation_failed',
  // Refused, not failed: addressRefusal (crawl hops) lets navigation_failed through as "fails by itself".
  malformedCode: 'blocked',
  checkNext: 'Check the address.',
  ownPortNext: 'Pages may not reach the daemon itself.',
  useInstead: 'a public address',
};

const vetted = (u: URL, guard: FetchGuard): Promise<string[]> => vetUrl(u, guard, PAGE_WORDS);

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** One request to an already-vetted address list; resolves with the whole (decoded, capped) body. */
function requestOnce(u: URL, addresses: string[], method: string, body: Buffer | undefined, cookie: string | undefined, opts: GuardedFetchOptions, deadline: number): Promise<RawResponse> {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  return new Promise<RawResponse>((resolve, reject) => {
    let settled = false;
    const fail = (e: BrowserdError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      req.destroy();
      reject(e);
    };
    const finish = (r: RawResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      resolve(r);
    };
    const onAbort = () => fail(new BrowserdError('timeout', `${u.href}: the request was cancelled`, { next: 'Try again.' }));
    const timer = setTimeout(() => fail(new BrowserdError('timeout', `${u.href} did not answer in time`, { next: 'Try again later, or give a longer timeout.' })), Math.max(1, deadline - Date.now()));
    // It can only ever connect to the addresses vetTarget checked.
    const req = pinnedRequest(u, addresses, {
      method,
      agent: agents[u.protocol as 'http:' | 'https:'],
      headers: {
        'user-agent': CRAWLER_USER_AGENT,
        accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
        'accept-language': 'en',
        'accept-encoding': 'gzip, deflate, br',
        ...withoutCredentials(opts.headers),
        ...(cookie ? { cookie } : {}),
        ...(body ? { 'content-length': String(body.length) } : {}),
      },
    });
    // The error listener first: destroying a request with none would throw its error at the process.
    req.on('error', (e) => fail(new BrowserdError('navigation_failed', `${u.href}: ${(e as NodeJS.ErrnoException).code ?? e.message}`, { next: 'Check that the site is up and the address is right.' })));
    if (opts.signal?.aborted) return onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    req.on('response', (res) => {
      const headers = headerRecord(res);
      const decoded = decoder(res.headers['content-encoding']);
      const stream = decoded ? res.pipe(decoded) : res;
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (c: Buffer) => {
        size += c.length;
        if (size > maxBytes) return fail(opts.tooLarge?.(u.href, maxBytes) ?? new BrowserdError('navigation_failed', `${u.href} is larger than ${maxBytes} bytes`, { next: 'This is not a page to read whole.' }));
        chunks.push(c);
      });
      stream.on('error', () => fail(new BrowserdError('navigation_failed', `${u.href}: the body could not be read or decoded`, { next: 'Try again later.' })));
      stream.on('end', () => {
        if (decoded) delete headers['content-encoding'];
        finish({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks) });
      });
    });
    req.end(body);
  });
}

/** Lower-case names, repeated headers joined; Set-Cookie dropped here so no cookie is ever kept or shown. */
function headerRecord(res: http.IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) {
    if (k === 'set-cookie' || v === undefined) continue;
    out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

function decoder(encoding: string | undefined) {
  switch ((encoding ?? '').trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      return undefined;
  }
}

const CREDENTIAL_HEADER = /^(cookie|authorization|proxy-authorization)$/i;
function withoutCredentials(h: Record<string, string> = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(h).filter(([k]) => !CREDENTIAL_HEADER.test(k)));
}
