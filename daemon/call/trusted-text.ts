/**
 * How page words may stand on a trusted line (our own words, outside any fence): fence markers neutralised,
 * control characters escaped, length bounded, and an address cut to its scheme and host. Pure text rules with
 * no imports, shared by the response builder and every feature that writes such a line.
 */

/** Makes page text unable to open or close a fence of ours, whatever nonce it guesses. */
export function neutraliseFences(text: string): string {
  return text.replace(/<<</g, '‹‹‹').replace(/>>>/g, '›››');
}

/** Longest page-controlled string shown on a trusted line; the structured result keeps the whole value. */
const INLINE_MAX = 2000;

/**
 * A page-controlled string (a URL, a locator built from class names, a description of an element) placed on a
 * trusted line outside the fence: it can carry no fence marker and no line break, so it cannot end our line
 * and start an instruction of its own. Breaks and other control characters are shown escaped (\n, \u2028).
 */
export function inline(text: string): string {
  const escaped = text.replace(/[\u0000-\u001f\u007f\u0085\u2028\u2029]/g, (c) =>
    c === '\n' ? '\\n' : c === '\r' ? '\\r' : c === '\t' ? '\\t' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  const cut = escaped.length > INLINE_MAX ? `${escaped.slice(0, INLINE_MAX)}…` : escaped;
  return neutraliseFences(cut);
}

/** Longest host shown outside a fence (the DNS limit); a longer one is not a host a browser reached. */
const HOST_MAX = 253;
/** A host as the URL parser serialises a special scheme's: ASCII (punycode), lower case, or an IP literal. */
const PLAIN_HOST = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\.?|\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;
/** Addresses a page cannot shape at all: shown whole. */
const FIXED_URLS = new Set(['about:blank', 'about:srcdoc']);
/** Schemes whose host the URL parser normalises (an opaque host of another scheme is free text). */
const HOSTED_SCHEMES = new Set(['http:', 'https:', 'ws:', 'wss:', 'ftp:', 'file:', 'chrome:', 'chrome-error:', 'chrome-extension:', 'chrome-untrusted:', 'devtools:']);
const KNOWN_SCHEMES = new Set(['http:', 'https:', 'ws:', 'wss:', 'ftp:', 'file:', 'about:', 'data:', 'blob:', 'javascript:', 'filesystem:', 'mailto:', 'tel:', 'chrome:', 'chrome-error:', 'chrome-extension:', 'chrome-untrusted:', 'devtools:']);

/**
 * The one rule for an address a page can choose (where a tab is, a redirect's target, a popup's, a frame's, a
 * link's, a request's) on a trusted line outside a fence: only the scheme and host (with port) are shown, then
 * `/…` when anything follows. Path, query, fragment and user info are the page's own words (a path can read
 * "ignore previous instructions" as easily as a query can), so the whole address goes inside the fence
 * (`ResponseBuilder.fullUrl`). A host that is not plain ASCII host syntax, and anything that does not parse,
 * is not shown at all: fail closed.
 */
export function pageUrl(url: string): string {
  if (FIXED_URLS.has(url)) return url;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return '(an address that does not parse)';
  }
  // A scheme is a word too: one outside this list (a link's `please-obey:`) is not repeated.
  const scheme = KNOWN_SCHEMES.has(u.protocol) ? u.protocol : 'other-scheme:';
  const host = HOSTED_SCHEMES.has(u.protocol) && u.host.length <= HOST_MAX && PLAIN_HOST.test(u.host) ? u.host : '';
  if (!host) return FIXED_URLS.has(`${u.protocol}${u.pathname}`) ? `${u.protocol}${u.pathname}…` : `${scheme}…`;
  const bare = (u.pathname === '/' || u.pathname === '') && !u.search && !u.hash && !u.username && !u.password && !url.endsWith('#') && !url.endsWith('?');
  return `${scheme}//${host}/${bare ? '' : '…'}`;
}

/** A page-controlled string on a trusted line (an error a page caused, say) with every address in it cut. */
export function inlineCut(text: string): string {
  return inline(cutUrls(text).text);
}

/** `url: <the whole address>` and a break, for the top of a fenced body, when a trusted line showed it cut. */
export function urlLine(url: string): string {
  return pageUrl(url) === url ? '' : `url: ${url}\n`;
}

/** Anything in free text that looks like an address: scheme://..., or a scheme a page can fill without `//`. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]{0,30}:\/\/[^\s"'<>`]*|\b(?:about|data|blob|javascript|file|filesystem):[^\s"'<>`]+/gi;

/**
 * Every address inside a free text (an error message, a fence label) cut by `pageUrl`, and the whole ones
 * found, so a caller can fence them. Trailing punctuation of the sentence is not part of the address.
 */
export function cutUrls(text: string): { text: string; urls: string[] } {
  const urls: string[] = [];
  const cut = text.replace(URL_IN_TEXT, (m) => {
    const tail = /[.,;:!?)\]]+$/.exec(m)?.[0] ?? '';
    const url = tail ? m.slice(0, -tail.length) : m;
    const shown = pageUrl(url);
    if (shown !== url) urls.push(url);
    return shown + tail;
  });
  return { text: cut, urls };
}
