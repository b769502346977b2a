/**
 * Attacks on the HTTP surface that need no page: another user's audit cursor, a rebinding Host, two
 * Authorization headers, a body nested 10,000 deep, methods a path does not serve. No browser starts here.
 */
import t from 'tap';
import { request } from 'node:http';
import { startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';

let d: TestDaemon;
let alice: string;
let bob: string;
t.before(async () => {
  d = await startTestDaemon();
  alice = await d.addUser('alice');
  bob = await d.addUser('bob');
});
t.teardown(() => d.stop());

/** A raw request, so headers fetch would normalise (Host, repeated Authorization) go out as written. */
function rawGet(path: string, headers: [string, string][]): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: d.daemon.port, path, method: 'GET', setHost: false, headers: headers.flat() as any }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, json: body ? JSON.parse(body) : undefined }));
    });
    req.on('error', reject);
    req.end();
  });
}

t.test('an audit cursor is bound to its user: another user replaying or crafting one gets validation_error and nothing', async (t) => {
  // Unknown tools are refused but audited: entries for alice without starting a browser.
  for (let i = 0; i < 5; i++) await d.rest(alice, 'POST', `/v1/tools/browser_alice_secret_${i}`, {});
  await d.rest(bob, 'POST', '/v1/tools/browser_bob_call', {});
  const first = await d.rest(alice, 'GET', '/v1/audit?limit=2');
  t.equal(first.status, 200);
  t.equal(first.json.entries.length, 2);
  const cursor: string = first.json.cursor;
  t.type(cursor, 'string');
  t.notMatch(cursor, /alice/, 'the cursor does not carry the user name in the clear');

  const second = await d.rest(alice, 'GET', `/v1/audit?limit=2&cursor=${encodeURIComponent(cursor)}`);
  t.equal(second.status, 200, 'the owner can page on');
  t.equal(second.json.entries.length, 2);
  t.notSame(second.json.entries.map((e: any) => e.tool), first.json.entries.map((e: any) => e.tool), 'the next page, not the same one');

  const replay = await d.rest(bob, 'GET', `/v1/audit?limit=50&cursor=${encodeURIComponent(cursor)}`);
  t.equal(replay.status, 400);
  t.equal(replay.json.error.code, 'validation_error');
  t.match(replay.json.error.next, /cursor/);
  t.notMatch(JSON.stringify(replay.json), /alice/);

  // The old cursor format was the raw storage key: a user could start a range inside someone else's entries.
  const crafted = ['alice\u0000~', 'alice\u0000\uffff', `${cursor.split('.')[0]}.${'A'.repeat(22)}`, 'garbage', '.', `${Buffer.from('\u0000~').toString('base64url')}.${cursor.split('.')[1]}`];
  for (const c of crafted) {
    const r = await d.rest(bob, 'GET', `/v1/audit?cursor=${encodeURIComponent(c)}`);
    t.equal(r.status, 400, `crafted cursor ${JSON.stringify(c)}`);
    t.equal(r.json.error.code, 'validation_error');
    t.notMatch(JSON.stringify(r.json), /alice_secret/);
  }
  const own = await d.rest(bob, 'GET', '/v1/audit?limit=50');
  t.ok(own.json.entries.length >= 1);
  t.ok(own.json.entries.every((e: any) => e.user === 'bob'), 'bob sees only his own entries');
});

t.test('Host: loopback literals and localhost pass; a rebinding name that starts like an address does not', async (t) => {
  for (const host of ['127.0.0.1', `127.0.0.1:${d.daemon.port}`, 'localhost', `localhost:${d.daemon.port}`, '[::1]', `[::1]:${d.daemon.port}`]) {
    const r = await rawGet('/v1/me', [['Host', host], ['Authorization', `Bearer ${alice}`]]);
    t.equal(r.status, 200, `Host ${host}`);
  }
  for (const host of ['127.0.0.1.rebind.evil.example', '127.0.0.1.nip.io:8787', 'localhost.evil.example', '127.1.2.3.example', 'evil.example']) {
    const r = await rawGet('/v1/me', [['Host', host], ['Authorization', `Bearer ${alice}`]]);
    t.equal(r.status, 403, `Host ${host}`);
    t.equal(r.json.error.code, 'forbidden');
  }
});

