/**
 * Arguments as they may be stored in the audit log. An allow-list: an argument is kept only when it is named
 * here as safe. URLs lose credentials and secret-looking query values; what a user types, the keys pressed and
 * the code evaluated are kept by length and hash only; anything not named is replaced by its type. Only the
 * known shapes are walked (never an arbitrary depth), so a body nested 10,000 deep costs nothing here.
 */
import { createHash } from 'node:crypto';
import { lenientDecode, secretForms } from './secret-forms.js';
import { own } from '../../protocol/own.js';

/** Longest kept string: an audit line is a record, not a copy of the request. */
const MAX_KEPT = 300;
const MAX_ITEMS = 50;

/** Scalars that say how a tool ran, never what a user wrote: ids, refs, modes, sizes, switches. */
const SAFE = new Set([
  'action', 'amount', 'attr', 'background', 'button', 'clear', 'context', 'css', 'deviceScaleFactor', 'direction', 'doubleClick',
  'failedOnly', 'file', 'filter', 'flags', 'format', 'fromRef', 'fromX', 'fromY', 'fullPage', 'gone', 'height', 'includeHidden', 'kind',
  'landscape', 'language', 'limit', 'live', 'marginMm', 'maxChars', 'mode', 'name', 'pageRanges', 'paper', 'profile', 'quality', 'ref',
  'regex', 'scale', 'scope', 'selector', 'slowly', 'steps', 'submit', 'tab', 'timeMs', 'timeoutMs', 'to', 'toRef', 'toX', 'toY', 'topK',
  'type', 'visible', 'width', 'x', 'xpath', 'y', 'allowedDomains', 'converter', 'store', 'sheet', 'as', 'maxBodies', 'maxBytes', 'captured', 'maxEntries', 'maxBodyBytes', 'bodies', 'access',
  'capture', 'frame', 'endX', 'endY',
]);

/**
 * Text kept by its length alone, not even a hash: a CAPTCHA answer is short enough that a hash of it would
 * give it away to anyone who tries the few candidates.
 */
const LENGTH_ONLY: Record<string, ReadonlySet<string>> = { browser_captcha_act: new Set(['text']) };

/** The arguments with every length-only field of that tool replaced by its length (recordings keep steps so too). */
export function lengthOnlyArgs(tool: string, args: Record<string, unknown>): Record<string, unknown> {
  const fields = own(LENGTH_ONLY, tool);
  if (!fields) return args;
  return Object.fromEntries(Object.entries(args).map(([k, v]) => [k, fields.has(k) ? lengthOnly(v) : v]));
}

/** A value shown by its length alone. */
const lengthOnly = (v: unknown) => (typeof v === 'string' ? `[${v.length} chars]` : `[${typeOf(v)}]`);

/** Arguments that are URLs: kept without credentials and secret values. */
const URLS = new Set(['url', 'urls']);

/** Free text a user or agent supplies (typed text, filled values, code, search queries): length and hash only. */
const TEXT = new Set(['text', 'value', 'js', 'query', 'values']);

/** Query parameter names whose values are secrets often enough that none is kept. */
export const SECRET_PARAM = /pass|pwd|secret|token|auth|key|sig|session|sid|code|otp|jwt|cred|ticket|nonce|state|saml|bearer|cookie/i;

/** Key names browser_press may send that reveal nothing typed: named keys and chords. */
const NAMED_KEY = /^(?:(?:Control|Shift|Alt|Meta)\+)*(?:Enter|Tab|Escape|Backspace|Delete|Space|Home|End|PageUp|PageDown|Insert|Arrow(?:Up|Down|Left|Right)|F\d{1,2}|Control|Shift|Alt|Meta)$/;
/** A shortcut such as Control+A: with Control, Alt or Meta held a character is a command, not text typed. */
const SHORTCUT = /^(?:(?:Control|Shift|Alt|Meta)\+)*(?:Control|Alt|Meta)\+(?:(?:Control|Shift|Alt|Meta)\+)*[A-Za-z0-9]$/;

