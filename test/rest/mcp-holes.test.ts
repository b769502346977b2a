/**
 * MCP over HTTP at the JSON-RPC level: malformed tools/call params, one id reused by requests in flight at
 * once, and the per-user session cap. No tool here needs a browser.
 */
import t from 'tap';
import { startTestDaemon, call, type TestDaemon } from '../fixtures/daemon.js';

let d: TestDaemon;
let alice: string;
let bob: string;
t.before(async () => {
  d = await startTestDaemon({ maxMcpSessionsPerUser: 2 });
  alice = await d.addUser('alice');
  bob = await d.addUser('bob');
});
t.teardown(() => d.stop());

const HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-03-26' };

async function rpc(token: string, sid: string | undefined, body: unknown) {
  const res = await fetch(`${d.url}/mcp`, { method: 'POST', headers: { ...HEADERS, Authorization: `Bearer ${token}`, ...(sid ? { 'Mcp-Session-Id': sid } : {}) }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, sid: res.headers.get('mcp-session-id') ?? undefined, json: text ? JSON.parse(text) : undefined };
}

async function session(token: string): Promise<string> {
  const init = await rpc(token, undefined, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  t.equal(init.status, 200);
  t.equal(init.json.id, 0, 'the initialize answer carries the client id');
  await rpc(token, init.sid, { jsonrpc: '2.0', method: 'notifications/initialized' });
  return init.sid!;
}

t.test('tools/call with arguments that are not an object, or without a name, is -32602 invalid params', async (t) => {
  const sid = await session(alice);
  const cases = [
    { name: 'browser_tabs', arguments: 'not an object' },
    { name: 'browser_tabs', arguments: [1, 2] },
    { name: 'browser_tabs', arguments: 5 },
    { arguments: {} },
    { name: 42 },
  ];
  let id = 10;
  for (const params of cases) {
    const r = await rpc(alice, sid, { jsonrpc: '2.0', id: ++id, method: 'tools/call', params });
    t.equal(r.json.id, id);
    t.equal(r.json.error?.code, -32602, JSON.stringify(params));
  }
  const ok = await rpc(alice, sid, { jsonrpc: '2.0', id: 99, method: 'tools/list' });
  t.ok(ok.json.result.tools.length > 10, 'the session still works');
});

t.test('a tools/call nested 10,000 deep is an Invalid Request, audited, and the session lives on', async (t) => {
  const sid = await session(alice);
  const deep = '['.repeat(10000) + ']'.repeat(10000);
  const res = await fetch(`${d.url}/mcp`, {
    method: 'POST',
    headers: { ...HEADERS, Authorization: `Bearer ${alice}`, 'Mcp-Session-Id': sid },
    body: `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"browser_tabs","arguments":{"a":${deep}}}}`,
  });
  t.equal(res.status, 400);
  const body: any = await res.json();
  t.equal(body.error.code, -32600);
  t.match(body.error.message, /nested deeper/);
  const audit = await d.rest(alice, 'GET', '/v1/audit?limit=1');
  t.equal(audit.json.entries[0].tool, 'browser_tabs');
  t.equal(audit.json.entries[0].outcome, 'validation_error');
  t.ok((await rpc(alice, sid, { jsonrpc: '2.0', id: 6, method: 'tools/list' })).json.result.tools.length > 0);
});

t.test('one JSON-RPC id reused by requests in flight together: each gets its own answer', async (t) => {
  const sid = await session(alice);
  const names = ['browser_nope_a', 'browser_nope_b', 'browser_nope_c', 'browser_nope_d'];
  const calls = names.map((name) => rpc(alice, sid, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: {} } }));
  const list = rpc(alice, sid, { jsonrpc: '2.0', id: 7, method: 'tools/list' });
  const answers = await Promise.all(calls);
  answers.forEach((a, i) => {
    t.equal(a.status, 200);
    t.equal(a.json.id, 7, 'the client id comes back');
    t.equal(a.json.error.code, -32602, 'an unknown tool is invalid params');
    t.match(a.json.error.message, names[i], `answer ${i} is about its own call`);
  });
  const l = await list;
  t.equal(l.json.id, 7);
  t.ok(Array.isArray(l.json.result.tools), 'tools/list got its own answer');
  const after = await rpc(alice, sid, { jsonrpc: '2.0', id: 7, method: 'tools/list' });
  t.ok(Array.isArray(after.json.result.tools), 'and the session is not stalled');
});

t.test('a user at the MCP session cap loses the session idle the longest; other users are not touched', async (t) => {
  const bobClient = await d.mcp(bob);
  const c1 = await d.mcp(alice);
  const c2 = await d.mcp(alice);
  t.ok((await call(c2, 'browser_status')).text.length > 0);
  // alice now holds sessions from the earlier subtests too: the cap of 2 has already ended the older ones.
  t.equal(d.daemon.app.mcp.sessionCount('alice'), 2);
  const c3 = await d.mcp(alice);
  t.equal(d.daemon.app.mcp.sessionCount('alice'), 2, 'still two after a third connects');
  await t.rejects(c1.listTools(), 'the session idle the longest was ended');
  t.ok((await c2.listTools()).tools.length > 0);
  t.ok((await c3.listTools()).tools.length > 0);
  t.ok((await bobClient.listTools()).tools.length > 0, "bob's session is untouched");
  t.equal(d.daemon.app.mcp.sessionCount('bob'), 1);
});
