/**
 * Who a request comes from. The socket's peer, unless that peer is a proxy the admin named (a fleet's HAProxy and
 * desk, BROWSERD_TRUSTED_PROXIES): then the last address of X-Forwarded-For, the one that proxy wrote. Any other
 * peer's X-Forwarded-For is ignored, since any client can write it.
 */
import { isIP } from 'node:net';

/** An IPv4 address written inside IPv6 (`::ffff:a.b.c.d`, or uWS's `0000:...:ffff:7f00:0001`) as IPv4; others as given. */
export function plainAddress(a: string): string {
  const s = a.trim().toLowerCase();
  const dotted = /^(?:[0:]*:)?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (dotted) return dotted[1]!;
  const hex = /^(?:0{1,4}:){5}ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(s);
  if (hex) {
    const n = (parseInt(hex[1]!, 16) << 16) | parseInt(hex[2]!, 16);
    return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
  }
  return s;
}

export function clientAddress(peer: string, forwardedFor: string | undefined, trusted: ReadonlySet<string>): string {
  if (!trusted.size || !forwardedFor || !trusted.has(plainAddress(peer))) return peer;
  const last = forwardedFor.split(',').at(-1)!.trim();
  return isIP(last) ? last : peer;
}