/** What replaces a vault value or filled code wherever output would have carried it. */
export const SECRET_HIDDEN = '[secret hidden]';
/** What the audit stores for an argument that holds a secret: not even a hash, which would confirm a guess. */
export const SECRET_ARG = '[secret]';
/**
 * Shorter values are not scrubbed: a one- or two-character "secret" occurs in nearly every text, and
 * hiding it everywhere would garble every result while protecting nothing.
 */
export const MIN_SECRET_CHARS = 3;

// The forms of a value (escaped, URL- and form-encoded, base64 ...) are listed in one place, call/secret-forms.ts.
export { secretForms } from './secret-forms.js';

/** Every form of every value worth scrubbing, longest first so a value containing another is hidden whole. */
export function scrubList(values: Iterable<string>): string[] {
  const all = new Set<string>();
  for (const v of values) if (v.length >= MIN_SECRET_CHARS) for (const f of secretForms(v)) all.add(f);
  return [...all].sort((a, b) => b.length - a.length);
}

/**
 * A value made only of digits (a one-time code, a PIN) counts only as a whole number: 482913 inside the
 * timestamp 1795468482913 is not the code, and hiding it there would garble times and ids (and break the JSON
 * of a log line) while protecting nothing.
 */
const wholeNumber = (digits: string) => new RegExp(`(?<![0-9])${digits}(?![0-9])`, 'g');
const isDigits = (f: string) => /^[0-9]+$/.test(f);

/** `text` with every listed form (from scrubList) replaced by SECRET_HIDDEN. */
export function scrubText(text: string, forms: readonly string[]): string {
  let out = text;
  for (const f of forms) {
    if (!out.includes(f)) continue;
    out = isDigits(f) ? out.replace(wholeNumber(f), SECRET_HIDDEN) : out.split(f).join(SECRET_HIDDEN);
  }
  return out;
}

/**
 * Every string in a value (object keys too) with the secrets hidden; walked to a bounded depth, so a secret
 * like `":"` cannot break JSON and a deep value costs nothing. Tool answers get this from the response builder;
 * what leaves by other ways (exports, stored crawl items) calls it itself.
 */
export function scrubDeep<T>(value: T, forms: readonly string[], depth = 0): T {
  if (!forms.length) return value;
  if (typeof value === 'string') return scrubText(value, forms) as T;
  if (!value || typeof value !== 'object' || depth > 64) return value;
  if (Array.isArray(value)) return value.map((x) => scrubDeep(x, forms, depth + 1)) as T;
  return Object.fromEntries(Object.entries(value).map(([k, x]) => [scrubText(k, forms), scrubDeep(x, forms, depth + 1)])) as T;
}

/** Whether `text` holds a form of a secret, as written or percent-decoded (call/secret-forms.ts lenientDecode). */
export function holdsSecret(text: string, forms: readonly string[]): boolean {
  const holds = (s: string) => forms.some((f) => s.includes(f) && (!isDigits(f) || wholeNumber(f).test(s)));
  return holds(text) || (text.includes('%') && holds(lenientDecode(text)));
}

export function fingerprint(s: string): string {
  return `[${s.length} chars sha256:${createHash('sha256').update(s).digest('hex').slice(0, 12)}]`;
}

function clip(s: string): string {
  return s.length > MAX_KEPT ? `${s.slice(0, MAX_KEPT)}…[${s.length} chars]` : s;
}

function typeOf(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

/** A URL without user:password, secret-looking query values or a fragment carrying parameters (OAuth tokens). */
export function redactUrl(raw: string): string {
  const whole = redactUrlWhole(raw);
  return whole === undefined ? fingerprint(raw) : clip(whole);
}

/** redactUrl without the cut, for records that must keep the address whole (a HAR); undefined when not a URL. */
export function redactUrlWhole(raw: string): string | undefined {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return undefined;
  }
  if (u.username || u.password) {
    u.username = u.password ? 'redacted' : u.username ? 'redacted' : '';
    u.password = '';
  }
  for (const k of [...new Set(u.searchParams.keys())]) if (SECRET_PARAM.test(k)) u.searchParams.set(k, 'redacted');
  if (u.hash.includes('=')) u.hash = '#redacted';
  return u.toString();
}

