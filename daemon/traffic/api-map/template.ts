/**
 * Path templates: which segments are ids. A segment is an id when it looks like one (a number, a UUID, long hex
 * or base64-ish), or when it varies across requests of the same shape at the same position while its
 * neighbours stay equal (/users/alice/orders, /users/bob/orders). A LAST segment that varies is an id only when
 * it holds a digit or the responses have the same JSON keys: /api/items and /api/csrf are two endpoints, not one.
 */
import type { ApiEntry } from './har-input.js';
import { parseJson } from './har-input.js';

const NUMERIC = /^\d+$/;
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const LONG_HEX = /^[0-9a-f]{16,}$/i;
const BASE64ISH = /^[A-Za-z0-9_-]{20,}={0,2}$/;

export function looksLikeId(seg: string): boolean {
  if (NUMERIC.test(seg) || UUID.test(seg) || LONG_HEX.test(seg)) return true;
  // Long, mixed letters and digits: a slug like "getting-started-with-the-api" has no digit, so it stays.
  return BASE64ISH.test(seg) && /\d/.test(seg) && /[A-Za-z]/.test(seg);
}

const ID = '\u0000';

function topKeys(e: ApiEntry): string | undefined {
  const j = parseJson(e.responseBody?.text);
  return j && typeof j === 'object' && !Array.isArray(j) ? Object.keys(j).sort().join(',') : undefined;
}

/**
 * For each entry, which of its segment positions are ids. Entries are compared within the same origin and
 * segment count, so templates never cross hosts.
 */
export function idPositions(entries: readonly ApiEntry[]): Map<ApiEntry, Set<number>> {
  const out = new Map<ApiEntry, Set<number>>();
  const groups = new Map<string, ApiEntry[]>();
  for (const e of entries) {
    out.set(e, new Set(e.segments.flatMap((s, i) => (looksLikeId(s) ? [i] : []))));
    const k = `${e.kind} ${e.url.origin} ${e.segments.length}`;
    groups.set(k, [...(groups.get(k) ?? []), e]);
  }
  for (const group of groups.values()) {
    const n = group[0]!.segments.length;
    for (let i = 0; i < n; i++) {
      // Shapes with position i blanked: entries in one bucket differ at most at i (ids already blanked).
      const buckets = new Map<string, ApiEntry[]>();
      for (const e of group) {
        const ids = out.get(e)!;
        const shape = e.segments.map((s, j) => (j === i ? ID : ids.has(j) ? ID : s)).join('/');
        buckets.set(shape, [...(buckets.get(shape) ?? []), e]);
      }
      for (const bucket of buckets.values()) {
        const values = new Set(bucket.map((e) => e.segments[i]));
        if (values.size < 2) continue;
        const last = i === n - 1;
        if (last) {
          const digits = [...values].every((v) => /\d/.test(v!));
          const keys = new Set(bucket.map(topKeys));
          const sameShape = keys.size === 1 && [...keys][0] !== undefined && [...keys][0] !== '';
          const sameMethod = new Set(bucket.map((e) => e.method)).size === 1;
          if (!sameMethod || !(digits || sameShape)) continue;
        }
        // A position needs a neighbour that is a name: /{x} alone is no template of anything.
        if (n === 1) continue;
        for (const e of bucket) out.get(e)!.add(i);
      }
    }
  }
  return out;
}

/** The template (/items/{id}/parts/{id2}) and which segment each path parameter came from. */
export function templateOf(e: ApiEntry, ids: Set<number>): { path: string; params: { name: string; index: number }[] } {
  const params: { name: string; index: number }[] = [];
  const segs = e.segments.map((s, i) => {
    if (!ids.has(i)) return encodeURIComponent(s).replace(/%40/g, '@').replace(/%3A/gi, ':');
    const name = params.length ? `id${params.length + 1}` : 'id';
    params.push({ name, index: i });
    return `{${name}}`;
  });
  return { path: `/${segs.join('/')}${e.url.pathname.endsWith('/') && segs.length ? '/' : ''}`, params };
}
