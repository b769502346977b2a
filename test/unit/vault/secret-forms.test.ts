/**
 * The one list of a value's forms (call/secret-forms.ts) and the places that check by it: base64 at every
 * alignment and HTML escapes are hidden, a value Chromium re-encoded in a URL is found decoded (the audit, HAR
 * URLs, the cache key, log lines), and short values never blank out ordinary text.
 */
import t from 'tap';
import pino from 'pino';
import { secretForms } from '../../../daemon/call/secret-forms.js';
import { holdsSecret, redactArgs, scrubList, scrubText, SECRET_ARG } from '../../../daemon/call/redact.js';
import { trafficRedactor } from '../../../daemon/traffic/redact.js';
import { cacheHeaders, cacheUrl } from '../../../daemon/cache/redact.js';
import { scrubbingLogger } from '../../../daemon/log-scrub.js';

const V = `Qu1lt&Zebra "7"+/ok'`;
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
/** How Chromium writes a raw value into a URL query: space, quotes re-encoded, the rest as is. */
const chromiumQuery = (s: string) => s.replace(/ /g, '%20').replace(/"/g, '%22').replace(/'/g, '%27');
const forms = scrubList([V]);
/** Whether any run of 8 characters of the value's base64 (at any of the 3 alignments) is left in `text`. */
const base64Left = (text: string) => ['', 'a', 'ab'].some((pad) => {
  const enc = b64(pad + V);
  for (let i = 4; i + 8 <= enc.length - 4; i++) if (text.includes(enc.slice(i, i + 8))) return true;
  return false;
});

t.test('base64 of the value is hidden wherever in an encoded stream it starts; HTML escapes too', async (t) => {
  t.ok(secretForms(V).includes(b64(V)), 'the value encoded alone');
  for (const prefix of ['', 'b', 'bo', 'bob:', 'alice:', 'x-user-1:']) {
    for (const suffix of ['', '!', '!!', ':tail']) {
      const header = `Basic ${b64(prefix + V + suffix)}`;
      const out = scrubText(header, forms);
      t.match(out, /\[secret hidden\]/, `"${prefix}" + value + "${suffix}" in base64`);
      t.notOk(base64Left(out), 'no run of the value\'s base64 is left');
    }
  }
  t.equal(scrubText(`x=${b64(V).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}`, forms), 'x=[secret hidden]', 'base64url');
  t.equal(scrubText(`?b=${encodeURIComponent(b64(V))}`, forms), '?b=[secret hidden]', 'base64 put in a query string');
  t.equal(scrubText(`<p>Qu1lt&amp;Zebra &quot;7&quot;+/ok&#39;</p>`, forms), '<p>[secret hidden]</p>', 'escaped in HTML source');
});

t.test('short values do not blank out ordinary text', async (t) => {
  const text = 'The quick brown fox jumps over the lazy dog. Basic dXNlcjpwYXNz. {"id":123456,"ok":true}';
  t.equal(scrubText(text, scrubList(['ab', 'ok', 'x'])), text, 'two-character values are not scrubbed at all');
  t.same(secretForms('abc').filter((f) => /^[A-Za-z0-9+/]+=*$/.test(f) && f !== 'abc'), [], 'a three-character value gets no base64 form');
  t.equal(scrubText(text, scrubList(['zebra', 'pass1'])), text, 'the base64 of five-character values does not occur by chance in text');
});

t.test('the audit keeps no argument holding the value, also when a URL re-encoded it', async (t) => {
  const args = redactArgs('browser_navigate', { url: `https://keys.test/echo?x=${V}`, tab: 't1', selector: b64(V), css: `#a[title="${chromiumQuery(V)}"]` }, [V]) as Record<string, unknown>;
  t.equal(args.url, SECRET_ARG, 'a URL with the value raw in its query (canonicalised by the parser)');
  t.equal(args.selector, SECRET_ARG, 'base64 in a kept argument');
  t.equal(args.css, SECRET_ARG, 'a percent-encoded form no list foresees');
  t.equal(args.tab, 't1');
  t.ok(holdsSecret(chromiumQuery(V), forms), 'holdsSecret reads percent-encoded text decoded');
});

t.test('recorded traffic: headers of any name, URLs however encoded, form bodies', async (t) => {
  const r = trafficRedactor(forms);
  t.equal(r.header('x-pw-b64', b64(V)), '[secret hidden]');
  t.equal(r.header('x-basic', `Basic ${b64(`bob:${V}`)}`).includes('[secret hidden]'), true);
  t.notOk(base64Left(r.header('x-basic', `Basic ${b64(`bob:${V}`)}`)));
  for (const url of [`https://keys.test/q?x=${chromiumQuery(V)}`, `https://keys.test/q?x=${encodeURIComponent(V)}&y=1`, `https://keys.test/p/${encodeURIComponent(V)}/z`, `https://keys.test/#${encodeURIComponent(V)}`]) {
    const out = r.url(url);
    t.notOk(holdsSecret(out, forms), `${url} -> ${out}`);
    t.doesNotThrow(() => new URL(out));
  }
  t.equal(r.url(`https://keys.test/q?x=${encodeURIComponent(V)}&y=1`), 'https://keys.test/q?x=%5Bsecret%20hidden%5D&y=1', 'the other parameters stay as they were');
  // The raw & in the value splits it over two pairs, so the query goes whole.
  t.equal(r.header('referer', `https://keys.test/q?x=${chromiumQuery(V)}`), 'https://keys.test/q?%5Bsecret%20hidden%5D');
  t.equal(r.body(`note=${encodeURIComponent(V).replace(/%20/g, '+').replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())}&k=1`, 'application/x-www-form-urlencoded'), 'note=%5Bsecret+hidden%5D&k=1', 'a form value however it was encoded');
});

t.test('the response cache: URL key, header values', async (t) => {
  const url = `https://keys.test/q?x=${chromiumQuery(V)}&page=2`;
  t.notOk(holdsSecret(cacheUrl(url, forms), forms), 'the stored address');
  t.notOk(holdsSecret(cacheUrl(`https://keys.test/q?x=${encodeURIComponent(V)}&page=2`, forms), forms), 'encoded as a page would');
  t.same(cacheHeaders({ 'x-echo-b64': b64(V), 'content-type': 'text/plain', 'set-cookie': 'a=b' }, forms), { 'x-echo-b64': '[secret hidden]', 'content-type': 'text/plain' });
});

t.test('a log line with the value re-encoded in a URL is logged without it', async (t) => {
  const lines: string[] = [];
  const log = scrubbingLogger(pino({}, { write: (l: string) => void lines.push(l) }), () => [V]);
  log.info({ url: `https://keys.test/q?x=${chromiumQuery(V)}`, b: b64(V) }, 'fetched');
  t.equal(lines.length, 1);
  t.notOk(holdsSecret(lines[0]!, forms), lines[0]);
  t.notOk(base64Left(lines[0]!));
  t.match(JSON.parse(lines[0]!), { msg: 'fetched', b: '[secret hidden]' }, 'still a JSON line with its other fields');
});

t.test('a value holding a lone surrogate is still scrubbed, and scrubbing does not throw', async (t) => {
  // JSON carries "\ud800" escaped, so a vault value can hold one; it has no URI encoding, but every other form
  // must still be found, or every result of the user's would fail in the scrubber.
  const value = 'pass\ud800word-9f31';
  t.doesNotThrow(() => secretForms(value));
  t.ok(secretForms(value).includes(value), 'the value itself is a form');
  t.doesNotThrow(() => scrubList([value]));
  const forms = scrubList([value]);
  t.notMatch(scrubText(`token ${value} and ${JSON.stringify(value)}`, forms), /pass\ud800word|pass\\ud800word/, 'hidden as written and JSON-escaped');
  t.notMatch(scrubText(JSON.stringify({ v: value }), forms), /\\ud800word/, 'hidden in JSON text');
});
