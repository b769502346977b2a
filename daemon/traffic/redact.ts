/**
 * The one redactor for recorded traffic: HAR entries, captured bodies, API maps, their exports, and any HAR a
 * caller gives in (before it is stored or audited). It hides VALUES and keeps NAMES, so a HAR stays a valid,
 * useful HAR: header names, cookie names, query parameter names and JSON keys remain; what they carried
 * becomes `[redacted]`. Hidden: credential headers (Authorization keeps its scheme), every cookie value,
 * secret-looking query parameters, secret-looking keys in JSON and form bodies and in WebSocket/SSE messages,
 * password and CSRF fields, and any vault value or filled code of the user, wherever it appears and whatever
 * the name it is sent under: in any header, body, URL path, query value or fragment, as is or in any of its
 * forms (call/secret-forms.ts: URL- and form-encoded, JSON-escaped, base64 ...). URL parts are also looked
 * at decoded, since Chromium re-encodes what a page puts in a URL in its own way.
 */
import { SECRET_HIDDEN, SECRET_PARAM, holdsSecret, redactUrlWhole, scrubText } from '../call/redact.js';

export const REDACTED = '[redacted]';
/** The secret placeholder as it may stand inside a URL and leave it a valid URI. */
const URL_SAFE_HIDDEN = encodeURIComponent(SECRET_HIDDEN);

/** Header names whose values are credentials (or set them). */
export const CREDENTIAL_HEADER = /^(set-cookie2?|cookie|authorization|proxy-authorization|proxy-authenticate|www-authenticate)$|token|secret|session|csrf|xsrf|api-?key|auth|password/i;

/** Keys in JSON and form bodies whose values are secrets (passwords, tokens, CSRF, card data, codes). */
// `auth` but not `author`; refresh only as a token, not refreshInterval.
export const SECRET_KEY = /pass(word|wd|phrase)?|pwd|secret|token|auth(?!or)|api.?key|session|csrf|xsrf|cookie|otp|totp|pin$|cvv|cvc|card.?number|ssn|private.?key|signature|jwt|bearer|credential/i;

/** Bodies we parse to redact by key; others are scrubbed of vault values only. */
const JSON_TYPE = /^application\/([a-z.+-]*\+)?json|^text\/json/i;
const FORM_TYPE = /^application\/x-www-form-urlencoded/i;
/** Depth walked in a JSON body: deeper values are replaced whole rather than walked. */
const MAX_DEPTH = 64;

/**
 * `raw` with every path segment, query value and fragment that holds one of `forms` (as written or decoded)
 * replaced by the placeholder; names and the rest of the URL kept. Not a URL: returned as it is (the caller
 * still scrubs it as text).
 */
export function urlWithoutSecrets(raw: string, forms: readonly string[]): string {
  if (!forms.length) return raw;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return raw;
  }
  // holdsSecret looks at each part as written and percent-decoded.
  const holds = (s: string) => holdsSecret(s, forms);
  const hidden = encodeURIComponent(SECRET_HIDDEN);
  const segments = u.pathname.split('/');
  if (segments.some(holds)) u.pathname = segments.map((seg) => (holds(seg) ? hidden : seg)).join('/');
  // The query pair by pair as written, each part also read form-decoded (a + as a space); other pairs stay as
  // they were. A value that spans pairs (a raw & in it) shows only in the whole query, which then goes whole.
  const holdsPart = (part: string) => holds(part) || holds(part.replace(/\+/g, ' '));
  const pairs = u.search.slice(1).split('&');
  if (pairs.some(holdsPart)) {
    u.search = pairs
      .map((pair) => {
        const i = pair.indexOf('=');
        if (i < 0) return holdsPart(pair) ? hidden : pair;
        return `${holdsPart(pair.slice(0, i)) ? hidden : pair.slice(0, i)}=${holdsPart(pair.slice(i + 1)) ? hidden : pair.slice(i + 1)}`;
      })
      .join('&');
  }
  if (holds(u.search.slice(1))) u.search = `?${hidden}`;
  if (u.hash && holds(u.hash.slice(1))) u.hash = hidden;
  return u.href;
}

