/**
 * The one redactor for recorded traffic: HAR entries, captured bodies, API maps, their exports, and any HAR a
 * caller gives in (before it is stored or audited). It hides VALUES and keeps NAMES, so a HAR stays a valid,
 * useful HAR: header names, cookie names, query parameter names and JSON keys remain; what they carried
 * becomes `[redacted]`. Hidden: credential headers (Authorization keeps its scheme), every cookie value,
 * secret-looking query parameters, secret-looking keys in JSON and form bodies and in WebSocket/SSE messages,
 * password and CSRF fields, and any vault value or filled code of the user, wherever it appears.
 */
import { SECRET_HIDDEN, SECRET_PARAM, redactUrlWhole, scrubText } from '../tools/redact.js';

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
    return scrub(value);
  };
  const r: TrafficRedactor = {
    url: (raw) => scrub(redactUrlWhole(raw) ?? raw).split(SECRET_HIDDEN).join(URL_SAFE_HIDDEN),
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
        return scrub(params.toString());
      }
      return scrub(text);
    },
    message: (text) => r.body(text, undefined),
    text: scrub,
  };
  return r;
}
