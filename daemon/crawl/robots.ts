/**
 * robots.txt per origin (RFC 9309, parsed by robots-parser), fetched once per run through the crawl's fetcher.
 * OWNER: part "fetch". Interface fixed by the lead; body to be written.
 */
import type { Fetcher } from './types.js';

/** The product token robots.txt groups are matched against ("User-agent: browserd"). */
export const ROBOTS_AGENT = 'browserd';

export interface RobotsRules {
  allowed(url: string): boolean;
  /** Crawl-delay for our agent (or *), in milliseconds. */
  crawlDelayMs?: number;
  /** Sitemap: lines. */
  sitemaps: string[];
}

export class RobotsBook {
  constructor(_fetch: Fetcher) {}
  /** The rules for `url`'s origin; a missing robots.txt (4xx) allows all, an unreachable one (5xx) disallows all (RFC 9309 2.3.1). */
  async rulesFor(_url: string): Promise<RobotsRules> {
    throw new Error('robots: not built yet');
  }
}
