/**
 * The address classifier behind the private-network guard.
 *
 * Why our own and not the npm `ip` / `private-ip` packages: both have misclassified exactly the forms an
 * attacker uses (`::ffff:7f00:1`, `0x7f.1`, `2130706433`, NAT64, 6to4) and shipped CVEs for it. Here every
 * input is first reduced to one canonical address (IPv6 forms that carry an IPv4 address are unwrapped to
 * that IPv4 address), and only then matched against `node:net` BlockLists, so there is exactly one place
 * where a range is written down.
 *
 * Fail closed: anything we cannot parse is `reserved`, and in IPv6 everything outside global unicast
 * (2000::/3) that is not named below is `reserved` too.
 */
import { BlockList, isIP } from 'node:net';
import { domainToASCII } from 'node:url';

export type AddressClass = 'public' | 'loopback' | 'private' | 'link_local' | 'unspecified' | 'multicast' | 'reserved';

export interface AllowNetworks {
  /** 127.0.0.0/8 and ::1 (development, tests). */
  loopback?: boolean;
  /** RFC 1918, CGNAT, ULA. Also allows link-local unless `linkLocal` says otherwise. */
  private?: boolean;
  /** 169.254/16 and fe80::/10 (the cloud metadata address lives here). Defaults to `private`. */
  linkLocal?: boolean;
}

type Ranges = [addr: string, prefix: number][];

function blockList(v4: Ranges, v6: Ranges): BlockList {
  const list = new BlockList();
  for (const [a, p] of v4) list.addSubnet(a, p, 'ipv4');
  for (const [a, p] of v6) list.addSubnet(a, p, 'ipv6');
  return list;
}

// Checked in this order; the first list that holds the address names its class.
const CLASSES: [AddressClass, BlockList][] = [
  // 0.0.0.0/8 is "this network": connecting to 0.0.0.0 on Linux reaches the local host.
  ['unspecified', blockList([['0.0.0.0', 8]], [['::', 128]])],
  ['loopback', blockList([['127.0.0.0', 8]], [['::1', 128]])],
  ['link_local', blockList([['169.254.0.0', 16]], [['fe80::', 10]])],
  [
    'private',
    blockList(
      [['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], ['100.64.0.0', 10] /* CGNAT, RFC 6598 */],
      [
        ['fc00::', 7], // unique local
        ['fec0::', 10], // site-local: deprecated, but a stack may still route it locally
        ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): translates into the operator's own network
      ],
    ),
  ],
  ['multicast', blockList([['224.0.0.0', 4]], [['ff00::', 8]])],
  [
    'reserved',
    blockList(
      [
        ['192.0.0.0', 24], // IETF protocol assignments
        ['192.0.2.0', 24], // TEST-NET-1
        ['198.51.100.0', 24], // TEST-NET-2
        ['203.0.113.0', 24], // TEST-NET-3
        ['198.18.0.0', 15], // benchmarking
        ['192.88.99.0', 24], // former 6to4 relay anycast
        ['240.0.0.0', 4], // class E and 255.255.255.255 broadcast
      ],
      [
        ['100::', 64], // discard-only
        ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID, benchmarking, ...)
        ['2001:db8::', 32], // documentation
        ['3fff::', 20], // documentation (RFC 9637)
        ['5f00::', 16], // SRv6 SIDs
      ],
    ),
  ],
];

const GLOBAL_UNICAST_V6 = blockList([], [['2000::', 3]]);

/** 16 bytes of an IPv6 address, or undefined. Accepts a trailing dotted quad (`::ffff:1.2.3.4`). */
function ipv6Bytes(ip: string): Uint8Array | undefined {
  if (isIP(ip) !== 6) return undefined;
  let text = ip;
  const tail: number[] = [];
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad) {
    const q = quad[1]!.split('.').map(Number);
    text = text.slice(0, -quad[1]!.length) + '0:0'; // placeholder hextets, overwritten below
    tail.push(...q);
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = rest ? rest.split(':') : [];
  const fill = rest === undefined ? 0 : 8 - left.length - right.length;
  const hextets = [...left, ...Array<string>(fill).fill('0'), ...right].map((h) => parseInt(h, 16));
  if (hextets.length !== 8 || hextets.some((h) => !(h >= 0 && h <= 0xffff))) return undefined;
  const bytes = new Uint8Array(16);
  hextets.forEach((h, i) => {
    bytes[i * 2] = h >> 8;
    bytes[i * 2 + 1] = h & 0xff;
  });
  if (tail.length) bytes.set(tail, 12);
  return bytes;
}

