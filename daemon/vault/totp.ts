/**
 * Authenticator codes (TOTP, RFC 6238) from a vault entry's `totp` field. The field holds either a bare base32
 * secret or an `otpauth://totp/...` URI whose digits, period and algorithm are honoured. Values are checked
 * when written (normaliseTotp), so a typo is a clear validation_error at PUT time instead of a wrong code in
 * the middle of a login.
 */
import { lazyRequire } from '../lazy-require.js';
import { BrowserdError } from '../../protocol/errors.js';

/** Loaded with the first code: a vault with no TOTP entry never needs it. */
const otplib = lazyRequire<typeof import('otplib')>('otplib');

export interface TotpParams {
  secret: string;
  digits: 6 | 7 | 8;
  period: number;
  algorithm: 'sha1' | 'sha256' | 'sha512';
}

const DEFAULTS = { digits: 6, period: 30, algorithm: 'sha1' } as const;
const BASE32 = /^[A-Z2-7]+$/;
// Many sites still hand out 80-bit secrets (16 base32 characters); otplib's default floor is 128 bits.
let guardrails: ReturnType<typeof import('otplib').createGuardrails> | undefined;

function invalid(why: string): never {
  throw new BrowserdError('validation_error', `the totp value is not usable: ${why}`, {
    next: 'Store the base32 secret the site showed (the text under its QR code), or the otpauth://totp/... URI.',
  });
}

function cleanSecret(raw: string): string {
  const s = raw.replace(/[\s-]/g, '').replace(/=+$/, '').toUpperCase();
  if (!s) invalid('the secret is empty');
  if (!BASE32.test(s)) invalid('the secret is not base32 (letters A-Z and digits 2-7)');
  if (s.length < 16) invalid('the secret is shorter than 80 bits (16 base32 characters)');
  if (s.length > 128) invalid('the secret is longer than 640 bits');
  return s;
}

/** Reads a stored (or about to be stored) totp value. Throws validation_error saying what is wrong. */
export function parseTotp(value: string): TotpParams {
  const v = value.trim();
  if (!/^otpauth:/i.test(v)) return { secret: cleanSecret(v), ...DEFAULTS };
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    invalid('the otpauth URI does not parse');
  }
  if (u.host.toLowerCase() !== 'totp') invalid(`only otpauth://totp/ URIs are supported, not ${u.host || 'this kind'}`);
  const q = u.searchParams;
  const secret = cleanSecret(q.get('secret') ?? '');
  const digits = q.has('digits') ? Number(q.get('digits')) : DEFAULTS.digits;
  if (digits !== 6 && digits !== 7 && digits !== 8) invalid('digits must be 6, 7 or 8');
  const period = q.has('period') ? Number(q.get('period')) : DEFAULTS.period;
  if (!Number.isInteger(period) || period < 1 || period > 300) invalid('period must be a whole number of seconds from 1 to 300');
  const alg = (q.get('algorithm') ?? 'SHA1').toLowerCase();
  if (alg !== 'sha1' && alg !== 'sha256' && alg !== 'sha512') invalid('algorithm must be SHA1, SHA256 or SHA512');
  return { secret, digits, period, algorithm: alg };
}

/**
 * The value to store for a totp field: the bare secret when every setting is the default, else a minimal
 * otpauth URI keeping the settings that differ. Throws validation_error (for the REST PUT to pass on).
 */
export function normaliseTotp(value: string): string {
  const p = parseTotp(value);
  // A value that cannot produce a code is refused now, not at login time.
  totpFrom(p, Date.now());
  if (p.digits === DEFAULTS.digits && p.period === DEFAULTS.period && p.algorithm === DEFAULTS.algorithm) return p.secret;
  const q = new URLSearchParams({ secret: p.secret, digits: String(p.digits), period: String(p.period), algorithm: p.algorithm.toUpperCase() });
  return `otpauth://totp/browserd?${q}`;
}

function totpFrom(p: TotpParams, nowMs: number): string {
  try {
    const lib = otplib();
    guardrails ??= lib.createGuardrails({ MIN_SECRET_BYTES: 10 });
    return lib.generateSync({ secret: p.secret, digits: p.digits, period: p.period, algorithm: p.algorithm, epoch: Math.floor(nowMs / 1000), guardrails });
  } catch (e) {
    invalid(e instanceof Error ? e.message : String(e));
  }
}

/** The current code for a stored totp value (at `nowMs`, default now). */
export function totpCode(value: string, nowMs = Date.now()): string {
  return totpFrom(parseTotp(value), nowMs);
}

/** Seconds the current code stays valid, so a code about to expire can be skipped for the next one. */
export function totpSecondsLeft(value: string, nowMs = Date.now()): number {
  const { period } = parseTotp(value);
  return period - (Math.floor(nowMs / 1000) % period);
}

/**
 * A code that will still be valid when the site checks it: one with under two seconds left is skipped for
 * the next (waiting at most those two seconds), so a slow form post does not arrive with an expired code.
 */
export async function freshTotpCode(value: string, signal: AbortSignal): Promise<string> {
  const now = Date.now();
  const left = totpSecondsLeft(value, now);
  if (left > 2) return totpCode(value, now);
  const nextWindow = (Math.floor(now / 1000) + left) * 1000;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, Math.max(0, nextWindow - Date.now()));
    signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
  });
  return totpCode(value, Math.max(Date.now(), nextWindow));
}
