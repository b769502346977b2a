/**
 * A method no route takes is answered, never a dropped connection: PROPFIND or PATCH reach the router (405 with
 * Allow), and on node:http a method the HTTP parser refuses (FOO, a lower-case get) gets the same answer from
 * the parser's error hook. uWebSockets.js's parser closes such a connection before any handler runs; that server
 * is checked here only for the methods it lets through.
 */
import t from 'tap';
import { connect } from 'node:net';
import { startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { loadNativeUws } from '../../daemon/http/transport/uws.js';
import { closeAll } from '../fixtures/close-all.js';

/** One raw request on a new connection: the status line, headers and body, or '' when the server just closed. */
function raw(url: string, requestLine: string): Promise<{ status: number; headers: Record<string, string>; body: string; text: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), hostname, () => s.write(`${requestLine}\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`));
    const parts: Buffer[] = [];
    s.on('data', (b) => parts.push(b));
    s.on('error', reject);
    s.on('close', () => {
      const text = Buffer.concat(parts).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1] ?? 0), headers, body, text });
    });
  });
}

const onNode: TestDaemon[] = [];
t.teardown(() => closeAll(...onNode.map((d) => () => d.stop())));

t.test('node:http: a method the parser refuses is answered 405 with Allow, or 404 off every route', async (t) => {
  const d = await startTestDaemon({ http: 'node' });
  onNode.push(d);
  for (const method of ['FOO', 'get', 'BREW', 'X-CUSTOM']) {
    const r = await raw(d.url, `${method} /v1/me HTTP/1.1`);
    t.equal(r.status, 405, `${method} /v1/me: 405`);
    t.equal(r.headers['allow'], 'GET', `${method}: Allow names the route's methods`);
    const body = JSON.parse(r.body);
    t.equal(body.error.code, 'method_not_allowed');
    t.match(body.error.next, /Use GET/);
  }
  const many = await raw(d.url, 'FOO /v1/vault/example.com HTTP/1.1');
  t.equal(many.status, 405);
  t.match(many.headers['allow'], /PUT/);
  t.match(many.headers['allow'], /DELETE/);
  const none = await raw(d.url, 'FOO /no/such/route HTTP/1.1');
  t.equal(none.status, 404, 'no route: 404');
  t.equal(JSON.parse(none.body).error.code, 'not_found');
  t.ok(d.logLines.some((l) => l.includes('"method not allowed"') && l.includes('"FOO"')), 'the refusal has its request log line');
  // The daemon goes on serving after each of them.
  const token = await d.addUser('after');
  t.equal((await d.rest(token, 'GET', '/v1/me')).status, 200);
});

for (const http of ['node', 'uws'] as const) {
  t.test(`${http}: methods the parser takes but no route has reach the router (405 with Allow)`, async (t) => {
    if (http === 'uws' && !('uws' in loadNativeUws())) return t.pass('uWebSockets.js has no build for this Node: nothing to check');
    const d = await startTestDaemon({ http });
    onNode.push(d);
    for (const method of http === 'node' ? ['PROPFIND', 'PATCH', 'PUT'] : ['PATCH', 'PUT']) {
      const r = await raw(d.url, `${method} /v1/me HTTP/1.1`);
      t.equal(r.status, 405, `${method} /v1/me: 405`);
      t.equal(r.headers['allow'], 'GET');
    }
  });
}
