/**
 * An HTTP(S) request that can connect only to addresses already vetted (vet.ts): Node asks our lookup instead of
 * DNS, and it answers with those addresses alone. A name that resolves elsewhere between the check and the
 * connect (DNS rebinding) reaches nothing new. Used by every request the daemon itself sends to a caller's
 * address: reads without a browser, webhook deliveries.
 */
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';

export function pinnedLookup(addresses: readonly string[]): LookupFunction {
  return (_host, options, cb) => {
    const list = addresses.map((address) => ({ address, family: isIP(address) }));
    if ((options as { all?: boolean }).all) (cb as unknown as (e: null, l: typeof list) => void)(null, list);
    else cb(null, list[0]!.address, list[0]!.family);
  };
}

export function pinnedRequest(u: URL, addresses: readonly string[], opts: { method: string; agent: http.Agent; headers: Record<string, string> }): http.ClientRequest {
  return (u.protocol === 'https:' ? https : http).request({
    protocol: u.protocol,
    hostname: u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port || undefined,
    path: u.pathname + u.search,
    method: opts.method,
    agent: opts.agent,
    lookup: pinnedLookup(addresses),
    headers: opts.headers,
  });
}
