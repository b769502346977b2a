// The HAR entry builder: timings from Chromium's ResourceTiming, cookies, query strings and post data, all
// redacted (names kept), bodies cut and marked.
import t from 'tap';
import { harEntry, harTimings, httpVersion, queryString, requestCookies, responseCookies } from '../../../daemon/traffic/har-entry.js';
import { cutUtf8 } from '../../../daemon/traffic/cut.js';
import { trafficRedactor, REDACTED } from '../../../daemon/traffic/redact.js';
import { scrubList } from '../../../daemon/call/redact.js';
import type { Exchange } from '../../../daemon/browser/traffic-types.js';

const VAULT = 'vault-value-3141592653';
const r = trafficRedactor(scrubList([VAULT]));
const opts = { bodies: 'text' as const, maxBodyBytes: 65536 };

const timing = { requestTime: 100, dnsStart: 1, dnsEnd: 3, connectStart: 3, connectEnd: 10, sslStart: 5, sslEnd: 9, sendStart: 10.5, sendEnd: 11, receiveHeadersEnd: 41 };

function exchange(over: Partial<Exchange> = {}): Exchange {
  return {
    id: '1000.1',
    session: 's',
    resourceType: 'xhr',
    request: { url: 'https://api.test/items?page=2&access_token=abc&q=shoes', method: 'GET', headers: { Cookie: 'sid=s3cr3t; theme=dark', Authorization: 'Bearer tok123', Accept: 'application/json' }, startedAt: Date.UTC(2025, 0, 2, 3, 4, 5), timestamp: 99.998 },
    response: { status: 200, statusText: 'OK', headers: { 'Content-Type': 'application/json', 'Set-Cookie': 'sid=new; Path=/; HttpOnly; Secure; SameSite=Lax\nlang=en; Expires=Wed, 21 Oct 2026 07:28:00 GMT' }, mimeType: 'application/json', httpVersion: 'h2', remoteIPAddress: '[::1]', fromCache: false, timing },
    finished: { encodedDataLength: 120, timestamp: 100.05 },
    body: { text: JSON.stringify({ items: [1, 2], token: 'resp-token' }), base64: false },
    ...over,
  };
}

t.test('timings: phases from ResourceTiming, -1 where a phase did not happen, time the sum without ssl', async (t) => {
  const { timings, time } = harTimings(exchange());
  // Queued 2 ms before requestTime, then 1 ms until DNS started.
  t.equal(timings.blocked, 3);
  t.equal(timings.dns, 2);
  t.equal(timings.connect, 7);
  t.equal(timings.ssl, 4);
  t.equal(timings.send, 0.5);
  t.equal(timings.wait, 30);
  t.equal(timings.receive, 9, 'loading ended 50 ms after requestTime, headers came at 41');
  t.equal(time, 3 + 2 + 7 + 0.5 + 30 + 9);

  const reused = harTimings(exchange({ response: { ...exchange().response!, timing: { ...timing, dnsStart: -1, dnsEnd: -1, connectStart: -1, connectEnd: -1, sslStart: -1, sslEnd: -1 } } }));
  t.same([reused.timings.dns, reused.timings.connect, reused.timings.ssl], [-1, -1, -1], 'a reused connection has no dns, connect or ssl');
  t.equal(reused.timings.blocked, 12.5, 'blocked runs to the send');

  const none = harTimings(exchange({ response: { ...exchange().response!, timing: undefined } }));
  t.same(none.timings, { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: 52, receive: 0 }, 'without timing the whole span is wait');
});

t.test('cookies: names kept, values hidden, Set-Cookie attributes parsed', async (t) => {
  t.same(requestCookies('sid=s3cr3t; theme=dark'), [{ name: 'sid', value: REDACTED }, { name: 'theme', value: REDACTED }]);
  t.same(requestCookies(undefined), []);
  const set = responseCookies('sid=new; Path=/; HttpOnly; Secure; SameSite=Lax\nlang=en; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Domain=api.test');
  t.same(set[0], { name: 'sid', value: REDACTED, path: '/', httpOnly: true, secure: true, sameSite: 'Lax' });
  t.same(set[1], { name: 'lang', value: REDACTED, expires: '2026-10-21T07:28:00.000Z', domain: 'api.test' });
});

t.test('queryString: from the redacted URL, in order, repeats kept', async (t) => {
  t.same(queryString('https://a.test/x?b=1&a=2&b=3'), [{ name: 'b', value: '1' }, { name: 'a', value: '2' }, { name: 'b', value: '3' }]);
  t.same(queryString('not a url'), []);
  const e = harEntry(exchange(), r, opts);
  t.same(e.request.queryString.map((q) => q.name), ['page', 'access_token', 'q']);
  t.notMatch(JSON.stringify(e.request.queryString), /abc/, 'a secret query value is hidden');
  t.equal(e.request.queryString[2]!.value, 'shoes');
});

