/**
 * Sitemaps (urlset, sitemap index, gzipped) and feeds (RSS, Atom, RDF, JSON Feed) as lists of page URLs.
 * Sitemaps are parsed with htmlparser2 in XML mode: tolerant of the broken XML sites serve, and no entity
 * expansion beyond the standard ones (so no billion-laughs). Feeds go through the one feed parser (docs/feed.ts).
 */
import { gunzipSync } from 'node:zlib';
import { parseDocument } from 'htmlparser2';
import type { Fetcher } from './types.js';
import { absoluteHttp } from '../read/metadata.js';
import { parseFeedEntries, type FeedEntry as FeedItem } from '../docs/feed.js';

/** Nested sitemap indexes followed at most this deep: real sites use one level; deeper is a loop or a trap. */
const MAX_INDEX_DEPTH = 3;
/** Sitemaps may be 50 MB uncompressed (sitemaps.org); a gzipped one is capped after decompression too. */
const MAX_SITEMAP_BYTES = 50 * 1024 * 1024;

interface XNode {
  type: string;
  name?: string;
  attribs?: Record<string, string>;
  children?: XNode[];
  data?: string;
}

function parseXml(xml: string): XNode {
  return parseDocument(xml, { xmlMode: true, decodeEntities: true }) as unknown as XNode;
}

/** Local name without a namespace prefix, lower-case ("sm:loc" -> "loc"). */
const local = (n: XNode) => (n.name ?? '').replace(/^.*:/, '').toLowerCase();

function* elements(n: XNode): Generator<XNode> {
  for (const c of n.children ?? []) {
    if (c.type === 'tag') {
      yield c;
      yield* elements(c);
    }
  }
}

function textOf(n: XNode): string {
  let s = '';
  for (const c of n.children ?? []) s += c.type === 'text' || c.type === 'cdata' ? (c.type === 'cdata' ? textOf(c) : (c.data ?? '')) : c.type === 'tag' ? textOf(c) : '';
  return s;
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
    let doc: XNode;
    try {
      doc = parseXml(bodyText(res.body));
    } catch {
      if (depth === 0) throw new Error('the sitemap is neither XML nor gzipped XML');
      return;
    }
    const children: string[] = [];
    for (const el of elements(doc)) {
      const name = local(el);
      if (name !== 'sitemap' && name !== 'url') continue;
      const loc = [...elements(el)].find((c) => local(c) === 'loc');
      const u = loc && absoluteHttp(textOf(loc), res.url);
      if (!u) continue;
      if (name === 'sitemap') children.push(u);
      else if (pages.size < opts.max) pages.add(u);
    }
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
export function feedLinksIn(html: string, baseUrl: string): string[] {
  const doc = parseDocument(html) as unknown as XNode;
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
