/**
 * Attack: MCP toolsets (/mcp?tools=...) are no boundary by design (docs/security.md), but they promise that a bad set name
 * is a 400 validation_error with a next step that changes nothing, and that a tool outside the connection's sets
 * is unknown to it by every path: the direct one, the SDK's (a batch), and later requests of the session whose
 * URL names other sets.
 */
import t from 'tap';
import { startTestDaemon } from '../fixtures/daemon.js';

const d = await startTestDaemon();
const token = await d.addUser('sets');
t.teardown(() => d.stop());

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };

/** One POST to /mcp: status, session id and the JSON-RPC message(s) (read from an event stream when one came). */
async function rpc(query: string, body: unknown, sid?: string) {
  const res = await fetch(`${d.url}/mcp${query}`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...(sid ? { 'Mcp-Session-Id': sid, 'Mcp-Protocol-Version': '2025-06-18' } : {}),
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const data = text.split('\n').filter((l) => l.startsWith('data:')).map((l) => JSON.parse(l.slice(5)));
  let json: any = data.length ? (data.length === 1 ? data[0] : data) : undefined;
  if (json === undefined && text) json = JSON.parse(text);
  return { status: res.status, sid: res.headers.get('mcp-session-id') ?? undefined, json };
}

async function open(query: string) {
  const r = await rpc(query, INIT);
  if (r.status !== 200 || !r.sid) throw new Error(`initialize ${query}: ${r.status} ${JSON.stringify(r.json)}`);
  await rpc(query, { jsonrpc: '2.0', method: 'notifications/initialized' }, r.sid);
  return r.sid;
}

t.test('a bad toolset name is a 400 validation_error with a next step, and makes no session', async (t) => {
  const before = d.daemon.app.mcp.sessionCount('sets');
  for (const q of ['?tools=', '?tools=%20', '?tools=,', '?tools=__proto__', '?tools=constructor', '?tools=toString', '?tools=hasOwnProperty', '?tools=CORE', '?tools=all,nope', '?tools=core&tools=nope', `?tools=${'x'.repeat(5000)}`]) {
    const r = await rpc(q, INIT);
    t.equal(r.status, 400, `${q.slice(0, 40)}: 400`);
    t.equal(r.json?.error?.code, 'validation_error', `${q.slice(0, 40)}: validation_error`);
    t.match(r.json?.error?.next, /Toolsets are: core, /, `${q.slice(0, 40)}: the next step names the sets`);
    t.ok(String(r.json?.error?.message ?? '').length < 300, `${q.slice(0, 40)}: the message stays short`);
  }
  t.equal(d.daemon.app.mcp.sessionCount('sets'), before, 'no session was made');
});

t.test('a tool outside the sets is unknown by every path, whatever later requests\' URLs say', async (t) => {
  const sid = await open('?tools=core');
  const hidden = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'browser_sessions', arguments: { action: 'list' } } };
  const direct = await rpc('?tools=all', hidden, sid);
  t.equal(direct.json?.error?.code, -32602, 'the direct path: unknown tool, although this request\'s URL says all');
  t.match(direct.json?.error?.message, /unknown tool "browser_sessions"/);
  const batch = await rpc('?tools=cdp', [hidden, { ...hidden, id: 8 }], sid);
  const answers = Array.isArray(batch.json) ? batch.json : [batch.json];
  t.ok(answers.length > 0 && answers.every((a: any) => a?.error?.code === -32602), `a batch: each call unknown (${JSON.stringify(batch.json).slice(0, 200)})`);
  const withProgress = await rpc('', { ...hidden, id: 9, params: { ...hidden.params, _meta: { progressToken: 'p' } } }, sid);
  t.equal(withProgress.json?.error?.code, -32602, 'the SDK\'s path (a progress token): unknown tool');
  const listed = await rpc('?tools=all', { jsonrpc: '2.0', id: 10, method: 'tools/list' }, sid);
  t.notOk(listed.json?.result?.tools?.some((x: any) => x.name === 'browser_sessions'), 'tools/list still leaves it out');
  const shown = await rpc('', { jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'browser_status', arguments: {} } }, sid);
  t.ok(shown.json?.result, 'a tool of the set is called as usual');
  // The documented way round: the same token over REST has every tool.
  const rest = await d.rest(token, 'POST', '/v1/tools/browser_sessions', { action: 'list' });
  t.equal(rest.status, 200, 'REST serves it (toolsets are not a boundary, as docs/security.md says)');
});
