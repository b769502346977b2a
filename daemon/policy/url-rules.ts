/**
 * How a host is matched against a domain pattern (allowedDomains, host policy). Whether an agent may open a
 * URL at all is daemon/net/url-check.ts.
 */
import { domainToASCII } from 'node:url';
import { parseHostAsIp } from '../net/address.js';

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