t.test('a whole entry: headers redacted by name, response fields, HTTP version, server address', async (t) => {
  const e = harEntry(exchange(), r, opts, 'page_1');
  const text = JSON.stringify(e);
  for (const secret of ['s3cr3t', 'tok123', 'resp-token', 'sid=new']) t.notMatch(text, secret, `${secret} is not in the entry`);
  t.equal(e.pageref, 'page_1');
  t.equal(e.startedDateTime, '2025-01-02T03:04:05.000Z');
  t.equal(e.request.httpVersion, 'HTTP/2');
  t.same(e.request.headers.find((h) => h.name === 'Authorization'), { name: 'Authorization', value: `Bearer ${REDACTED}` });
  t.equal(e.response.headers.filter((h) => h.name === 'Set-Cookie').length, 2, 'each Set-Cookie line is a header of its own');
  t.same(JSON.parse(e.response.content.text!), { items: [1, 2], token: REDACTED });
  t.equal(e.response.content.mimeType, 'application/json');
  t.equal(e.response.bodySize, 120);
  t.equal(e.serverIPAddress, '::1');
  t.equal(e._resourceType, 'xhr');
  t.same(e.cache, {});
  t.equal(httpVersion('http/1.1'), 'HTTP/1.1');
  t.equal(httpVersion(undefined), 'HTTP/1.1');
});

t.test('postData: JSON by key, form params parsed, vault values hidden, long bodies cut and marked', async (t) => {
  const json = harEntry(exchange({ request: { ...exchange().request, method: 'POST', headers: { 'Content-Type': 'application/json' }, postData: JSON.stringify({ name: 'n', password: 'pw', note: VAULT }) } }), r, opts);
  t.same(JSON.parse(json.request.postData!.text), { name: 'n', password: REDACTED, note: '[secret hidden]' });
  t.notOk(json.request.postData!.params, 'JSON has no params');

  const form = harEntry(exchange({ request: { ...exchange().request, method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, postData: 'user=ann&password=pw1&_csrf=t&q=a+b' } }), r, opts);
  t.same(form.request.postData!.params, [{ name: 'user', value: 'ann' }, { name: 'password', value: REDACTED }, { name: '_csrf', value: REDACTED }, { name: 'q', value: 'a b' }]);
  t.equal(form.request.bodySize, 'user=ann&password=pw1&_csrf=t&q=a+b'.length);

  const long = harEntry(exchange({ body: { text: 'é'.repeat(100), base64: false }, response: { ...exchange().response!, mimeType: 'text/plain', headers: {} } }), r, { bodies: 'text', maxBodyBytes: 11 });
  t.equal(long.response.content.text, 'é'.repeat(5), 'cut at 11 bytes without splitting a character');
  t.equal(long.response.content._truncated, true);
  t.match(long.response.content.comment, /cut at 11 of 200 bytes/);
  t.equal(long.response.content.size, 200);
  t.same(cutUtf8('abc', 3), { text: 'abc', cut: false, bytes: 3 });
});

t.test('bodies: none keeps none, text drops binary, all keeps binary as base64 cut on bytes', async (t) => {
  const bin = exchange({ body: { text: Buffer.from([1, 2, 3, 4, 5, 6]).toString('base64'), base64: true }, response: { ...exchange().response!, mimeType: 'image/png', headers: {} } });
  t.notOk(harEntry(bin, r, { bodies: 'text', maxBodyBytes: 100 }).response.content.text);
  t.notOk(harEntry(exchange(), r, { bodies: 'none', maxBodyBytes: 100 }).response.content.text);
  const all = harEntry(bin, r, { bodies: 'all', maxBodyBytes: 4 }).response.content;
  t.equal(all.encoding, 'base64');
  t.same([...Buffer.from(all.text!, 'base64')], [1, 2, 3, 4]);
  t.equal(all._truncated, true);
});

t.test('redirects, failures, WebSocket and EventSource messages', async (t) => {
  const hop = harEntry(exchange({ response: { ...exchange().response!, status: 302, statusText: 'Found', headers: { Location: '/next?token=abc' } }, redirectUrl: 'https://api.test/next?token=abc', body: undefined }), r, opts);
  t.equal(hop.response.redirectURL, 'https://api.test/next?token=redacted');
  const failed = harEntry(exchange({ response: undefined, body: undefined, failed: { errorText: 'net::ERR_BLOCKED_BY_CLIENT' } }), r, opts);
  t.equal(failed.response.status, 0);
  t.equal(failed.response._error, 'net::ERR_BLOCKED_BY_CLIENT');
  const ws = harEntry(exchange({ resourceType: 'websocket', body: undefined, messages: [{ type: 'send', time: 1.5, opcode: 1, data: '{"secret":"s","hello":1}' }, { type: 'receive', time: 2, opcode: 1, data: `plain ${VAULT}` }] }), r, opts, undefined, true);
  t.same(ws._webSocketMessages, [{ type: 'send', time: 1.5, opcode: 1, data: JSON.stringify({ secret: REDACTED, hello: 1 }) }, { type: 'receive', time: 2, opcode: 1, data: 'plain [secret hidden]' }]);
  t.equal(ws._open, true);
  const sse = harEntry(exchange({ resourceType: 'eventsource', body: undefined, messages: [{ type: 'receive', time: 3, data: '{"token":"t"}', eventName: 'message', eventId: '2' }] }), r, opts);
  t.same(sse._eventSourceMessages, [{ type: 'message', time: 3, eventId: '2', data: JSON.stringify({ token: REDACTED }) }]);
});
