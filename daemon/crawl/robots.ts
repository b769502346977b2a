/**
 * robots.txt per origin (RFC 9309, parsed by robots-parser), fetched once per book (one book per crawl run)
 * through the run's fetcher, so the private-network guard and the response cache apply to it as to any page.
 */
import { createRequire } from 'node:module';
import type { Fetcher } from './types.js';

// robots-parser is CommonJS with a module.exports function its typings do not describe for ESM importers.
const robotsParser = createRequire(import.meta.url)('robots-parser') as (url: string, text: string) => {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
  getSitemaps(): string[];
};

/** The product token robots.txt groups are matched against ("User-agent: browserd"). */
export const ROBOTS_AGENT = 'browserd';

export interface RobotsRules {
  allowed(url: string): boolean;
  /** Crawl-delay for our agent (or *), in milliseconds. */
  crawlDelayMs?: number;
  /** Sitemap: lines. */
  sitemaps: string[];
}

/** RFC 9309 2.5: a crawler must parse at least 500 KiB; more is not needed. */
const MAX_ROBOTS_BYTES = 512 * 1024;
/** A Crawl-delay above a minute would stall a run for hours on a 5,000-page crawl: capped like delayMs. */
const MAX_CRAWL_DELAY_MS = 60_000;

const ALLOW_ALL: RobotsRules = { allowed: () => true, sitemaps: [] };
const DISALLOW_ALL: RobotsRules = { allowed: () => false, sitemaps: [] };

export class RobotsBook {
  private byOrigin = new Map<string, Promise<RobotsRules>>();
  private loaded = new Map<string, RobotsRules>();
  constructor(private readonly fetch: Fetcher) {}

  /** The rules for `url`'s origin if they have been read already (no waiting), else undefined. */
  known(url: string): RobotsRules | undefined {
    return this.loaded.get(new URL(url).origin);
  }

  /**
   * The rules for `url`'s origin. RFC 9309 2.3.1: a missing robots.txt (4xx) allows all; a server error or an
   * unreachable server disallows all (for this book), since the site may be unable to say what it forbids.
   */
  rulesFor(url: string): Promise<RobotsRules> {
    const origin = new URL(url).origin;
    let rules = this.byOrigin.get(origin);
    if (!rules) {
      rules = this.load(origin).then((r) => {
        this.loaded.set(origin, r);
        return r;
      });
      this.byOrigin.set(origin, rules);
    }
    return rules;
  }

  private async load(origin: string): Promise<RobotsRules> {
    const robotsUrl = `${origin}/robots.txt`;
    let res;
    try {
      res = await this.fetch(robotsUrl, { maxBytes: MAX_ROBOTS_BYTES * 4, timeoutMs: 20_000 });
    } catch {
      return DISALLOW_ALL;
    }
    if (res.status >= 500) return DISALLOW_ALL;
    if (res.status >= 400 || res.status < 200 || res.status >= 300) return ALLOW_ALL;
    return parseRobots(robotsUrl, res.body.subarray(0, MAX_ROBOTS_BYTES).toString('utf8'));
  }
}

export function parseRobots(robotsUrl: string, text: string): RobotsRules {
  const robot = robotsParser(robotsUrl, text);
  const delayS = robot.getCrawlDelay(ROBOTS_AGENT);
  return {
    // robots-parser answers undefined for another origin's URL: nothing it can say, so not ours to refuse.
    allowed: (url) => robot.isAllowed(url, ROBOTS_AGENT) !== false,
    ...(typeof delayS === 'number' && delayS > 0 ? { crawlDelayMs: Math.min(Math.round(delayS * 1000), MAX_CRAWL_DELAY_MS) } : {}),
    sitemaps: robot.getSitemaps(),
  };
}
