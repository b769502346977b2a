/**
 * The daemon's own HTTP client for pages (crawl http mode, robots.txt, sitemaps, feeds): the same
 * private-network guard as the egress proxy, applied the same way (resolve once, check every address, connect
 * to a checked address), on every redirect hop, plus the user's host policy.
 * OWNER: part "fetch". Interface fixed by the lead; body to be written.
 */
import type { DaemonEnv } from '../env.js';
import type { Fetcher, FetchedResponse, FetchOptions } from '../crawl/types.js';

export interface FetchGuard {
  allowPrivateNetwork: boolean;
  allowTargets?: Iterable<string>;
  deniedPorts(): Set<number>;
  /** Name resolution (tests map names to loopback the way Chromium's --host-resolver-rules does). */
  lookup?: (host: string) => Promise<{ address: string; family?: number }[]>;
  /** The user's host policy: a `blocked` host is refused like a private address. */
  hostAccess?: (url: string) => 'read_only' | 'blocked' | 'allowed' | 'default';
}

/** The guard for one user's requests: the daemon's network settings and that user's host policy. */
export function fetchGuardFor(_env: Pick<DaemonEnv, 'cfg' | 'deniedPorts' | 'policies'>, _user: string): FetchGuard {
  throw new Error('guarded-fetch: not built yet');
}

/**
 * GET or HEAD `url`, following up to 10 redirects (each hop checked), body decompressed and capped.
 * Throws BrowserdError: blocked (guard or host policy), navigation_failed (network, too large), timeout.
 */
export async function guardedFetch(_url: string, _opts: FetchOptions & { guard: FetchGuard }): Promise<FetchedResponse> {
  throw new Error('guarded-fetch: not built yet');
}

export function networkFetcher(guard: FetchGuard): Fetcher {
  return (url, opts) => guardedFetch(url, { ...opts, guard });
}
