/**
 * URL rules for agents: which URLs they may navigate to, how a typed address becomes a URL, and how a host is
 * matched against a domain pattern (allowedDomains, host policy).
 *
 * These checks are about intent and schemes. They are NOT the private-network guard: a URL check before
 * navigation cannot see what a name resolves to, redirects or sub-resources; egress-proxy.ts does that.
 */
import { domainToASCII } from 'node:url';
import { BrowserdError, type ErrorCode } from '../../protocol/errors.js';
import { parseHostAsIp } from './address.js';

export type UrlCheck = { ok: true; url: string } | { ok: false; code: ErrorCode; message: string };

const ACCEPTED = 'Accepted: an http(s) URL (https://example.com/page), a host name (example.com means https://example.com/), or host:port (localhost:3000 means http://localhost:3000/).';

// Schemes that reach into the browser itself or the machine (file:, chrome:, devtools:), run code in the
// current page (javascript:), or build a page from the agent's own text (data:, which is how phishing
// lookalikes get drawn). Named so the refusal can say which one it was.
const REFUSED_SCHEMES = new Set([
  'file:', 'chrome:', 'chrome-extension:', 'chrome-untrusted:', 'chrome-search:', 'devtools:', 'view-source:',
  'javascript:', 'data:', 'blob:', 'filesystem:', 'about:',
]);

/**
 * Whether an agent may navigate to `url`. Only http(s) and about:blank pass. Unparseable input is a
 * validation_error; a well-formed URL with another scheme is `refused` and says what is accepted.
 */
export function checkAgentUrl(url: string): UrlCheck {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return { ok: false, code: 'validation_error', message: `not a URL: ${JSON.stringify(url)}. ${ACCEPTED}` };
  }
  if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return { ok: true, url: parsed.href };
  // about:blank is the empty page a new tab starts on; nothing else under about: is for agents.
  if (parsed.protocol === 'about:' && parsed.pathname === 'blank') return { ok: true, url: 'about:blank' };
  const scheme = parsed.protocol;
  const what = REFUSED_SCHEMES.has(scheme) ? `${scheme} URLs are not available to agents` : `the ${scheme} scheme is not supported`;
  return { ok: false, code: 'refused', message: `${what}. Only http(s) addresses and about:blank can be opened.` };
}

/**
 * True when `host` (already a URL hostname) should get http by default: loopback names, IP literals and
 * single-label names (`intranet:8080`, a container name): development servers there rarely speak TLS.
 */
function defaultsToHttp(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost') || !hostname.includes('.') || parseHostAsIp(hostname) !== undefined;
}

/**
 * Turns what a person or model typed into a URL: `example.com` -> `https://example.com/`, `localhost:3000` ->
 * `http://localhost:3000/`, `127.0.0.1:8080/x` -> `http://127.0.0.1:8080/x` (loopback and IP literals rarely
 * speak TLS), `//example.com` -> https. An explicit scheme is kept as it is (checkAgentUrl decides about it).
 * Throws validation_error for empty input, text with spaces, and a bare word that looks like a search.
 */
export function normaliseUserUrl(input: string): string {
  const s = String(input ?? '').trim();
  const bad = (why: string): never => {
    throw new BrowserdError('validation_error', `${why}. ${ACCEPTED}`, { next: 'Give a full address such as https://example.com/.' });
  };
  if (!s) bad('the URL is empty');
  // "scheme:" that is not "host:port": the text after the colon is not just a port number.
  const scheme = /^([a-z][a-z0-9+.-]*):(.*)$/is.exec(s);
  if (scheme && !/^\d+(?:[/?#]|$)/.test(scheme[2]!)) {
    try {
      return new URL(s).href;
    } catch {
      return bad(`not a URL: ${JSON.stringify(s)}`);
    }
  }
  if (/\s/.test(s)) bad(`${JSON.stringify(s)} has spaces, so it is not an address`);
  const rest = s.startsWith('//') ? s.slice(2) : s;
  let probe: URL;
  try {
    probe = new URL(`http://${rest}`);
  } catch {
    return bad(`not a URL: ${JSON.stringify(s)}`);
  }
  const host = probe.hostname;
  if (!host) bad(`no host name in ${JSON.stringify(s)}`);
  // A single word without a port is far more often a search term than an intranet host.
  if (host !== 'localhost' && !host.includes('.') && !host.startsWith('[') && !probe.port) bad(`${JSON.stringify(s)} is a single word, not an address`);
  return new URL(`${defaultsToHttp(host) ? 'http' : 'https'}://${rest}`).href;
}

/**
 * One canonical form for host names and patterns: lower case, no trailing dot, IDN as punycode (the form URL
 * hostnames use), IP literals in their canonical form (so `2130706433` and `127.0.0.1` are the same host).
 * A pattern pasted as a URL or with a port is reduced to its host.
 */
export function normaliseHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.includes('://')) {
    try {
      h = new URL(h).hostname;
    } catch {
      // keep as typed; it simply will not match anything
    }
  }
  if (h.startsWith('[')) h = h.slice(1, h.indexOf(']') > 0 ? h.indexOf(']') : undefined);
  else if (/^[^:]+:\d+$/.test(h)) h = h.slice(0, h.lastIndexOf(':'));
  if (h.endsWith('.')) h = h.slice(0, -1);
  const ip = parseHostAsIp(h);
  if (ip) return ip;
  if (/[^\x00-\x7f]/.test(h)) h = domainToASCII(h) || h;
  return h;
}

/**
 * Whether `host` matches a domain `pattern`: `example.com` matches example.com and every sub-domain;
 * `*.example.com` only sub-domains; `*` everything. IP literal patterns match only that address.
 * Case, a trailing dot and Unicode vs punycode spelling do not matter.
 */
export function hostMatches(host: string, pattern: string): boolean {
  const h = normaliseHost(host);
  const p = pattern.trim();
  if (!h) return false;
  if (p === '*') return true;
  if (p.startsWith('*.')) {
    const base = normaliseHost(p.slice(2));
    return base !== '' && h.endsWith(`.${base}`);
  }
  const base = normaliseHost(p);
  if (!base) return false;
  if (h === base) return true;
  // No "sub-domains" of an IP address: 1.127.0.0.1 is not a host under 127.0.0.1.
  return parseHostAsIp(base) === undefined && h.endsWith(`.${base}`);
}

/**
 * Whether a tab limited to `allowedDomains` may go to `url`. Undefined means no limit. An empty list allows
 * nothing but about:blank: a list that filtered down to nothing must not quietly mean "everywhere" (callers
 * that mean "no limit" pass undefined). blob: URLs count as their origin; other non-web schemes never pass.
 */
export function allowedByDomains(url: string, allowedDomains: string[] | undefined): boolean {
  if (allowedDomains === undefined) return true;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol === 'about:') return parsed.pathname === 'blank' || parsed.pathname === 'srcdoc';
  if (parsed.protocol === 'blob:') {
    try {
      parsed = new URL(parsed.pathname);
    } catch {
      return false;
    }
  }
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(parsed.protocol)) return false;
  return allowedDomains.some((pattern) => hostMatches(parsed.hostname, pattern));
}
