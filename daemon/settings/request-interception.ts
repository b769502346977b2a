/**
 * Which of an act tab's requests the user's rules need held for a verdict (write-guard.ts): every one while a
 * read-only site could be written to (from any page) or block_ads could fail one; documents only while a
 * blocked site must not be navigated to or the persistent identity must switch as documents load; else none.
 * Read tabs, routes, a replaying cache and allowedDomains add their own needs in the guard.
 */
import type { BrowserSettings } from './browser-settings.js';
import type { HostRule } from '../policy/host-policy.js';

/**
 * Which of a session's requests are held for a verdict: every one, documents only (pages and frames, where
 * navigations are decided), or none. Holding costs even requests no pattern matches: with Fetch on at all,
 * Chromium routes every request of the session through its interception layer.
 */
export type Interception = 'all' | 'documents' | 'none';

export function requestInterception(settings: Pick<BrowserSettings, 'block_ads' | 'profile_enabled'>, rules: readonly HostRule[]): Interception {
  if (settings.block_ads.length > 0 || rules.some((r) => r.access === 'read_only')) return 'all';
  const identity = settings.profile_enabled === true || (Array.isArray(settings.profile_enabled) && settings.profile_enabled.length > 0);
  if (identity || rules.some((r) => r.access === 'blocked')) return 'documents';
  return 'none';
}
