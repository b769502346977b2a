/**
 * Which links a crawl follows: allow/deny patterns, same domain, and the key that makes two spellings of one
 * URL one page. Patterns are never regular expressions (a caller's regex can take exponential time): `*` is the
 * only wildcard, everything else literal and case-sensitive. A pattern with `://` is matched against the whole
 * URL, any other against the path and query. Deny wins over allow; start URLs are crawled whatever they say.
 */

/** True when `text` matches `pattern` with `*` as "any run of characters" (whole-string match). */
export function wildcardMatch(pattern: string, text: string): boolean {
  const parts = pattern.split('*');
  if (parts.length === 1) return pattern === text;
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (!text.startsWith(first) || text.length < first.length + last.length || !text.endsWith(last)) return false;
  // Greedy-free left-to-right search: each middle part at its earliest place after the previous one is enough.
  let at = first.length;
  const end = text.length - last.length;
  for (const mid of parts.slice(1, -1)) {
    const i = text.indexOf(mid, at);
    if (i < 0 || i + mid.length > end) return false;
    at = i + mid.length;
  }
  return true;
}

function patternMatches(pattern: string, url: URL): boolean {
  if (!pattern.includes('://')) return wildcardMatch(pattern, url.pathname + url.search);
  // The fragment names no other page (the queue drops it): `/team#bio` is `/team` to a whole-URL pattern too.
  const whole = new URL(url.href);
  whole.hash = '';
  return wildcardMatch(pattern, whole.href);
}

/** allow/deny as a crawl applies them to a discovered link. */
export function passesRules(url: string, allow: readonly string[], deny: readonly string[]): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (deny.some((p) => patternMatches(p, u))) return false;
  return allow.length === 0 || allow.some((p) => patternMatches(p, u));
}

/** A host without a leading `www.` and trailing dot: www.example.com and example.com are one site. */
export function siteHost(hostname: string): string {
  return hostname.toLowerCase().replace(/\.$/, '').replace(/^www\./, '');
}

/** The set of sites a same-domain crawl stays on: the start URLs' and the sitemap's hosts. */
export function crawlSites(urls: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const u of urls) {
    try {
      out.add(siteHost(new URL(u).hostname));
    } catch {
      // Checked addresses only reach here; an unparsable one names no site.
    }
  }
  return out;
}

export function onSites(url: string, sites: ReadonlySet<string>): boolean {
  try {
    return sites.has(siteHost(new URL(url).hostname));
  } catch {
    return false;
  }
}

/** One key per page: fragment dropped, host lower-case, default port dropped (WHATWG URL does both). */
export function pageKey(url: string): string {
  const u = new URL(url);
  u.hash = '';
  return u.href;
}
