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

/** The policy of a daemon listening as configured: one place, so every route and socket checks alike. */
export function originPolicyOf(cfg: { host: string; port: number; allowedHosts: string[]; allowedOrigins: string[] }): OriginPolicy {
  return { listenHost: cfg.host, port: cfg.port, extraHosts: cfg.allowedHosts, extraOrigins: cfg.allowedOrigins };
}

/** The name part of a Host header, lowercased, IPv6 brackets removed. */
export function hostName(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']'));
  return h.split(':')[0];
}

/**
 * A Host a DNS-rebinding page cannot forge: `localhost` or an IP literal (a rebinding attack needs a name that
 * resolves to us, and the browser sends that name). `127.0.0.1.rebind.example` is a name, not a literal.
 */
function isLiteralOrLocalhost(name: string): boolean {
  return name === 'localhost' || isIP(name) !== 0;
}

export function checkHostAndOrigin(p: OriginPolicy, headers: Record<string, string>): string | undefined {
  const host = headers['host'];
  if (host !== undefined) {
    const name = hostName(host);
    if (!isLiteralOrLocalhost(name) && !p.extraHosts.includes(name)) return `Host "${host}" is not one this daemon answers to`;
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
