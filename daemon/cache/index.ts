/**
 * The response cache as the rest of the daemon uses it: a Fetcher wrapped to record or replay, and the same for a
 * browser tab's requests.
 * OWNER: part "cache". Interface fixed by the lead; bodies to be written.
 */
import type { DaemonEnv } from '../env.js';
import type { Tab } from '../browser/tab.js';
import type { Fetcher } from '../crawl/types.js';

export type CacheMode = 'off' | 'record' | 'replay' | 'replay-strict';

/**
 * `fetch` behind user's cache `name`: record stores GET/HEAD responses (secrets redacted), replay answers from
 * it and goes out for the rest, replay-strict never goes out (a miss throws not_found). off returns `fetch`.
 */
export function withResponseCache(_env: Pick<DaemonEnv, 'responseCache' | 'vault' | 'filledCodes'>, _user: string, _mode: CacheMode, _name: string, fetch: Fetcher): Fetcher {
  return fetch;
}

/** The same for a read tab's own requests (browser mode); returns the function that detaches it. */
export async function attachTabCache(_env: Pick<DaemonEnv, 'responseCache' | 'vault' | 'filledCodes'>, _user: string, _mode: CacheMode, _name: string, _tab: Tab): Promise<() => Promise<void>> {
  throw new Error('cache: not built yet');
}
