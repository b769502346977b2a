/**
 * Which pages a vault entry's values may go to: the entry's own host (when its name is a host) and its login
 * URL's host, each with its sub-domains. Matching is by whole labels, so a look-alike (example.com.evil.test,
 * evilexample.com) never matches example.com. Ports and schemes do not matter: a host is the site.
 */
import type { VaultEntryInfo } from '../../storage/vault.js';
import { parseHostAsIp } from '../net/address.js';

const HOSTNAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** A host written as an entry name or a URL host, lower-case, without port or trailing dot; undefined if none. */
export function hostOfName(nameOrUrl: string): string | undefined {
  let h = nameOrUrl.trim().toLowerCase();
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(h)) {
    try {
      h = new URL(h).hostname;
    } catch {
      return undefined;
    }
  } else {
    h = h.replace(/:\d+$/, '');
  }
  h = h.replace(/\.$/, '').replace(/^\[|\]$/g, '');
  if (parseHostAsIp(h) !== undefined) return h;
  return HOSTNAME.test(h) ? h : undefined;
}

/** The hosts an entry is for. */
export function entryHosts(info: Pick<VaultEntryInfo, 'name' | 'loginUrl'>): string[] {
  const hosts = new Set<string>();
  const own = hostOfName(info.name);
  if (own) hosts.add(own);
  const login = info.loginUrl ? hostOfName(info.loginUrl) : undefined;
  if (login) hosts.add(login);
  return [...hosts];
}

/** Whether `host` is one of the entry's hosts or a sub-domain of one. An IP matches only itself. */
export function hostBelongs(host: string, info: Pick<VaultEntryInfo, 'name' | 'loginUrl'>): boolean {
  const h = hostOfName(host);
  if (!h) return false;
  return entryHosts(info).some((base) => h === base || (parseHostAsIp(base) === undefined && base.includes('.') && h.endsWith(`.${base}`)));
}
