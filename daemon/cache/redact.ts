/**
 * What a response cache may keep of a response: no cookie, no credential, no token. Headers that carry them are
 * dropped, secret-looking query values in the URL replaced (the same way for lookups, so replay still finds the
 * entry), and the user's vault values and filled codes, in every form (call/secret-forms.ts), hidden in the
 * URL, in header values and in text bodies; a binary body that holds one is not stored at all.
 */
import { holdsSecret, scrubText, SECRET_PARAM } from '../call/redact.js';
// Response headers never stored: they set or carry credentials (the same names recorded traffic hides).
import { CREDENTIAL_HEADER, urlWithoutSecrets } from '../traffic/redact.js';

/**
 * The URL a cache entry is stored and looked up under: `secretForms` (the user's, scrubList) hidden the same
 * way both times, so a replay still finds what was recorded.
 */
export function cacheUrl(raw: string, secretForms: readonly string[] = []): string {
  let u: URL;
  try {
    u = new URL(urlWithoutSecrets(raw, secretForms));
  } catch {
    return scrubText(raw, secretForms);
  }
  u.username = '';
  u.password = '';
  u.hash = '';
  for (const k of [...new Set(u.searchParams.keys())]) if (SECRET_PARAM.test(k)) u.searchParams.set(k, 'redacted');
  return scrubText(u.href, secretForms);
}

/** Credential headers dropped; the others kept with the user's secrets hidden in their values (a page may echo one). */
export function cacheHeaders(headers: Record<string, string>, secretForms: readonly string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !CREDENTIAL_HEADER.test(k)).map(([k, v]) => [k, scrubText(v, secretForms)]));
}

const TEXT_TYPE = /^(text\/|application\/(json|xml|javascript|ecmascript|xhtml\+xml|rss\+xml|atom\+xml|ld\+json|x-www-form-urlencoded)|[^;]*\+(json|xml))/i;

/**
 * The body as stored: text bodies without the user's secrets; other bodies as they are, or undefined (not
 * stored) when their bytes hold a secret, which cannot be cut out of a binary without breaking it.
 */
export function cacheBody(body: Buffer, contentType: string | undefined, secretForms: readonly string[]): Buffer | undefined {
  if (!secretForms.length) return body;
  if (!TEXT_TYPE.test(contentType ?? '')) return [body.toString('utf8'), body.toString('latin1'), body.toString('base64')].some((x) => holdsSecret(x, secretForms)) ? undefined : body;
  const text = body.toString('utf8');
  const clean = scrubText(text, secretForms);
  return clean === text ? body : Buffer.from(clean, 'utf8');
}
