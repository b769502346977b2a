/**
 * The private-network check, done where a connection is made: resolve a name once, check EVERY address it has,
 * and hand back the checked addresses so the caller connects to one of them (never to the name, which a second
 * lookup could answer differently: DNS rebinding). The egress proxy (browsers' traffic), the daemon's own page
 * fetches (crawls, robots.txt, sitemaps) and mailbox connections all go through this one function.
 */
import os from 'node:os';
import { promises as dns } from 'node:dns';
import { classifyAddress, isBlockedAddress, parseHostAsIp, type AddressClass } from './address.js';

export interface VetGuard {
  /** BROWSERD_ALLOW_PRIVATE_NETWORK: loopback, private and link-local targets become reachable. */
  allowPrivateNetwork: boolean;
  /** Exact "address:port" pairs allowed although private (BROWSERD_ALLOW_TARGETS, "[::1]:3000" for IPv6). */
  allowTargets?: Iterable<string>;
  /** Ports on this machine nothing may reach, even with private networks allowed (the daemon's own). */
  deniedPorts?: () => Set<number>;
  /** Name resolution; tests map names to loopback without DNS. Default: every address dns.lookup gives. */
  lookup?: (host: string) => Promise<{ address: string }[]>;
}

export type VetFailure = 'malformed' | 'unresolved' | 'blocked_address' | 'reserved_port';

/** A target the guard refused: which address, of what class, and why. */
export class VetRefusal extends Error {
  constructor(
    readonly kind: VetFailure,
    readonly host: string,
    readonly port: number,
    readonly reason: string,
    readonly address?: string,
    readonly addressClass?: AddressClass,
  ) {
    super(reason);
  }
}

// `verbatim` keeps the resolver's own order rather than whatever default some library set for the process.
const defaultLookup = (host: string) => dns.lookup(host, { all: true, verbatim: true });

/** Addresses of this machine's interfaces: a denied port is denied on them too, not only on 127.0.0.1. */
function localAddresses(): Set<string> {
  const set = new Set<string>();
  for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) set.add(a.address.toLowerCase());
  return set;
}

/** Every address `host` resolves to, each checked; throws VetRefusal when any one may not be reached. */
export async function vetTarget(host: string, port: number, guard: VetGuard): Promise<string[]> {
  if (!host || !Number.isInteger(port) || port < 1 || port > 65535) throw new VetRefusal('malformed', host, port, 'malformed target');
  const literal = parseHostAsIp(host);
  let addresses: string[];
  if (literal) addresses = [literal];
  // RFC 6761: localhost names are loopback whatever a resolver says (Chromium treats them so too).
  else if (/^(.+\.)?localhost\.?$/i.test(host)) addresses = ['127.0.0.1', '::1'];
  else {
    try {
      addresses = (await (guard.lookup ?? defaultLookup)(host)).map((a) => a.address);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) throw new VetRefusal('unresolved', host, port, 'name did not resolve');
  }
  const allow = guard.allowPrivateNetwork ? { loopback: true, private: true } : {};
  const allowTargets = new Set(guard.allowTargets ?? []);
  const reserved = guard.deniedPorts?.().has(port);
  const local = reserved ? localAddresses() : undefined;
  for (const address of addresses) {
    const cls = classifyAddress(address);
    const pair = address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
    if (isBlockedAddress(address, allow) && !allowTargets.has(pair)) throw new VetRefusal('blocked_address', host, port, `${cls} address`, address, cls);
    if (local && (cls === 'loopback' || cls === 'unspecified' || local.has(address.toLowerCase()))) {
      throw new VetRefusal('reserved_port', host, port, 'port reserved for the daemon and its browsers', address, cls);
    }
  }
  return addresses;
}
