/**
 * The response cache as the rest of the daemon uses it: a Fetcher wrapped to record or replay, and the same for
 * a browser tab's own requests. record stores GET/HEAD answers (redacted, see redact.ts); replay answers from the
 * store and goes to the network for the rest; replay-strict never goes out, and a page with no stored response
 * fails with not_found.
 */
import type { Platform } from '../platform.js';
import type { Tab } from '../browser/tab.js';
import type { Fetcher, FetchedResponse } from '../../protocol/crawl.js';
import { BrowserdError } from '../../protocol/errors.js';
import { userSecretForms } from '../secrets/user-secrets.js';
import { cacheBody, cacheHeaders, cacheUrl } from './redact.js';
import type { CachedResponse } from '../../storage/response-cache.js';

export type CacheMode = 'off' | 'record' | 'replay' | 'replay-strict';
type CacheEnv = Pick<Platform, 'responseCache' | 'vault' | 'filledCodes' | 'storageQuota'>;

export const missError = (url: string, name: string, secretForms: readonly string[]) =>
  new BrowserdError('not_found', `no stored response for ${cacheUrl(url, secretForms)} in cache "${name}"`, { next: 'Record it first with cache: "record", or use cache: "replay", which goes to the site for what is not stored.' });

/** Statuses worth replaying: a server error or a partial body says nothing about the page. */
const storable = (status: number) => status >= 200 && status < 500 && status !== 206;

/** Stores one answer, redacted; a failure to store never fails the page that was read. */
export async function record(env: CacheEnv, user: string, name: string, method: 'GET' | 'HEAD', requestedUrl: string, res: { url: string; status: number; headers: Record<string, string>; body: Buffer }): Promise<void> {
  if (!storable(res.status)) return;
  // Past the user's storage quota the answer is not stored (the caller's catch keeps the page read going).
  env.storageQuota.check(user, res.body.length);
  const forms = userSecretForms(env, user);
  const body = cacheBody(res.body, res.headers['content-type'], forms);
  if (!body) return;
  await env.responseCache.put(user, name, {
    method,
    url: cacheUrl(requestedUrl, forms),
    finalUrl: cacheUrl(res.url, forms),
    status: res.status,
    headers: cacheHeaders(res.headers, forms),
    body,
  });
}

export function lookup(env: CacheEnv, user: string, name: string, method: 'GET' | 'HEAD', url: string): CachedResponse | undefined {
  return env.responseCache.get(user, name, method, cacheUrl(url, userSecretForms(env, user)));
}

/** `fetch` behind user's cache `name` in the given mode; off returns `fetch` itself. */
export function withResponseCache(env: CacheEnv, user: string, mode: CacheMode, name: string, fetch: Fetcher): Fetcher {
  if (mode === 'off') return fetch;
  return async (url, opts = {}): Promise<FetchedResponse> => {
    const method = opts.method ?? 'GET';
    if (mode === 'replay' || mode === 'replay-strict') {
      const hit = lookup(env, user, name, method, url);
      if (hit) return { requestedUrl: url, url: hit.finalUrl, status: hit.status, headers: hit.headers, body: hit.body, fromCache: true };
      if (mode === 'replay-strict') throw missError(url, name, userSecretForms(env, user));
      return fetch(url, opts);
    }
    const res = await fetch(url, opts);
    await record(env, user, name, method, url, res).catch(() => undefined);
    return res;
  };
}

/**
 * The same for a read tab's own requests (browser mode): replay answers GETs from the store through the tab's
 * request interception (strict fails a miss), record stores what the tab received. Returns the detach.
 */
export async function attachTabCache(env: CacheEnv, user: string, mode: CacheMode, name: string, tab: Tab): Promise<() => Promise<void>> {
  if (mode === 'off') return async () => {};
  if (mode === 'record') {
    // The detach waits for the writes under way, so a read that ends with it has its pages stored.
    const writes = new Set<Promise<void>>();
    const stop = await tab.onResponses((r) => {
      const w = record(env, user, name, 'GET', r.url, r).catch(() => undefined);
      writes.add(w);
      void w.finally(() => writes.delete(w));
    });
    return async () => {
      await stop();
      await Promise.allSettled([...writes]);
    };
  }
  return tab.setResponder(async (req) => {
    // Strict never touches the network: a write (which no cache answers) fails in the browser too.
    if (req.method !== 'GET' && req.method !== 'HEAD') return mode === 'replay-strict' ? 'fail' : undefined;
    const hit = lookup(env, user, name, req.method, req.url);
    if (hit) return { status: hit.status, headers: hit.headers, body: hit.body };
    return mode === 'replay-strict' ? 'fail' : undefined;
  });
}