t.test('two Authorization headers are refused, whichever comes first', async (t) => {
  for (const pair of [[alice, 'bd_wrong'], ['bd_wrong', alice], [alice, bob]]) {
    const r = await rawGet('/v1/me', [['Host', '127.0.0.1'], ['Authorization', `Bearer ${pair[0]}`], ['Authorization', `Bearer ${pair[1]}`]]);
    t.equal(r.status, 401);
    t.equal(r.json.error.code, 'unauthorized');
    t.match(r.json.error.message, /more than one Authorization/);
  }
});

t.test('a body nested 10,000 deep is a validation_error, audited, not a 500', async (t) => {
  const deep = '['.repeat(10000) + ']'.repeat(10000);
  const res = await fetch(`${d.url}/v1/tools/browser_tabs`, { method: 'POST', headers: { Authorization: `Bearer ${alice}`, 'Content-Type': 'application/json' }, body: `{"a":${deep}}` });
  t.equal(res.status, 400);
  const body: any = await res.json();
  t.equal(body.error.code, 'validation_error');
  t.match(body.error.message, /nested deeper/);
  const audit = await d.rest(alice, 'GET', '/v1/audit?limit=1');
  t.equal(audit.json.entries[0].tool, 'browser_tabs');
  t.equal(audit.json.entries[0].outcome, 'validation_error');
  // Brackets inside strings are text, not depth.
  const inString = await d.rest(alice, 'POST', '/v1/tools/browser_nope', { text: '['.repeat(10000) });
  t.equal(inString.json.error.code, 'validation_error');
  t.match(inString.json.error.message, /unknown tool/);
});

t.test("a tool's body past its own limit is 413 before it is parsed; a tool that takes a file inline takes more", async (t) => {
  const before = d.daemon.env.tabs.list('alice').length;
  // 5 MB of JSON is under the server's body limit but far past anything browser_open takes.
  const big = JSON.stringify({ url: `http://127.0.0.1/${'a'.repeat(5 * 1024 * 1024)}` });
  for (const path of ['/v1/tabs', '/v1/tools/browser_open']) {
    const res = await fetch(`${d.url}${path}`, { method: 'POST', headers: { Authorization: `Bearer ${alice}`, 'Content-Type': 'application/json' }, body: big });
    const json: any = await res.json();
    t.equal(res.status, 413, `${path}: 413`);
    t.equal(json.error.code, 'payload_too_large');
    t.match(json.error.next, /at most 4194304 bytes/);
  }
  t.equal(d.daemon.env.tabs.list('alice').length, before, 'no tab opened');
  // browser_convert takes a document inline: 5 MB of base64 is read and converted, not refused for its size.
  const text = 'line of plain text\n'.repeat(200_000);
  const res = await d.rest(alice, 'POST', '/v1/tools/browser_convert', { base64: Buffer.from(text).toString('base64'), name: 'big.txt' });
  t.equal(res.status, 200, `a 5 MB inline document is converted (${res.json?.error?.message ?? 'ok'})`);
});

t.test('a body over the limit is 413 payload_too_large and changes nothing', async (t) => {
  const before = d.daemon.env.tabs.list('alice').length;
  const big = Buffer.alloc(22 * 1024 * 1024, 32);
  const res = await fetch(`${d.url}/v1/tabs`, { method: 'POST', headers: { Authorization: `Bearer ${alice}`, 'Content-Type': 'application/json' }, body: big });
  t.equal(res.status, 413);
  const json: any = await res.json();
  t.equal(json.error.code, 'payload_too_large');
  t.match(json.error.next, /at most \d+ bytes/);
  t.equal(d.daemon.env.tabs.list('alice').length, before, 'no tab opened');
});

t.test('a method a path does not serve is 405 with Allow; an unknown path is 404', async (t) => {
  const put = await d.rest(alice, 'PUT', '/v1/tabs', {});
  t.equal(put.status, 405);
  t.equal(put.json.error.code, 'method_not_allowed');
  t.ok(put.json.error.next, 'says which methods to use');
  t.equal(put.headers.get('allow'), 'GET, POST');
  const patch = await d.rest(alice, 'PATCH', '/v1/files/x.pdf', {});
  t.equal(patch.status, 405);
  t.equal(patch.headers.get('allow'), 'GET, DELETE');
  const mcp = await d.rest(alice, 'PUT', '/mcp', {});
  t.equal(mcp.status, 405);
  t.equal(mcp.headers.get('allow'), 'POST, GET, DELETE');
  const none = await d.rest(alice, 'GET', '/v1/nope');
  t.equal(none.status, 404);
  t.equal(none.json.error.code, 'not_found');
});
