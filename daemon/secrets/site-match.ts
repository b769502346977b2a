/**
 * Which pages a vault entry's values may go to, and which login URLs an entry may be given: the one place that
 * decides both, so a value can only ever reach the site it was stored for.
 *
 * An entry is bound to one site root, a host:
 *   - an entry named after a host (`example.com`, `accounts.example.co.uk`) is bound to that host;
 *   - an entry named after an IP address is bound to that address alone;
 *   - an entry whose name is not a host (`My_Bank:personal`, or one label such as `shop`) is bound to the host
 *     of the login URL it was created with, for good: that URL may later change its path, never its host.
 * A page belongs to the entry when its host is the root, or a sub-domain of the root inside the same registrable
 * domain (Public Suffix List, private section included): `www.example.co.uk` belongs to `example.co.uk`, but
 * `evil.s3.amazonaws.com` (its own registrable domain) does not belong to `amazonaws.com`. A name that is
 * itself a public suffix (`co.uk`, `github.io`, `blogspot.com`) is shared by many owners: it is refused as an
 * entry name and, should one exist, matches nothing. A login URL adds no host: it must lie on the entry's site.
 * Matching is by whole labels on lower-case ASCII (IDN hosts in their punycode form), without port or trailing
 * dot; schemes and ports do not matter.
 */
import { domainToASCII, domainToUnicode } from 'node:url';
import { getPublicSuffix } from 'tldts';
import type { VaultEntryInfo } from '../../storage/vault.js';
import { BrowserdError } from '../../protocol/errors.js';
import { parseHostAsIp } from '../net/address.js';

const HOSTNAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

type EntryRef = Pick<VaultEntryInfo, 'name' | 'loginUrl'>;

/** A host written as an entry name or a URL host: lower-case ASCII (an IP in canonical form), no port or trailing dot; undefined if none. */
export function hostOfName(nameOrUrl: string): string | undefined {
  let h = nameOrUrl.trim().toLowerCase();
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(h)) {
    try {
      h = new URL(h).hostname;
    } catch {
      return undefined;
    }
  } else if (parseHostAsIp(h) === undefined) {
    h = h.replace(/:\d+$/, '');
  }
  h = h.replace(/\.$/, '');
  const ip = parseHostAsIp(h);
  if (ip !== undefined) return ip.includes(':') ? new URL(`http://[${ip}]/`).hostname.slice(1, -1) : ip;
  if (/[^\x00-\x7f]/.test(h)) h = domainToASCII(h);
  return HOSTNAME.test(h) ? h : undefined;
}

/** How many labels of an ASCII host are its public suffix, by the list's ASCII and Unicode rules alike. */
function suffixLabels(host: string): number {
  const count = (h: string) => (getPublicSuffix(h, { allowPrivateDomains: true }) ?? '').split('.').filter(Boolean).length;
  const unicode = host.includes('xn--') ? domainToUnicode(host) : '';
  return Math.max(count(host), unicode ? count(unicode) : 0, 1);
}

/** The registrable domain of an ASCII host (eTLD+1), or undefined when the host is a public suffix itself. */
export function registrableDomain(host: string): string | undefined {
  const labels = host.split('.');
  const n = suffixLabels(host);
  return labels.length > n ? labels.slice(-(n + 1)).join('.') : undefined;
}

/**
 * The site a host is on, for telling sites apart (which documents may reach each other, which messages are about
 * a site): its registrable domain by the list above. An address is its own site, and so is a single label
 * (localhost, an intranet name) or a host that is a public suffix itself (nobody else's site is under it).
 */
export function siteOf(host: string): string {
  const h = host.toLowerCase().replace(/\.$/, '');
  if (parseHostAsIp(h) !== undefined || !h.includes('.')) return h;
  return registrableDomain(h) ?? h;
}

/** How an entry name reads: an address, a host under a registrable domain, a public suffix, or a plain label. */
export function nameKind(name: string): 'ip' | 'host' | 'public_suffix' | 'label' {
  const host = hostOfName(name);
  if (host === undefined) return 'label';
  if (parseHostAsIp(host) !== undefined) return 'ip';
  if (!host.includes('.')) return 'label';
  return registrableDomain(host) ? 'host' : 'public_suffix';
}

/**
 * The host a URL's host may be a site root as: an IP, a host under a registrable domain, or a single label
 * (`localhost`, an intranet name), which then matches only itself. A public suffix of two labels or more is none.
 */
function rootOfHost(host: string | undefined): string | undefined {
  if (!host) return undefined;
  if (parseHostAsIp(host) !== undefined || !host.includes('.')) return host;
  return registrableDomain(host) ? host : undefined;
}