const v4 = (b: ArrayLike<number>, at: number, invert = false): string =>
  [0, 1, 2, 3].map((i) => (invert ? ~b[at + i]! & 0xff : b[at + i]!)).join('.');

const allZero = (b: Uint8Array, from: number, to: number): boolean => b.subarray(from, to).every((x) => x === 0);

/**
 * The IPv4 address an IPv6 address stands for, when it is one of the forms that reach an IPv4 host:
 * IPv4-mapped (::ffff:a.b.c.d, which WHATWG URL prints as ::ffff:7f00:1), IPv4-translated (::ffff:0:a.b.c.d),
 * IPv4-compatible (::a.b.c.d, deprecated but still parsed), NAT64 (64:ff9b::/96), 6to4 (2002:AABB:CCDD::/48)
 * and the Teredo client (2001:0::/32, stored inverted).
 */
function embeddedIPv4(b: Uint8Array): string | undefined {
  const word = (i: number) => (b[i * 2]! << 8) | b[i * 2 + 1]!;
  if (allZero(b, 0, 10) && word(5) === 0xffff) return v4(b, 12);
  if (allZero(b, 0, 8) && word(4) === 0xffff && word(5) === 0) return v4(b, 12);
  // ::/96 minus :: and ::1, which are their own IPv6 meanings.
  if (allZero(b, 0, 12) && !allZero(b, 12, 15)) return v4(b, 12);
  if (word(0) === 0x64 && word(1) === 0xff9b && allZero(b, 4, 12)) return v4(b, 12);
  if (word(0) === 0x2002) return v4(b, 2);
  if (word(0) === 0x2001 && word(1) === 0) return v4(b, 12, true);
  return undefined;
}

function classifyBytes6(b: Uint8Array, ip: string): AddressClass {
  const inner = embeddedIPv4(b);
  if (inner !== undefined) {
    const cls = classOf(inner, 'ipv4');
    // A tunnel to a public IPv4 host is still reached through a tunnel we do not vet further: for Teredo
    // (inside 2001::/23) that makes it reserved; 6to4 / NAT64 / mapped of a public host are public.
    if (cls !== 'public') return cls;
  }
  const cls = classOf(ip, 'ipv6');
  if (cls !== 'public') return cls;
  if (inner !== undefined) return 'public';
  return GLOBAL_UNICAST_V6.check(ip, 'ipv6') ? 'public' : 'reserved';
}

function classOf(ip: string, family: 'ipv4' | 'ipv6'): AddressClass {
  for (const [cls, list] of CLASSES) if (list.check(ip, family)) return cls;
  return 'public';
}

/** Drops brackets and an IPv6 zone id (`fe80::1%eth0`): the zone does not change what the address is. */
function bare(ip: string): string {
  let s = ip.trim().toLowerCase();
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  const zone = s.indexOf('%');
  if (zone > 0 && s.includes(':')) s = s.slice(0, zone);
  return s;
}

/**
 * The class of one IP address (a literal, not a host name). Anything that is not an IP literal is
 * `reserved`, so a caller that forgets to resolve a name first is refused rather than waved through.
 * Non-canonical IPv4 forms (`127.1`, `0x7f000001`) are understood too, via {@link parseHostAsIp}.
 */
export function classifyAddress(ip: string): AddressClass {
  return classifyKept(ip);
}

function classifyUnkept(ip: string): AddressClass {
  const s = bare(ip);
  const family = isIP(s);
  if (family === 4) return classOf(s, 'ipv4');
  if (family === 6) {
    const bytes = ipv6Bytes(s);
    return bytes ? classifyBytes6(bytes, s) : 'reserved';
  }
  const parsed = parseHostAsIp(s);
  return parsed ? classifyAddress(parsed) : 'reserved';
}

/**
 * Whether a connection to `ip` must be refused. Public addresses pass; loopback, private and link-local pass
 * only when allowed; unspecified, multicast and reserved never pass (no page has a reason to reach them,
 * and 0.0.0.0 is a back door to loopback).
 */
