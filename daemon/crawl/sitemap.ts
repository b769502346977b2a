/**
 * Sitemaps (urlset, sitemap index, gzipped) and feeds (RSS, Atom) as lists of page URLs.
 * OWNER: part "fetch". Interface fixed by the lead; body to be written.
 */
import type { Fetcher } from './types.js';

/** Page URLs of a sitemap or sitemap index (followed to `maxDepth` levels), at most `max`, in document order. */
export async function readSitemapUrls(_url: string, _fetch: Fetcher, _opts: { max: number; signal?: AbortSignal }): Promise<string[]> {
  throw new Error('sitemap: not built yet');
}

export interface FeedEntry {
  url: string;
  title?: string;
  published?: string;
}

/** Entries of an RSS or Atom document; [] when it is neither. */
export function parseFeed(_xml: string, _baseUrl: string): FeedEntry[] {
  throw new Error('sitemap: not built yet');
}

/** Feed addresses a page announces (<link rel="alternate" type="application/rss+xml|atom+xml">), absolute. */
export function feedLinksIn(_html: string, _baseUrl: string): string[] {
  throw new Error('sitemap: not built yet');
}