/** The host the entry is bound to (see the top of this file); undefined when it may be filled nowhere. */
export function entrySite(info: EntryRef): string | undefined {
  const kind = nameKind(info.name);
  if (kind === 'ip' || kind === 'host') return hostOfName(info.name);
  if (kind === 'public_suffix') return undefined;
  return info.loginUrl ? rootOfHost(hostOfName(info.loginUrl)) : undefined;
}

/** The hosts an entry is for (its site root, or none), for messages. */
export function entryHosts(info: EntryRef): string[] {
  const root = entrySite(info);
  return root ? [root] : [];
}

/** Whether `host` belongs to the host `root`: the root itself, or its sub-domain inside the same registrable domain. */
function underRoot(host: string, root: string): boolean {
  if (host === root) return true;
  // An IP has no sub-domains, and a single label (localhost) is no one's parent.
  if (parseHostAsIp(root) !== undefined || !root.includes('.') || !host.endsWith(`.${root}`)) return false;
  // A deeper public suffix (s3.amazonaws.com under amazonaws.com) starts someone else's site.
  return registrableDomain(host) === registrableDomain(root);
}

/** Whether a page on `host` may receive the entry's values. */
export function hostBelongs(host: string, info: EntryRef): boolean {
  const h = hostOfName(host);
  const root = entrySite(info);
  return !!h && !!root && underRoot(h, root);
}

/** Words naming an entry's site, for refusals. */
export function siteWords(root: string): string {
  return parseHostAsIp(root) !== undefined || !root.includes('.') ? root : `${root} and its sub-domains`;
}

/** The host of an absolute http(s) URL, normalised as hostOfName does; undefined for anything else. */
function httpHost(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? hostOfName(u.hostname) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Throws unless a login entry named `name` may be written with this login URL: every way an entry is written
 * (REST, the CLI through REST, the store itself) passes here before anything changes. `prev` is the entry as
 * stored, if it exists; `loginUrl` the URL being set, if any (anything but an absolute http(s) URL is refused).
 */
export function checkLoginEntryWrite(name: string, prev: { loginUrl?: string; fields: string[] } | undefined, loginUrl: string | undefined): void {
  const kind = nameKind(name);
  if (kind === 'public_suffix') {
    throw new BrowserdError('validation_error', `"${hostOfName(name)}" is a public suffix, shared by many owners' sites: a vault entry cannot be named after it`, {
      next: 'Name the entry after the site\'s own host, e.g. "yourname.github.io" or "example.co.uk".',
    });
  }
  const newHost = loginUrl === undefined ? undefined : httpHost(loginUrl);
  if (loginUrl !== undefined && !newHost) {
    throw new BrowserdError('validation_error', 'loginUrl has no host a vault entry can be bound to', { next: 'Send the http(s) page where you sign in, e.g. "https://github.com/login".' });
  }
  if (kind === 'ip' || kind === 'host') {
    const root = hostOfName(name)!;
    if (newHost && !underRoot(newHost, root)) {
      throw new BrowserdError('refused', `loginUrl is on ${newHost}, off the site of vault entry ${name} (${siteWords(root)}); nothing was changed`, {
        next: `Give a login URL on ${siteWords(root)}. A sign-in on another site needs its own entry, named after that site's host.`,
      });
    }
    return;
  }
  // A name that is no host: the entry is bound to the host of the login URL it was created with.
  const bound = prev?.loginUrl ? hostOfName(prev.loginUrl) : undefined;
  if (!prev && !newHost) {
    throw new BrowserdError('validation_error', `vault entry ${name} is not named after a host, so it needs a loginUrl when it is created: the entry is bound to that URL's host for good`, {
      next: `Send {"loginUrl": "https://<site>/login", "fields": {...}}, or name the entry after the site's host (e.g. "github.com").`,
    });
  }
  if (!newHost) return;
  if (!rootOfHost(newHost)) {
    throw new BrowserdError('validation_error', `loginUrl is on ${newHost}, a public suffix shared by many owners' sites: a vault entry cannot be bound to it`, { next: 'Give the sign-in page on the site\'s own host.' });
  }
  if (bound && newHost !== bound) {
    throw new BrowserdError('refused', `loginUrl is on ${newHost}, but vault entry ${name} is bound to ${bound} (the host of the login URL it was created with); nothing was changed`, {
      next: `Give a login URL on ${bound}. For another site, delete the entry (its values go with it) and create it again, or make a new entry named after that site's host.`,
    });
  }
  if (prev && !bound && prev.fields.length) {
    throw new BrowserdError('refused', `vault entry ${name} holds values stored without a site; they cannot be bound to ${newHost} afterwards; nothing was changed`, {
      next: 'Delete the entry (its values go with it) and create it again with its loginUrl and fields in one request, or name the entry after the site\'s host.',
    });
  }
}
