/** TOTP values: what is accepted at write time, and codes checked against the RFC 6238 test vectors. */
import t from 'tap';
import { freshTotpCode, normaliseTotp, parseTotp, totpCode, totpSecondsLeft } from '../../../daemon/vault/totp.js';
import { BrowserdError } from '../../../protocol/errors.js';

// RFC 6238 appendix B secrets ("1234567890" repeated to the hash's key size), base32.
const SHA1 = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const SHA256 = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZA';
const SHA512 = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNA';
const uri = (secret: string, alg: string) => `otpauth://totp/Example:alice@example.com?secret=${secret}&issuer=Example&digits=8&period=30&algorithm=${alg}`;

t.test('RFC 6238 vectors, through otpauth URIs (digits and algorithm honoured)', async (t) => {
  t.equal(totpCode(uri(SHA1, 'SHA1'), 59_000), '94287082');
  t.equal(totpCode(uri(SHA256, 'SHA256'), 59_000), '46119246');
  t.equal(totpCode(uri(SHA512, 'SHA512'), 59_000), '90693936');
  t.equal(totpCode(uri(SHA1, 'SHA1'), 1111111109_000), '07081804');
  t.equal(totpCode(uri(SHA512, 'SHA512'), 20000000000_000), '47863826');
});

t.test('a bare base32 secret: six digits, 30 seconds, SHA1; spaces, dashes, case and padding tolerated', async (t) => {
  t.equal(totpCode(SHA1, 59_000), '287082');
  t.equal(totpCode('gezd gnbv-gy3t qojq gezd gnbv gy3t qojq==', 59_000), '287082');
  t.equal(normaliseTotp(' gezd gnbv gy3t qojq gezd gnbv gy3t qojq '), SHA1, 'stored as the clean secret');
  // An 80-bit secret, as many sites still issue.
  t.match(totpCode('JBSWY3DPEHPK3PXP'), /^\d{6}$/);
});

t.test('the period is honoured', async (t) => {
  const v = `otpauth://totp/x?secret=${SHA1}&period=60`;
  t.equal(parseTotp(v).period, 60);
  t.equal(totpCode(v, 60_000), totpCode(v, 119_000), 'same code within one 60 s window');
  t.not(totpCode(v, 119_000), totpCode(v, 120_000), 'a new code at the next window');
  t.equal(totpSecondsLeft(v, 119_000), 1);
});

t.test('normaliseTotp keeps settings that differ from the defaults, and only those', async (t) => {
  const stored = normaliseTotp(uri(SHA256, 'SHA256'));
  t.match(stored, /^otpauth:\/\/totp\//);
  t.notMatch(stored, /alice|Example/, 'the account label and issuer are not kept');
  t.equal(totpCode(stored, 59_000), '46119246');
  t.equal(normaliseTotp(`otpauth://totp/x?secret=${SHA1}&digits=6&period=30&algorithm=SHA1`), SHA1);
});

t.test('bad values are validation_error with a next step, whatever the fault', async (t) => {
  const bad = [
    '',
    'not base32 at all!',
    'ABCDEFGH', // too short
    'otpauth://hotp/x?secret=' + SHA1,
    'otpauth://totp/x',
    `otpauth://totp/x?secret=${SHA1}&digits=9`,
    `otpauth://totp/x?secret=${SHA1}&period=0`,
    `otpauth://totp/x?secret=${SHA1}&algorithm=MD5`,
  ];
  for (const v of bad) {
    let caught: unknown;
    try {
      normaliseTotp(v);
    } catch (e) {
      caught = e;
    }
    t.ok(caught instanceof BrowserdError && caught.code === 'validation_error' && !!caught.next, `${JSON.stringify(v)}: ${String(caught)}`);
  }
});

t.test('freshTotpCode gives a code valid now or in the next window, never an expiring one', async (t) => {
  const v = `otpauth://totp/x?secret=${SHA1}&period=30`;
  const before = Date.now();
  const code = await freshTotpCode(v, new AbortController().signal);
  const after = Date.now();
  // Whichever window it chose, the code is the one of a moment between the call and its return.
  const windows = new Set([totpCode(v, before), totpCode(v, after)]);
  t.ok(windows.has(code), 'the code of the current (or just begun) window');
});
