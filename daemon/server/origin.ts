/**
 * Host and Origin checks for /mcp, /v1 and WebSockets: a page on another origin (or a DNS-rebinding name)
 * must not reach a daemon bound to loopback through the user's own browser (CVE-2025-66414 class).
 */
import { isIP } from 'node:net';

export interface OriginPolicy {
  listenHost: string;
  port: number;
  /** Extra Host names allowed (BROWSERD_ALLOWED_HOSTS, the public URL's host). */
  extraHosts: string[];
  /** Extra browser origins allowed (BROWSERD_ALLOWED_ORIGINS). */
  extraOrigins: string[];
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

function hostName(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  return h.split(':')[0];
}

function isLoopbackBind(host: string) {
  return host === '127.0.0.1' || host === 'localhost' || host === '::1' || host.startsWith('127.');
}

export function checkHostAndOrigin(p: OriginPolicy, headers: Record<string, string>): string | undefined {
  const host = headers['host'];
  if (host) {
    const name = hostName(host);
    const allowed =
      p.extraHosts.includes(name) ||
      (isLoopbackBind(p.listenHost) ? LOOPBACK_NAMES.has(name) || name.startsWith('127.') : true) ||
      (!isLoopbackBind(p.listenHost) && isIP(name.replace(/^\[|\]$/g, '')) !== 0);
    if (!allowed) return `Host "${host}" is not one this daemon answers to`;
  }
  const origin = headers['origin'];
  if (origin && origin !== 'null') {
    let o: URL;
    try {
      o = new URL(origin);
    } catch {
      return `Origin "${origin}" is not a valid origin`;
    }
    const sameAsHost = host && o.host.toLowerCase() === host.toLowerCase();
    if (!sameAsHost && !p.extraOrigins.includes(o.origin)) return `Origin ${o.origin} may not call this daemon`;
  } else if (origin === 'null') {
    return 'an opaque Origin (null) may not call this daemon';
  }
  return undefined;
}
