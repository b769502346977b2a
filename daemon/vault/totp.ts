/**
 * TOTP secrets as users paste them: a base32 secret (spaces, dashes, lower case and padding tolerated, as
 * authenticator set-up pages print them) or an `otpauth://totp/...` URI. Checked when written, so a typo is
 * refused at `vault set` time rather than discovered at the second step of a login.
 */
import { ScureBase32Plugin } from 'otplib';
import { BrowserdError } from '../../protocol/errors.js';

const base32 = new ScureBase32Plugin();
/** RFC 4226 asks for at least 128 bits, but many sites still issue 80-bit secrets (16 base32 characters). */
const MIN_SECRET_BYTES = 10;

const invalid = (why: string) =>
  new BrowserdError('validation_error', `the totp value is not usable: ${why}`, {
    next: 'Paste the base32 secret shown under the QR code (e.g. "JBSW Y3DP EHPK 3PXP ...") or the otpauth://totp/... URI the QR code holds.',
  });

/** The base32 secret in canonical form (upper case, no spaces, dashes or padding), or a validation_error. */
function canonicalSecret(raw: string): string {
  const secret = raw.replace(/[\s-]/g, '').replace(/=+$/, '').toUpperCase();
  if (!/^[A-Z2-7]+$/.test(secret)) throw invalid('a base32 secret has only the letters A-Z and the digits 2-7');
  let bytes: Uint8Array;
  try {
    bytes = base32.decode(secret);
  } catch {
    throw invalid('it is not valid base32');
  }
  if (bytes.length < MIN_SECRET_BYTES) throw invalid(`the secret is ${bytes.length} bytes; authenticator secrets are at least ${MIN_SECRET_BYTES}`);
  return secret;
}

/** The value to store for a `totp` field, or a validation_error saying what is wrong (never quoting the value). */
export function normaliseTotp(value: string): string {
  const v = value.trim();
  if (!/^otpauth:/i.test(v)) return canonicalSecret(v);
  let uri: URL;
  try {
    uri = new URL(v);
  } catch {
    throw invalid('it starts with otpauth: but is not a URI');
  }
  if (uri.hostname.toLowerCase() !== 'totp') throw invalid(`only otpauth://totp/ URIs are time-based codes (this one is ${uri.hostname || 'neither'})`);
  const secret = uri.searchParams.get('secret');
  if (!secret) throw invalid('the otpauth URI has no secret parameter');
  uri.searchParams.set('secret', canonicalSecret(secret));
  const digits = uri.searchParams.get('digits');
  if (digits !== null && !/^(6|7|8)$/.test(digits)) throw invalid('digits must be 6, 7 or 8');
  const period = uri.searchParams.get('period');
  if (period !== null && !(/^\d{1,4}$/.test(period) && Number(period) >= 1)) throw invalid('period must be a whole number of seconds');
  const algorithm = uri.searchParams.get('algorithm');
  if (algorithm !== null && !/^sha(1|256|512)$/i.test(algorithm)) throw invalid('algorithm must be SHA1, SHA256 or SHA512');
  return uri.toString();
}
