/**
 * The console's own checks, before any page or change: no credential in a URL, posts only from the console's
 * own pages (Origin, else Referer, and Sec-Fetch-Site), a live session from the cookie, and the session's CSRF
 * token in every post. app.ts has already refused foreign Hosts and Origins; these hold even for origins an
 * admin allowed to call the REST API (BROWSERD_ALLOWED_ORIGINS), which have no business posting to the console.
 * The Authorization header is never read here: neither a user token nor the admin key as a bearer opens a page.
 */
import type { Platform } from '../../platform.js';
import { cookies, type Req } from '../../http/exchange.js';
import { csrfMatches, SESSION_COOKIE, type AdminSession, type AdminSessions } from './sessions.js';

/** Query names a key or token would be put under, and the prefixes of our keys and tokens. */
const SECRET_QUERY_NAME = /^(key|admin_?key|token|access_?token|password|secret)$/i;
const SECRET_PREFIX = /^bda?_/;

/** Whether the URL carries something that looks like a credential (refused, not logged, not echoed). */
export function credentialInQuery(r: Req): boolean {
  for (const [k, v] of r.query) if (SECRET_QUERY_NAME.test(k) || SECRET_PREFIX.test(v) || SECRET_PREFIX.test(k)) return true;
  return false;
}

/** The origin of the URL an admin opens the console at: the request's own Host, or the public URL. */
function ownOrigins(env: Platform, r: Req): { hosts: string[]; origins: string[] } {
  const host = (r.headers['host'] ?? '').toLowerCase();
  const origins: string[] = [];
  if (env.cfg.publicUrl) origins.push(new URL(env.cfg.publicUrl).origin);
  return { hosts: host ? [host] : [], origins };
}

function originOf(value: string | undefined): URL | undefined {
  if (!value || value === 'null') return undefined;
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/** Why a post did not come from the console's own pages, or undefined when it did. */
export function crossSiteProblem(env: Platform, r: Req): string | undefined {
  const site = r.headers['sec-fetch-site'];
  if (site && site !== 'same-origin') return `the form was sent from another site (Sec-Fetch-Site: ${site})`;
  const from = originOf(r.headers['origin']) ?? originOf(r.headers['referer']);
  if (!from) return 'the form carries no Origin or Referer, so it cannot be told from a cross-site post';
  const own = ownOrigins(env, r);
  if (own.hosts.includes(from.host.toLowerCase()) || own.origins.includes(from.origin)) return undefined;
  return `the form was sent from ${from.origin}, not from this console`;
}

export function sessionId(r: Req): string | undefined {
  return cookies(r).get(SESSION_COOKIE);
}

export function currentSession(env: Platform, sessions: AdminSessions, r: Req): AdminSession | undefined {
  return sessions.get(sessionId(r), env.users.adminKeyStamp());
}

export { csrfMatches };
