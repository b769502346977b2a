/**
 * Following an endpoint's pagination, pure: the items of one response, and the address of the next page by
 * the style the map saw (page number, offset, cursor at a JSON pointer, next link in the body or a Link
 * header), or why there is none.
 */
import { atPointer } from './api-map/json-pointer.js';
import LinkHeader from 'http-link-header';
import type { Pagination } from '../../protocol/api-map.js';

/** The list in a response: a top-level array, a data/items/results array, else the largest top-level array. */
export function itemsOf(body: unknown): unknown[] | undefined {
  if (Array.isArray(body)) return body;
  if (!body || typeof body !== 'object') return undefined;
  const o = body as Record<string, unknown>;
  for (const k of ['data', 'items', 'results']) if (Array.isArray(o[k])) return o[k] as unknown[];
  let best: unknown[] | undefined;
  for (const v of Object.values(o)) if (Array.isArray(v) && (!best || v.length > best.length)) best = v;
  return best;
}

export interface PageSeen {
  url: string;
  /** Parsed JSON body, or undefined when it was not JSON. */
  json: unknown;
  headers: Record<string, string>;
  items: unknown[] | undefined;
}

export type NextPage = { url: string } | { end: string };

/**
 * The next page's address after `page`, or why paging ends naturally. `pageSize` is the size a full page has
 * (the limit asked for, the map's size, or the first page's count): a shorter page is the last.
 */
export function nextPage(p: Pagination, page: PageSeen, pageSize: number | undefined, origin: string): NextPage {
  const count = page.items?.length;
  const u = new URL(page.url);
  switch (p.style) {
    case 'page':
    case 'offset': {
      if (count === undefined) return { end: 'the response holds no list to page through' };
      if (count === 0) return { end: 'an empty page came back (the end of the list)' };
      if (pageSize !== undefined && count < pageSize) return { end: `a short page came back (${count} of ${pageSize}: the end of the list)` };
      const cur = Number(u.searchParams.get(p.param) ?? (p.style === 'page' ? p.start : 0));
      if (!Number.isFinite(cur)) return { end: `${p.param} is not a number, so the next page is not known` };
      u.searchParams.set(p.param, String(p.style === 'page' ? cur + 1 : cur + (pageSize ?? count)));
      return { url: u.href };
    }
    case 'cursor': {
      const next = atPointer(page.json, p.from);
      if (next === undefined || next === null || next === '' || next === false) return { end: `no next cursor at ${p.from} (the end of the list)` };
      if (typeof next !== 'string' && typeof next !== 'number') return { end: `the value at ${p.from} is not a cursor` };
      if (count === 0) return { end: 'an empty page came back (the end of the list)' };
      u.searchParams.set(p.param, String(next));
      return { url: u.href };
    }
    case 'next_link': {
      let link: string | undefined;
      if (p.from === 'header:link') {
        const header = page.headers.link;
        if (header) {
          try {
            link = LinkHeader.parse(header).rel('next')[0]?.uri;
          } catch {
            return { end: 'the Link header does not parse' };
          }
        }
      } else {
        const v = atPointer(page.json, p.from);
        if (typeof v === 'string' && v) link = v;
      }
      if (!link) return { end: `no next link (${p.from === 'header:link' ? 'Link rel="next"' : p.from}): the end of the list` };
      let next: URL;
      try {
        next = new URL(link, page.url);
      } catch {
        return { end: 'the next link is not an address' };
      }
      // A site's list may not send the call (with the user's cookies) somewhere else.
      if (next.origin !== origin) return { end: `the next link leads to another origin (${next.origin}), which is not followed` };
      if (next.href === page.url) return { end: 'the next link points at the same page' };
      return { url: next.href };
    }
  }
}

/** The size of a full page, when the request or the map says it. */
export function pageSizeOf(p: Pagination, firstUrl: string): number | undefined {
  if (p.style !== 'offset') return undefined;
  const asked = p.limitParam ? Number(new URL(firstUrl).searchParams.get(p.limitParam) ?? NaN) : NaN;
  return Number.isFinite(asked) && asked > 0 ? asked : p.pageSize;
}
