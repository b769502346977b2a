/**
 * Sitemaps (urlset, sitemap index, gzipped) and feeds (RSS, Atom, RDF, JSON Feed) as lists of page URLs.
 * Sitemaps are read by the one XML reader (docs/xml.ts: tolerant of the broken XML sites serve, no entity
 * expansion, so no billion-laughs); feeds by the one feed parser (docs/feed.ts). The HTML a page announces its
 * feeds in is HTML, read by htmlparser2 like every other page.
 */
import { gunzipSync } from 'node:zlib';
import { parseDocument } from 'htmlparser2';
import type { Fetcher } from './types.js';
import { absoluteHttp } from '../read/metadata.js';
import { parseFeedEntries, type FeedEntry as FeedItem } from '../docs/feed.js';
import { childrenOf, parseXml, tagOf, textOf, walkXml, type XmlNode } from '../docs/xml.js';

/** Nested sitemap indexes followed at most this deep: real sites use one level; deeper is a loop or a trap. */
const MAX_INDEX_DEPTH = 3;
/** Sitemaps may be 50 MB uncompressed (sitemaps.org); a gzipped one is capped after decompression too. */
const MAX_SITEMAP_BYTES = 50 * 1024 * 1024;

/** Local name without a namespace prefix, lower-case ("sm:loc" -> "loc"). */
const local = (n: XmlNode) => tagOf(n).replace(/^.*:/, '').toLowerCase();

/** The text of the first <loc> under an entry, trimmed. */
function locOf(entry: XmlNode): string | undefined {
  let loc: XmlNode | undefined;
  walkXml(childrenOf(entry), (n) => {
    if (loc) return false;
    if (local(n) === 'loc') loc = n;
  });
  return loc && textOf(childrenOf(loc)).trim();
}

/** The body as text, gunzipped when it is gzip (by its magic bytes: servers label .gz files every which way). */
function bodyText(body: Buffer): string {
  if (body.length > 2 && body[0] === 0x1f && body[1] === 0x8b) return gunzipSync(body, { maxOutputLength: MAX_SITEMAP_BYTES }).toString('utf8');
  return body.toString('utf8');
}

/** Page URLs of a sitemap or sitemap index (nested indexes followed), at most `max`, in document order. */
export async function readSitemapUrls(url: string, fetch: Fetcher, opts: { max: number; signal?: AbortSignal }): Promise<string[]> {
  const pages = new Set<string>();
  const visited = new Set<string>();
  const visit = async (sitemapUrl: string, depth: number): Promise<void> => {
    if (visited.has(sitemapUrl) || depth > MAX_INDEX_DEPTH || pages.size >= opts.max || opts.signal?.aborted) return;
    visited.add(sitemapUrl);
    const res = await fetch(sitemapUrl, { maxBytes: MAX_SITEMAP_BYTES, signal: opts.signal });
    if (res.status < 200 || res.status >= 300) {
      // Only the top sitemap's failure is the caller's business; a broken child leaves the rest readable.
      if (depth === 0) throw new Error(`the sitemap answered HTTP ${res.status}`);
      return;
    }
    let doc: XmlNode[];
    try {
      doc = parseXml(bodyText(res.body));
    } catch {
      if (depth === 0) throw new Error('the sitemap is neither XML nor gzipped XML');
      return;
    }
    const children: string[] = [];
    walkXml(doc, (el) => {
      const name = local(el);
      if (name !== 'sitemap' && name !== 'url') return;
      const loc = locOf(el);
      const u = loc && absoluteHttp(loc, res.url);
      if (u && name === 'sitemap') children.push(u);
      else if (u && pages.size < opts.max) pages.add(u);
      return false;
    });
    for (const child of children) await visit(child, depth + 1);
  };
  await visit(url, 0);
  return [...pages];
}

export interface FeedEntry {
  url: string;
  title?: string;
  published?: string;
}

/**
 * Entries of an RSS 2.0, RDF (RSS 1.0), Atom or JSON Feed document, as addresses to visit; [] when it is none
 * of them. Read by the one feed parser (docs/feed.ts, feedsmith), the one browser_convert uses.
 */
export function parseFeed(text: string, baseUrl: string): FeedEntry[] {
  let entries: FeedItem[];
  try {
    entries = parseFeedEntries(text).entries;
  } catch {
    return [];
  }
  const out: FeedEntry[] = [];
  const seen = new Set<string>();
  for (const e of entries) {
    const url = e.link ? absoluteHttp(e.link, baseUrl) : undefined;
    if (!url || seen.has(url)) continue;
    seen.add(url);
    out.push({ url, ...(e.title ? { title: e.title } : {}), ...(e.date ? { published: String(e.date).trim() } : {}) });
  }
  return out;
}

/** Feed addresses a page announces (<link rel="alternate" type="application/rss+xml|atom+xml">), absolute. */
interface HtmlNode {
  type: string;
  name?: string;
  attribs?: Record<string, string>;
  children?: HtmlNode[];
}

function* elements(n: HtmlNode): Generator<HtmlNode> {
  for (const c of n.children ?? []) {
    if (c.type === 'tag') {
      yield c;
      yield* elements(c);
    }
  }
}

export function feedLinksIn(html: string, baseUrl: string): string[] {
  const doc = parseDocument(html) as unknown as HtmlNode;
  const out = new Set<string>();
  for (const el of elements(doc)) {
    if (el.name !== 'link') continue;
    const rel = (el.attribs?.rel ?? '').toLowerCase().split(/\s+/);
    const type = (el.attribs?.type ?? '').toLowerCase();
    if (!rel.includes('alternate') || !/^application\/(rss|atom|rdf)\+xml$/.test(type)) continue;
    const u = el.attribs?.href && absoluteHttp(el.attribs.href, baseUrl);
    if (u) out.add(u);
  }
  return [...out];
}