/** Header values that are URLs: checked as URLs (decoded too), not only as text. */
const URL_HEADER = /^(referer|location|content-location|origin)$/i;

export interface TrafficRedactor {
  url(raw: string): string;
  /** Header values hidden by name; names kept. `set-cookie` keeps its attributes (Path, HttpOnly ...). */
  headers(h: Record<string, string>): Record<string, string>;
  header(name: string, value: string): string;
  /** A request or response body by its content type; `[redacted]` placeholders keep JSON valid. */
  body(text: string, contentType: string | undefined): string;
  /** A WebSocket frame or EventSource message: JSON when it parses, else text. */
  message(text: string): string;
  /** Free text (a HAR comment, a value given in): only the user's secrets hidden. */
  text(s: string): string;
}

function cookiePairs(value: string, sep: string): string {
  return value
    .split(sep)
    .map((pair) => {
      const i = pair.indexOf('=');
      return i < 0 ? pair : `${pair.slice(0, i)}=${REDACTED}`;
    })
    .join(sep);
}

function redactJson(v: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH) return REDACTED;
  if (Array.isArray(v)) return v.map((x) => redactJson(x, depth + 1));
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, SECRET_KEY.test(k) && x !== null && typeof x !== 'object' ? REDACTED : redactJson(x, depth + 1)]));
  }
  return v;
}

/** A redactor for one user: `secretForms` are their vault values and filled codes in every form (scrubList). */
export function trafficRedactor(secretForms: readonly string[]): TrafficRedactor {
  const scrub = (s: string) => (secretForms.length ? scrubText(s, secretForms) : s);
  const header = (name: string, value: string): string => {
    const n = name.toLowerCase();
    if (n === 'cookie') return cookiePairs(value, '; ');
    if (n === 'set-cookie' || n === 'set-cookie2') {
      // Each line one cookie: its value hidden, its attributes (Path, Domain, HttpOnly, SameSite ...) kept.
      return value.split('\n').map((line) => {
        const [first, ...attrs] = line.split(';');
        const i = first!.indexOf('=');
        return [i < 0 ? first : `${first!.slice(0, i)}=${REDACTED}`, ...attrs].join(';');
      }).join('\n');
    }
    if (n === 'authorization' || n === 'proxy-authorization') {
      const scheme = /^(\S+)\s+\S/.exec(value)?.[1];
      return scheme ? `${scheme} ${REDACTED}` : REDACTED;
    }
    if (CREDENTIAL_HEADER.test(n)) return REDACTED;
    if (URL_HEADER.test(n)) return scrub(urlWithoutSecrets(value, secretForms));
    return scrub(value);
  };
  const r: TrafficRedactor = {
    url: (raw) => scrub(urlWithoutSecrets(redactUrlWhole(raw) ?? raw, secretForms)).split(SECRET_HIDDEN).join(URL_SAFE_HIDDEN),
    header,
    headers: (h) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, header(k, v)])),
    body(text, contentType) {
      if (JSON_TYPE.test(contentType ?? '') || /^\s*[[{]/.test(text)) {
        try {
          return scrub(JSON.stringify(redactJson(JSON.parse(text), 0)));
        } catch {
          // Not JSON after all: scrubbed as text below.
        }
      }
      if (FORM_TYPE.test(contentType ?? '')) {
        const params = new URLSearchParams(text);
        for (const k of [...new Set(params.keys())]) if (SECRET_KEY.test(k) || SECRET_PARAM.test(k)) params.set(k, REDACTED);
        // Values are looked at decoded as well: a form body need not be encoded the way URLSearchParams does it.
        const kept = [...params].map(([k, v]) => [k, secretForms.length && holdsSecret(v, secretForms) ? SECRET_HIDDEN : v]);
        return scrub(new URLSearchParams(kept).toString());
      }
      return scrub(text);
    },
    message: (text) => r.body(text, undefined),
    text: scrub,
  };
  return r;
}