function keepScalar(v: unknown): unknown {
  if (typeof v === 'string') return clip(v);
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return v;
  if (Array.isArray(v)) return v.slice(0, MAX_ITEMS).map((x) => (typeof x === 'string' ? clip(x) : typeof x === 'number' || typeof x === 'boolean' ? x : `[${typeOf(x)}]`));
  return `[${typeOf(v)}]`;
}

/** Free text by length and hash, unless it holds a secret: a hash of a known value would confirm a guess. */
function text(v: unknown, forms: readonly string[]): unknown {
  const one = (x: string) => (holdsSecret(x, forms) ? SECRET_ARG : fingerprint(x));
  if (typeof v === 'string') return one(v);
  if (Array.isArray(v)) return v.slice(0, MAX_ITEMS).map((x) => (typeof x === 'string' ? one(x) : `[${typeOf(x)}]`));
  return `[${typeOf(v)}]`;
}

/** Whatever the allow-list kept (a selector, a URL, a key name) still never carries a secret. */
function withoutSecrets(v: unknown, forms: readonly string[], depth = 0): unknown {
  if (!forms.length) return v;
  if (typeof v === 'string') return holdsSecret(v, forms) ? SECRET_ARG : v;
  if (depth > 3 || !v || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => withoutSecrets(x, forms, depth + 1));
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [holdsSecret(k, forms) ? SECRET_ARG : k, withoutSecrets(x, forms, depth + 1)]));
}

function url(v: unknown): unknown {
  if (typeof v === 'string') return redactUrl(v);
  if (Array.isArray(v)) return v.slice(0, MAX_ITEMS).map((x) => (typeof x === 'string' ? redactUrl(x) : `[${typeOf(x)}]`));
  return `[${typeOf(v)}]`;
}

/** A pressed key: named keys are kept; a printable character is a character the user typed, so only its count is. */
function key(v: unknown): unknown {
  if (typeof v !== 'string') return `[${typeOf(v)}]`;
  return NAMED_KEY.test(v) || SHORTCUT.test(v) ? v : `[${v.length} chars]`;
}

/**
 * `secrets` are the caller's vault values and filled codes: any argument holding one is stored as SECRET_ARG.
 */
export function redactArgs(tool: string, args: unknown, secrets: readonly string[] = []): unknown {
  if (args === undefined) return undefined;
  if (!args || typeof args !== 'object' || Array.isArray(args)) return `[${typeOf(args)}]`;
  const forms = scrubList(secrets);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args as Record<string, unknown>).slice(0, MAX_ITEMS)) {
    if (own(LENGTH_ONLY, tool)?.has(k)) out[k] = lengthOnly(v);
    else if (k === 'key') out[k] = key(v);
    else if (URLS.has(k)) out[k] = url(v);
    else if (TEXT.has(k)) out[k] = text(v, forms);
    // File contents are neither useful in an audit log nor small: keep their size only.
    else if (k === 'base64') out[k] = typeof v === 'string' ? `[${Buffer.byteLength(v, 'base64')} bytes]` : `[${typeOf(v)}]`;
    // A HAR given in carries a session's credentials: its size only, never a value.
    else if (k === 'har') out[k] = typeof v === 'string' ? `[HAR ${v.length} chars]` : v && typeof v === 'object' ? `[HAR ${Array.isArray((v as { log?: { entries?: unknown } }).log?.entries) ? (v as { log: { entries: unknown[] } }).log.entries.length : 0} entries]` : `[${typeOf(v)}]`;
    else if (k === 'fields' && v && typeof v === 'object' && !Array.isArray(v)) {
      out[k] = Object.fromEntries(Object.entries(v).slice(0, MAX_ITEMS).map(([ref, val]) => [clip(ref), typeof val === 'string' ? text(val, forms) : `[${typeOf(val)}]`]));
    } else if (SAFE.has(k)) out[k] = keepScalar(v);
    else out[clip(k)] = `[redacted ${typeOf(v)}]`;
  }
  return withoutSecrets(out, forms);
}
