/**
 * What a request carries besides its path: query and header parameters worth knowing, and how it
 * authenticates, by NAME. Credential headers (Authorization, X-Api-Key, session headers), cookies and
 * api_key-like query parameters become auth entries and never parameters, so no value of theirs is kept.
 * CSRF headers stay parameters (a caller must send one; dependencies say where it comes from), their examples
 * redacted like any value.
 */
import type { ApiAuth } from '../../../protocol/api-map.js';
import { CREDENTIAL_HEADER } from '../redact.js';
import type { ApiEntry } from './har-input.js';

/** Query parameters that are keys to the API, not inputs. */
export const AUTH_QUERY = /^(api[_-]?key|apikey|access[_-]?token|auth[_-]?token|auth|key|token|client[_-]?secret)$/i;
const CSRF = /csrf|xsrf/i;

/** Request headers a caller need not know about: the browser or HTTP sets them. */
function standardHeader(name: string): boolean {
  return !/^x-/i.test(name);
}

export type HeaderRole = 'auth' | 'param' | 'skip';

export function headerRole(name: string): HeaderRole {
  if (CSRF.test(name)) return 'param';
  if (CREDENTIAL_HEADER.test(name)) return 'auth';
  return standardHeader(name) ? 'skip' : 'param';
}

export function authOf(e: ApiEntry): ApiAuth[] {
  const out: ApiAuth[] = [];
  for (const [name, value] of e.headers) {
    const n = name.toLowerCase();
    if (n === 'authorization') {
      const scheme = /^(\S+)\s/.exec(value)?.[1]?.toLowerCase();
      out.push({ kind: scheme === 'bearer' ? 'bearer' : scheme === 'basic' ? 'basic' : 'header', name });
    } else if (headerRole(name) === 'auth' && !/^(set-cookie2?|proxy-authenticate|www-authenticate)$/.test(n)) out.push({ kind: 'header', name });
  }
  for (const [name] of e.cookies) if (name) out.push({ kind: 'cookie', name });
  for (const [name] of e.query) if (AUTH_QUERY.test(name)) out.push({ kind: 'query', name });
  return out;
}

export function uniqueAuth(list: ApiAuth[]): ApiAuth[] {
  const seen = new Map<string, ApiAuth>();
  for (const a of list) seen.set(`${a.kind} ${a.kind === 'cookie' || a.kind === 'query' ? a.name : a.name.toLowerCase()}`, a);
  return [...seen.values()].sort((a, b) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name));
}
