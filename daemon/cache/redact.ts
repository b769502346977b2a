/**
 * What a response cache may keep of a response: no cookie, no credential, no token. Headers that carry them are
 * dropped, secret-looking query values in the URL replaced (the same way for lookups, so replay still finds the
 * entry), and the user's vault values and filled codes hidden in text bodies.
 */
import { scrubText, SECRET_PARAM } from '../tools/redact.js';
// Response headers never stored: they set or carry credentials (the same names recorded traffic hides).
import { CREDENTIAL_HEADER } from '../traffic/redact.js';

/** The URL a cache entry is stored and looked up under. */
export function cacheUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return raw;
  }
  u.username = '';
  u.password = '';
  u.hash = '';
  for (const k of [...new Set(u.searchParams.keys())]) if (SECRET_PARAM.test(k)) u.searchParams.set(k, 'redacted');
  return u.href;
}

export function cacheHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !CREDENTIAL_HEADER.test(k)));
}

const TEXT_TYPE = /^(text\/|application\/(json|xml|javascript|ecmascript|xhtml\+xml|rss\+xml|atom\+xml|ld\+json|x-www-form-urlencoded)|[^;]*\+(json|xml))/i;

/** The body as stored: text bodies without the user's secrets; other bodies as they are. */
export function cacheBody(body: Buffer, contentType: string | undefined, secretForms: readonly string[]): Buffer {
  if (!secretForms.length || !TEXT_TYPE.test(contentType ?? '')) return body;
  const text = body.toString('utf8');
  const clean = scrubText(text, secretForms);
  return clean === text ? body : Buffer.from(clean, 'utf8');
}
