/**
 * Every form in which a secret value can reach stored or shown text without anyone running script on purpose:
 * as is; escaped inside JSON; percent-encoded in a URL (encodeURI, encodeURIComponent) and form-encoded (a
 * space as +); escaped in HTML source; and base64 (and base64url), as a Basic auth header or a page's own
 * btoa() carries it, wherever in the encoded stream the value starts. The encodings also apply to the base64
 * text (a base64 value put into a query string or a JSON body). This is the one place the list is made:
 * tool results, the audit, logs, HAR files, the response cache, crawl items and server-run tasks all scrub
 * with scrubList (call/redact.ts), which takes its forms from here.
 *
 * It is a second layer: the first is that no agent script runs where a secret lives. An encoding not listed
 * here (a value reversed, split, or hashed by a page) is not caught by it.
 */

/**
 * Shortest base64 run worth hiding: below it a run of base64 characters is too likely to occur by chance in
 * other base64 (an image in a HAR body) and too little of the value to give it away. A value of 5 bytes or
 * more has a run this long at every alignment.
 */
export const MIN_BASE64_RUN = 6;

const B64_CHAR_BITS = 6;

/**
 * The base64 characters that depend on the value's bytes alone, for each of the three positions (mod 3) the
 * value can start at inside a longer encoded stream ("user:" + password in a Basic header, a body encoded
 * whole). A character that also carries bits of a neighbouring byte is left out, so the run is the same
 * whatever comes before or after; at most a few bits of the value's first and last byte stay in view.
 */
function base64Runs(bytes: Buffer): string[] {
  const runs: string[] = [];
  for (let shift = 0; shift < 3; shift++) {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
    const startBit = shift * 8;
    const endBit = startBit + bytes.length * 8;
    const first = Math.ceil(startBit / B64_CHAR_BITS);
    const last = Math.floor(endBit / B64_CHAR_BITS) - 1;
    if (last - first + 1 >= MIN_BASE64_RUN) runs.push(encoded.slice(first, last + 1));
  }
  return runs;
}

const toBase64Url = (s: string) => s.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

/** The value as HTML source shows it when a page prints it escaped (both ways of writing the apostrophe). */
function htmlEscaped(value: string): string[] {
  const base = value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  return [base.replace(/'/g, '&#39;'), base.replace(/'/g, '&#x27;')];
}

/** The ways a text can stand in a URL, a form body or JSON text. */
function textEncodings(s: string): string[] {
  const out = [s, JSON.stringify(s).slice(1, -1), new URLSearchParams({ v: s }).toString().slice(2)];
  for (const encode of [encodeURIComponent, encodeURI]) {
    try {
      out.push(encode(s));
    } catch {
      // A lone surrogate cannot be URI-encoded, so a value holding one cannot appear so encoded either; it must
      // not stop the scrubbing of its other forms (every result of the user's would fail).
    }
  }
  return out;
}

/** Every form of one value (the value itself included), without repeats. Callers skip values too short to scrub. */
export function secretForms(value: string): string[] {
  const forms = new Set<string>();
  for (const f of textEncodings(value)) forms.add(f);
  for (const f of htmlEscaped(value)) forms.add(f);
  const bytes = Buffer.from(value, 'utf8');
  const whole = bytes.toString('base64');
  const base64 = new Set<string>();
  // The value encoded alone, padding and all, is hidden whole (not only its inner run).
  if (whole.replace(/=+$/, '').length >= MIN_BASE64_RUN) for (const b of [whole, whole.replace(/=+$/, ''), toBase64Url(whole)]) base64.add(b);
  for (const run of base64Runs(bytes)) {
    base64.add(run);
    base64.add(toBase64Url(run));
  }
  for (const b of base64) for (const f of textEncodings(b)) forms.add(f);
  return [...forms];
}

/**
 * `%XX` runs decoded where they are valid UTF-8, anything else left as it is (never throws): how a value looks
 * after Chromium or a page percent-encoded it in a way no list of encodings foresees (a quote as %22 but an
 * apostrophe kept), so checks can look at the decoded text as well.
 */
export function lenientDecode(s: string): string {
  return s.replace(/(?:%[0-9A-Fa-f]{2})+/g, (m) => {
    try {
      return decodeURIComponent(m);
    } catch {
      return m;
    }
  });
}
