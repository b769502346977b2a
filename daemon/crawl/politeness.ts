/**
 * Spacing requests per host: at least delayMs apart (longer when robots.txt asks with Crawl-delay), and a
 * back-off after 429 or 503 that follows Retry-After when the site gives one.
 */

/** Retry-After beyond this is not waited for in one go: the page is tried again later instead. */
const MAX_BACKOFF_MS = 10 * 60_000;
export const MAX_TRIES = 3;

export class HostSchedule {
  private nextAt = new Map<string, number>();
  private delays = new Map<string, number>();
  private lastStart = new Map<string, number>();

  constructor(private readonly delayMs: number) {}

  /** robots.txt Crawl-delay for a host: the gap becomes the larger of it and delayMs. */
  setCrawlDelay(host: string, ms: number | undefined) {
    if (ms === undefined || this.delays.has(host)) return;
    this.delays.set(host, Math.max(this.delayMs, ms));
    // Learned after the first request already set the next time with the shorter gap: push it out.
    const last = this.lastStart.get(host);
    if (last !== undefined) this.nextAt.set(host, Math.max(this.nextAt.get(host) ?? 0, last + this.gap(host)));
  }

  private gap(host: string): number {
    return this.delays.get(host) ?? this.delayMs;
  }

  /** Milliseconds until `host` may be asked again (0: now). */
  waitFor(host: string, now = Date.now()): number {
    return Math.max(0, (this.nextAt.get(host) ?? 0) - now);
  }

  /** A request to `host` starts now: the next may start one gap later. */
  take(host: string, now = Date.now()) {
    this.lastStart.set(host, Math.max(this.nextAt.get(host) ?? 0, now));
    this.nextAt.set(host, Math.max(this.nextAt.get(host) ?? 0, now) + this.gap(host));
  }

  /** A 429/503 answer: nothing more to `host` for Retry-After (or an exponential step of the gap). */
  backOff(host: string, retryAfter: string | undefined, tries: number, now = Date.now()) {
    const ms = Math.min(MAX_BACKOFF_MS, parseRetryAfter(retryAfter, now) ?? Math.max(1000, this.gap(host)) * 2 ** tries);
    this.nextAt.set(host, Math.max(this.nextAt.get(host) ?? 0, now + ms));
  }
}

/** Retry-After in milliseconds from now: delta-seconds or an HTTP date (RFC 9110 10.2.3). */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