export function isBlockedAddress(ip: string, allow: AllowNetworks = {}): boolean {
  switch (classifyAddress(ip)) {
    case 'public':
      return false;
    case 'loopback':
      return !allow.loopback;
    case 'private':
      return !allow.private;
    case 'link_local':
      return !(allow.linkLocal ?? allow.private);
    default:
      return true;
  }
}

/**
 * The WHATWG URL "IPv4 number parser" for one dotted part: 0x.. is hex, a leading 0 is octal, else decimal.
 * Returns undefined when the part is not a number at all.
 */
function ipv4Number(part: string): number | undefined {
  if (part === '') return undefined;
  let radix = 10;
  let digits = part;
  if (/^0x/i.test(digits)) {
    radix = 16;
    digits = digits.slice(2);
  } else if (digits.length > 1 && digits.startsWith('0')) {
    radix = 8;
    digits = digits.slice(1);
  }
  if (digits === '') return 0; // "0x" alone is 0 in the URL standard
  const ok = radix === 16 ? /^[0-9a-f]+$/i : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/;
  if (!ok.test(digits)) return undefined;
  // Number() keeps precision up to 2^53, far above what an IPv4 part may be; overflow is checked by the caller.
  return radix === 10 ? Number(digits) : parseInt(digits, radix);
}

/**
 * The IPv4 address a browser would make of `host`, following the URL standard: 1 to 4 dotted parts, each
 * decimal, octal (leading 0) or hex (0x), the last part filling the remaining bytes (`127.1`, `2130706433`,
 * `0x7f.1`, `0177.0.0.1`). A single trailing dot is ignored. Undefined when the host is a name.
 */
function parseIPv4Host(host: string): string | undefined {
  const parts = host.split('.');
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length === 0 || parts.length > 4) return undefined;
  const numbers = parts.map(ipv4Number);
  if (numbers.some((n) => n === undefined)) return undefined;
  const nums = numbers as number[];
  const last = nums.pop()!;
  if (nums.some((n) => n > 255)) return undefined;
  if (last >= 256 ** (4 - nums.length)) return undefined;
  let value = last;
  nums.forEach((n, i) => (value += n * 256 ** (3 - i)));
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

/**
 * The IP address `host` denotes if it is an IP literal in any form a browser accepts, else undefined (it is a
 * name to resolve). IPv6 may come bracketed (`[::1]`, as in URLs and CONNECT lines) or bare. Non-ASCII hosts
 * are mapped the way URL parsing maps them first, so full-width digits (`１２７.０.０.１`) count as IPv4 too.
 */
export function parseHostAsIp(host: string): string | undefined {
  return parseHostKept(host);
}

function parseHostUnkept(host: string): string | undefined {
  let s = host.trim();
  if (s.startsWith('[') && s.endsWith(']')) {
    const inner = bare(s);
    return isIP(inner) === 6 ? inner : undefined;
  }
  if (isIP(bare(s)) === 6) return bare(s);
  if (/[^\x00-\x7f]/.test(s)) s = domainToASCII(s);
  if (!s) return undefined;
  return parseIPv4Host(s.toLowerCase());
}

/**
 * Both answers above depend on their input alone, and they are asked about the same few hosts over and over:
 * by the egress proxy for each tunnel it opens, and by the write gate's domain and host rules for each request
 * a page makes; node:net's BlockList, which the ranges are matched with, made each check of a target about 7.5 us. So answers are kept: at most KEPT_ANSWERS of them, for inputs no longer
 * than a host name may be (a longer one is worked out each time), all forgotten at once when the table is full.
 */
const KEPT_ANSWERS = 4096;
const KEPT_INPUT_MAX = 255;

function kept<T>(work: (input: string) => T): (input: string) => T {
  const answers = new Map<string, T>();
  return (input) => {
    if (input.length > KEPT_INPUT_MAX) return work(input);
    if (answers.has(input)) return answers.get(input) as T;
    const answer = work(input);
    if (answers.size >= KEPT_ANSWERS) answers.clear();
    answers.set(input, answer);
    return answer;
  };
}

const classifyKept = kept(classifyUnkept);
const parseHostKept = kept(parseHostUnkept);
