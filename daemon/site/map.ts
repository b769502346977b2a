/**
 * browser_map: a site's URLs without reading its pages: the sitemaps robots.txt names (or /sitemap.xml), the
 * feeds the start page announces, and the start page's own links; robots.txt honoured, the same host only
 * (sub-domains when asked), ranked by a query with BM25 over what is known of each URL (its path words and the
 * link text or feed title).
 */
import type { Platform } from '../platform.js';
import { BrowserdError } from '../../protocol/errors.js';
import { fetchGuardFor, networkFetcher } from '../fetch/guarded-fetch.js';
import { RobotsBook } from '../crawl/robots.js';
import { feedLinksIn, parseFeed, readSitemapUrls } from '../crawl/sitemap.js';
import { passesRules, siteHost } from '../crawl/rules.js';
import { rankPassages } from '../read/index.js';
import { readInBrowser } from '../crawl/browser-reader.js';
import { HopRefused, judgeActions } from '../crawl/hops.js';
import type { BrowserInstance } from '../browser/instance.js';
import { pageLinks } from './links.js';
import { destructiveLink, destructiveReason } from '../policy/destructive-links.js';

export type SourceChoice = 'include' | 'only' | 'skip';

export interface MapOptions {
  url: string;
  query?: string;
  limit: number;
  sitemap: SourceChoice;
  feeds: SourceChoice;
  includeSubdomains: boolean;
  allow: string[];
  deny: string[];
  /** Read the start page in a read tab of the user's profile instead of over http. */
  browser?: () => Promise<BrowserInstance>;
  signal?: AbortSignal;
}

export interface MappedUrl {
  url: string;
  source: 'link' | 'sitemap' | 'feed';
  title?: string;
  score?: number;
}

export interface SiteMapResult {
  urls: MappedUrl[];
  /** How many URLs each source gave before filtering and the limit. */
  found: { link: number; sitemap: number; feed: number };
  /** Left out by robots.txt. */
  disallowed: number;
}

/** Most URLs a sitemap may give a map: the limit's ceiling. */
const MAX_SITEMAP_URLS = 5000;
const MAX_FEEDS = 3;

export async function mapSite(env: Pick<Platform, 'cfg' | 'deniedPorts' | 'policies'>, user: string, o: MapOptions): Promise<SiteMapResult> {
  const start = new URL(o.url);
  const home = siteHost(start.hostname);
  const fetcher = networkFetcher(fetchGuardFor(env, user));
  const rules = await new RobotsBook(fetcher).rulesFor(o.url);
  const onlySitemap = o.sitemap === 'only';
  const onlyFeeds = o.feeds === 'only';
  const wantLinks = !onlySitemap && !onlyFeeds;
  const wantSitemap = o.sitemap !== 'skip' && (!onlyFeeds || onlySitemap);
  const wantFeeds = o.feeds !== 'skip' && (!onlySitemap || onlyFeeds);

  let startHtml = '';
  let visibleOnly = false;
  if (wantLinks || wantFeeds) {
    if (o.browser) {
      // Listing a site's links fetches none of them; the start page read on the profile is the one fetch that
      // carries the person's cookies, so it must not be a link that acts.
      const acts = destructiveLink(o.url);
      if (acts) throw new BrowserdError('refused', destructiveReason(acts), { next: "Map from the site's home page, or without useBrowser (over http, with no cookies)." });
      const tab = await (await o.browser()).scratchTab();
      try {
        // Its redirects and the page's own navigations are held to the same rule (crawl/hops.ts).
        const page = await readInBrowser(tab, o.url, { includeHidden: false, hops: await judgeActions(tab) });
        startHtml = page.html;
        visibleOnly = true;
      } catch (e) {
        if (e instanceof HopRefused) throw new BrowserdError('refused', e.reason, { next: "Map from the site's home page, or without useBrowser (over http, with no cookies)." });
        throw e;
      } finally {
        await tab.close().catch(() => undefined);
      }
    } else {
      const res = await fetcher(o.url, { signal: o.signal });
      if (res.status >= 400) throw new BrowserdError('navigation_failed', `${o.url} answered HTTP ${res.status}`, { next: 'Check the address, or map from the site\'s home page.' });
      startHtml = res.body.toString('utf8');
    }
  }

  const found = { link: 0, sitemap: 0, feed: 0 };
  const all: MappedUrl[] = [];
  if (wantLinks) {
    const links = pageLinks(startHtml, o.url, visibleOnly);
    found.link = links.length;
    all.push(...links.map((l) => ({ url: l.url, source: 'link' as const, ...(l.text ? { title: l.text } : {}) })));
  }
  if (wantSitemap) {
    for (const sm of rules.sitemaps.length ? rules.sitemaps : [`${start.origin}/sitemap.xml`]) {
      const urls = await readSitemapUrls(sm, fetcher, { max: MAX_SITEMAP_URLS, signal: o.signal }).catch(() => [] as string[]);
      found.sitemap += urls.length;
      all.push(...urls.map((url) => ({ url, source: 'sitemap' as const })));
    }
  }
  if (wantFeeds) {
    for (const feed of feedLinksIn(startHtml, o.url).slice(0, MAX_FEEDS)) {
      const res = await fetcher(feed, { signal: o.signal }).catch(() => undefined);
      if (!res || res.status >= 400) continue;
      const entries = parseFeed(res.body.toString('utf8'), res.url);
      found.feed += entries.length;
      all.push(...entries.map((e) => ({ url: e.url, source: 'feed' as const, ...(e.title ? { title: e.title } : {}) })));
    }
  }

  const inScope = (u: string) => {
    const h = siteHost(new URL(u).hostname);
    return h === home || (o.includeSubdomains && h.endsWith(`.${home}`));
  };
  const seen = new Map<string, MappedUrl>();
  let disallowed = 0;
  for (const m of all) {
    const key = m.url.replace(/#.*$/, '');
    const known = seen.get(key);
    if (known) {
      known.title ??= m.title;
      continue;
    }
    if (!inScope(key) || !passesRules(key, o.allow, o.deny)) continue;
    if (!rules.allowed(key)) {
      disallowed++;
      continue;
    }
    seen.set(key, { ...m, url: key });
  }
  let urls = [...seen.values()];
  if (o.query) urls = rank(urls, o.query);
  return { urls: urls.slice(0, o.limit), found, disallowed };
}

/** Matching URLs first, best first (BM25 over path words and titles); the rest after, in their order. */
function rank(urls: MappedUrl[], query: string): MappedUrl[] {
  const docs = urls.map((u) => {
    const path = decodeURIComponent(new URL(u.url).pathname).replace(/[/_.-]+/g, ' ');
    return { text: `${u.title ?? ''} ${path}`, headingPath: [] as string[], start: 0, end: 0 };
  });
  const ranked = rankPassages(docs, query, { topK: docs.length });
  const order = new Map(ranked.map((r, i) => [docs.indexOf(r.passage), { i, score: r.score }]));
  return urls
    .map((u, i) => ({ u: order.has(i) ? { ...u, score: Number(order.get(i)!.score.toFixed(3)) } : u, rank: order.get(i)?.i ?? Infinity, i }))
    .sort((a, b) => a.rank - b.rank || a.i - b.i)
    .map((x) => x.u);
}
