/**
 * Whether a message is about the site a code is wanted for. A person's inbox holds codes from many sites at
 * once; filling one site's code into another is at best a failed login and at worst a code the person meant
 * for something else. A message counts when the site's host, its registrable domain (example.com for
 * login.example.com; alice.github.io for itself: the Public Suffix List the vault binds entries with, secrets/site-match.ts)
 * or its brand label ("Example", "alice") appears in the sender, the subject or the text.
 */
import { parseHostAsIp } from '../../net/address.js';
import { siteOf } from '../../secrets/site-match.js';

export interface SiteTerms {
  /** Host names, lower case: the entry name and login host, and their registrable domains. */
  hosts: string[];
  /** The registrable domain's first label ("example"), matched as a whole word; absent when too short to mean anything. */
  brands: string[];
}

/** The host of an entry name or URL ("example.com", "https://login.example.com/x"), or undefined. */
function hostOf(value: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    const host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `https://${value}`).hostname.toLowerCase();
    return host.replace(/^www\./, '') || undefined;
  } catch {
    return undefined;
  }
}

export function siteTerms(site: string, loginUrl?: string): SiteTerms {
  const hosts = new Set<string>();
  const brands = new Set<string>();
  for (const host of [hostOf(site), hostOf(loginUrl)]) {
    if (!host) continue;
    hosts.add(host);
    const reg = siteOf(host);
    hosts.add(reg);
    const brand = reg.split('.')[0]!;
    if (!parseHostAsIp(reg) && reg.includes('.') && brand.length >= 3) brands.add(brand);
  }
  // An entry named by a plain word ("github") is its own brand.
  if (!site.includes('.') && site.length >= 3) brands.add(site.toLowerCase());
  return { hosts: [...hosts], brands: [...brands] };
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** True when the text names the site: a host at a label boundary (not "notexample.com"), or the brand as a word. */
export function mentionsSite(text: string, terms: SiteTerms): boolean {
  const lower = text.toLowerCase();
  for (const host of terms.hosts) {
    // Before: not a label character (so mail.example.com counts, evil-example.com does not). After: not a
    // label character, and not a dot that continues the name (example.com.evil.net).
    if (new RegExp(`(?<![a-z0-9-])${escape(host)}(?![a-z0-9-]|\\.[a-z0-9])`).test(lower)) return true;
  }
  for (const brand of terms.brands) {
    if (new RegExp(`(?<![\\p{L}\\p{N}])${escape(brand)}(?![\\p{L}\\p{N}])`, 'u').test(lower)) return true;
  }
  return false;
}
