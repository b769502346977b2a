// A capture as a sink, without a browser: what it asks bodies for, what it keeps, how it cuts binary and text.
import t from 'tap';
import { TabCapture } from '../../../daemon/traffic/capture.js';
import { trafficRedactor, REDACTED } from '../../../daemon/traffic/redact.js';
import { scrubList } from '../../../daemon/call/redact.js';
import type { Exchange } from '../../../daemon/browser/traffic-types.js';

const VAULT = 'vault-secret-77';
const redactor = trafficRedactor(scrubList([VAULT]));

let n = 0;
function exchange(url: string, over: Partial<Exchange> = {}): Exchange {
  n++;
  return {
    id: `r${n}`, session: 's', resourceType: 'fetch',
    request: { url, method: 'GET', headers: {}, startedAt: Date.now(), timestamp: 1 },
    response: { status: 200, statusText: 'OK', headers: { 'content-type': 'application/json' }, mimeType: 'application/json', fromCache: false },
    ...over,
  };
}

t.test('bodies are asked for only while the capture would keep them', async (t) => {
  const c = new TabCapture({ urlPattern: '/api/', methods: ['POST'], maxBodies: 1, maxBytes: 100 }, redactor);
  const get = exchange('https://s.test/api/a');
  const post = exchange('https://s.test/api/a', { request: { ...get.request, method: 'POST' } });
  t.notOk(c.wantsBody(get), 'method not chosen');
  t.notOk(c.wantsBody(exchange('https://s.test/other')), 'URL not matching');
  t.ok(c.wantsBody(post));
  // Two matches both asked while one slot was free: the first to end takes it, the second is counted.
  const second = exchange('https://s.test/api/b', { request: { ...get.request, url: 'https://s.test/api/b', method: 'POST' } });
  t.ok(c.wantsBody(second));
  c.done(post);
  c.done(second);
  t.equal(c.list().length, 1);
  t.equal(c.state().notKept, 1);
  t.notOk(c.wantsBody(second), 'full: no more body reads');
  c.stop();
  c.done(exchange('https://s.test/api/c', { request: { ...get.request, method: 'POST' } }));
  t.equal(c.state().notKept, 1, 'a stopped capture neither keeps nor counts');
});

t.test('text bodies: redacted first, then cut on a character boundary', async (t) => {
  const c = new TabCapture({ urlPattern: '*', maxBodies: 10, maxBytes: 30 }, redactor);
  const body = JSON.stringify({ token: 'abcdefabcdefabcdefabcdef', v: 'ééééééééééééééé' });
  c.done(exchange('https://s.test/x', { body: { text: body, base64: false } }));
  const kept = c.list()[0]!.responseBody!;
  const whole = JSON.stringify({ token: REDACTED, v: 'ééééééééééééééé' });
  t.equal(kept.size, Buffer.byteLength(whole), 'size of the whole body as redacted');
  t.ok(kept.truncated);
  t.ok(whole.startsWith(kept.text), 'a prefix of the redacted body');
  t.ok(Buffer.byteLength(kept.text) <= 30);
  t.notMatch(kept.text, 'abcdef');
});

t.test('base64 bodies: UTF-8 text is redacted as text; true binary is kept cut, or not at all when it holds a secret', async (t) => {
  const c = new TabCapture({ urlPattern: '*', maxBodies: 10, maxBytes: 4 }, redactor);
  const jsonAsBase64 = Buffer.from(JSON.stringify({ password: 'pw-123456' })).toString('base64');
  c.done(exchange('https://s.test/json', { body: { text: jsonAsBase64, base64: true } }));
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe, 0x00, 0x01]);
  c.done(exchange('https://s.test/png', { body: { text: png.toString('base64'), base64: true } }));
  const withSecret = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(VAULT)]);
  c.done(exchange('https://s.test/bin', { body: { text: withSecret.toString('base64'), base64: true } }));
  const [json, bin, secret] = c.list().map((x) => x.responseBody!);
  t.equal(json!.base64, false);
  t.notMatch(json!.text, 'pw-123456');
  t.same(bin, { text: png.subarray(0, 4).toString('base64'), base64: true, size: 8, truncated: true });
  t.same(secret, { text: REDACTED, base64: false, size: withSecret.length, truncated: false });
});

t.test('URLs, headers, failures and request bodies are redacted as kept', async (t) => {
  const c = new TabCapture({ urlPattern: '*', maxBodies: 10, maxBytes: 1000 }, redactor);
  c.done(exchange(`https://s.test/api?access_token=tok-1&page=2`, {
    request: { url: 'https://s.test/api?access_token=tok-1&page=2', method: 'POST', headers: { Cookie: 'sid=abc', 'content-type': 'application/x-www-form-urlencoded' }, postData: `user=ann&password=pw-1&note=${VAULT}`, startedAt: 0, timestamp: 0 },
    response: undefined,
    failed: { errorText: 'net::ERR_BLOCKED_BY_CLIENT', blockedReason: 'inspector' },
  }));
  const x = c.list()[0]!;
  t.notMatch(x.url, 'tok-1');
  t.match(x.url, 'page=2');
  t.equal(x.requestHeaders.Cookie, `sid=${REDACTED}`);
  t.notMatch(x.requestBody!.text, 'pw-1');
  t.notMatch(x.requestBody!.text, VAULT);
  t.match(x.requestBody!.text, 'user=ann');
  t.equal(x.status, 0);
  t.same(x.responseHeaders, {});
  t.equal(x.failed!.errorText, 'net::ERR_BLOCKED_BY_CLIENT');
});
