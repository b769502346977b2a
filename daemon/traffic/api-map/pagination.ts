/**
 * How a list endpoint pages, from its own requests in time order:
 *  - cursor: a cursor-like query parameter whose value in one request equals a value of the previous response
 *    (that value's JSON pointer is where the next cursor is read);
 *  - page: a `page` parameter; offset: `offset` or `skip`, with its limit parameter when one is sent;
 *  - next_link: a next-page URL in the body (its JSON pointer) or a Link: rel="next" header.
 */
import LinkHeader from 'http-link-header';
import type { Pagination } from '../../../protocol/api-map.js';
import type { ApiEntry } from './har-input.js';
import { headerValue, parseJson } from './har-input.js';
import { scalars } from './json-pointer.js';

const CURSOR = /^(cursor|after|before|page_?token|next_?token|next_?cursor|starting_?after|continuation(_?token)?|pageToken|nextPageToken)$/i;
const PAGE = /^(page|page_?number|pageNumber|pageNo)$/i;
const OFFSET = /^(offset|skip|start)$/i;
const LIMIT = /^(limit|per_?page|page_?size|pageSize|size|count|take|max_?results)$/i;
const NEXT_KEY = /^(next|next_?url|next_?page(_?url)?|next_?link|nextPageUrl|@odata\.nextLink|nextLink)$/i;

function linkNext(e: ApiEntry): boolean {
  const link = headerValue(e.responseHeaders, 'link');
  if (!link) return false;
  try {
    return LinkHeader.parse(link).rel('next').length > 0;
  } catch {
    return false;
  }
}

function nextInBody(e: ApiEntry): string | undefined {
  const body = parseJson(e.responseBody?.text);
  if (!body) return undefined;
  for (const s of scalars(body)) {
    if (!NEXT_KEY.test(s.key) || s.pointer.split('/').length > 4) continue;
    try {
      const u = new URL(s.value, e.url);
      // A next link is an address (with a slash or a query), not an opaque cursor that happens to parse.
      if (/^(https?:\/\/|\/|\?)/.test(s.value) && (u.search || u.pathname !== e.url.pathname || s.value.startsWith('http'))) return s.pointer;
    } catch {
      // Not an address.
    }
  }
  return undefined;
}

function mostCommon(values: string[]): string | undefined {
  const n = new Map<string, number>();
  for (const v of values) n.set(v, (n.get(v) ?? 0) + 1);
  return [...n.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
}

export function paginationOf(entries: readonly ApiEntry[]): Pagination | undefined {
  const names = new Set(entries.flatMap((e) => e.query.map(([n]) => n)));
  for (const param of [...names].filter((n) => CURSOR.test(n))) {
    for (let i = 1; i < entries.length; i++) {
      const value = entries[i]!.url.searchParams.get(param);
      if (!value) continue;
      const prev = parseJson(entries[i - 1]!.responseBody?.text);
      const hit = prev ? scalars(prev).find((s) => s.value === value) : undefined;
      if (hit) return { style: 'cursor', param, from: hit.pointer };
    }
  }
  const page = [...names].find((n) => PAGE.test(n));
  if (page) {
    const starts = entries.map((e) => Number(e.url.searchParams.get(page))).filter((n) => Number.isInteger(n));
    if (starts.length) return { style: 'page', param: page, start: Math.min(...starts) };
  }
  const offset = [...names].find((n) => OFFSET.test(n) && entries.some((e) => /^\d+$/.test(e.url.searchParams.get(n) ?? '')));
  if (offset) {
    const limitParam = [...names].find((n) => LIMIT.test(n));
    const size = limitParam ? Number(mostCommon(entries.map((e) => e.url.searchParams.get(limitParam) ?? '').filter(Boolean))) : NaN;
    return { style: 'offset', param: offset, ...(limitParam ? { limitParam } : {}), ...(Number.isInteger(size) && size > 0 ? { pageSize: size } : {}) };
  }
  for (const e of entries) {
    const pointer = nextInBody(e);
    if (pointer) return { style: 'next_link', from: pointer };
  }
  if (entries.some(linkNext)) return { style: 'next_link', from: 'header:link' };
  return undefined;
}
