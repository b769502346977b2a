/** The MCP endpoint: the 2025-03-26 handshake, sessions per user, tools/list schemas, validation errors. */
import t from 'tap';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { startTestDaemon, call, type TestDaemon } from '../fixtures/daemon.js';

let d: TestDaemon;
let alice: string;
let bob: string;
t.before(async () => {
  d = await startTestDaemon();
  alice = await d.addUser('alice');
  bob = await d.addUser('bob');
});
t.teardown(() => d.stop());

async function rpc(token: string, body: unknown, sid?: string) {
  const res = await fetch(`${d.url}/mcp`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...(sid ? { 'Mcp-Session-Id': sid, 'Mcp-Protocol-Version': '2025-03-26' } : {}),
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, sid: res.headers.get('mcp-session-id') ?? undefined, json: text ? JSON.parse(text) : undefined };
}

const init = (id: number) => ({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'check', version: '1.0' } } });

t.test('initialize with 2025-03-26 is answered with that version and a session id', async (t) => {
  const r = await rpc(alice, init(1));
  t.equal(r.status, 200);
  t.equal(r.json.result.protocolVersion, '2025-03-26');
  t.equal(r.json.result.serverInfo.name, 'browserd');
  t.ok(r.sid, 'Mcp-Session-Id header');
  t.ok(r.json.result.capabilities.tools);
});

t.test("a session id used with another user's token is refused", async (t) => {
  const a = await rpc(alice, init(1));
  await rpc(alice, { jsonrpc: '2.0', method: 'notifications/initialized' }, a.sid);
  const hijack = await rpc(bob, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, a.sid);
  t.equal(hijack.status, 403);
  t.equal(hijack.json.error.code, 'forbidden');
  const own = await rpc(alice, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, a.sid);
  t.equal(own.status, 200);
  t.ok(own.json.result.tools.length > 0);
});

t.test('two users sending the same JSON-RPC ids at once each get their own answers', async (t) => {
  const a = await rpc(alice, init(0));
  const b = await rpc(bob, init(0));
  await rpc(alice, { jsonrpc: '2.0', method: 'notifications/initialized' }, a.sid);
  await rpc(bob, { jsonrpc: '2.0', method: 'notifications/initialized' }, b.sid);
  const calls = [];
  for (let id = 1; id <= 10; id++) {
    calls.push(rpc(alice, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'browser_status', arguments: {} } }, a.sid).then((r) => ({ who: 'alice', id, r })));
    calls.push(rpc(bob, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'browser_status', arguments: {} } }, b.sid).then((r) => ({ who: 'bob', id, r })));
  }
  for (const { who, id, r } of await Promise.all(calls)) {
    t.equal(r.json.id, id);
    t.match(r.json.result.content[0].text, new RegExp(`User: ${who}\\b`), `${who} #${id} got its own answer`);
  }
});

/** Parameters many tools take, explained once in the server's instructions instead of in each tool. */
const SHARED = ['tab', 'ref', 'snapshot', 'includeHidden', 'model', 'maxTokensTotal'];

t.test('tools/list: a described JSON Schema and annotations per tool', async (t) => {
  const client = await d.mcp(alice);
  const instructions = client.getInstructions() ?? '';
  for (const k of SHARED) t.match(instructions, new RegExp(`\\b${k}\\b`), `the instructions explain ${k}`);
  const { tools } = await client.listTools();
  const names = tools.map((x) => x.name);
  for (const n of ['browser_open', 'browser_tabs', 'browser_close_tab', 'browser_focus_tab', 'browser_navigate', 'browser_history', 'browser_snapshot', 'browser_click', 'browser_type', 'browser_fill', 'browser_press', 'browser_wait', 'browser_screenshot', 'browser_read_text', 'browser_status']) {
    t.ok(names.includes(n), `${n} listed`);
  }
  for (const tool of tools) {
    t.equal(tool.inputSchema.type, 'object', `${tool.name} schema is an object`);
    t.ok(tool.description && tool.description.length > 20, `${tool.name} is described`);
    t.type(tool.annotations?.readOnlyHint, 'boolean');
    t.type(tool.annotations?.destructiveHint, 'boolean');
    t.type(tool.annotations?.openWorldHint, 'boolean');
  }
  const byName = new Map(tools.map((x) => [x.name, x]));
  // Annotations follow the effect class: reading tools are read-only, sensitive ones destructive.
  t.equal(byName.get('browser_snapshot')!.annotations!.readOnlyHint, true);
  t.equal(byName.get('browser_click')!.annotations!.readOnlyHint, false);
  t.equal(byName.get('browser_click')!.annotations!.destructiveHint, false);
  t.equal(byName.get('browser_evaluate')!.annotations!.destructiveHint, true);
  t.equal(byName.get('browser_tabs')!.annotations!.openWorldHint, false);
  // Hints must be true of what the tool can do, not only of what it sends to sites.
  const hint = (n: string) => byName.get(n)!.annotations!;
  for (const n of ['browser_open', 'browser_history', 'browser_scroll', 'browser_pdf', 'browser_crawl']) t.equal(hint(n).idempotentHint, false, `${n} is not idempotent`);
  for (const n of ['browser_viewport', 'browser_pdf', 'browser_open', 'browser_navigate', 'browser_crawl', 'browser_monitor', 'browser_har']) t.equal(hint(n).readOnlyHint, false, `${n} changes state`);
  for (const n of ['browser_contexts', 'browser_close_tab', 'browser_session_delete', 'browser_route', 'browser_monitor', 'browser_record', 'browser_api_map', 'browser_har', 'browser_crawl_status']) t.equal(hint(n).destructiveHint, true, `${n} can delete, remove, close or cancel`);
  for (const tool of tools) {
    const a = tool.annotations!;
    if (a.readOnlyHint) t.equal(a.destructiveHint, false, `${tool.name}: read-only is never destructive`);
    if (a.readOnlyHint) t.equal(a.idempotentHint, true, `${tool.name}: read-only is idempotent`);
    // Every tool with an action that ends something is marked destructive.
    const action = (tool.inputSchema.properties as any)?.action;
    const ends = (action?.enum ?? []).some((v: string) => ['delete', 'remove', 'close', 'cancel'].includes(v));
    if (ends) t.equal(a.destructiveHint, true, `${tool.name} has an action that ends something`);
  }
});

t.test('unknown tools and bad arguments are validation errors that say what is accepted', async (t) => {
  const client = await d.mcp(alice);
  // An unknown tool is a JSON-RPC error (invalid params, -32602) that still lists the tools there are.
  const unknown: any = await call(client, 'browser_fly', {}).catch((e) => e);
  t.equal(unknown.code, -32602);
  t.match(unknown.message, /unknown tool "browser_fly"/);
  t.match(unknown.message, /browser_open/);
  const badKey = await call(client, 'browser_navigate', { url: 'http://127.0.0.1/', speed: 3 });
  t.ok(badKey.isError);
  t.match(badKey.text, /unknown parameter "speed".*accepted: url, timeoutMs, snapshot, tab/);
  const badEnum = await call(client, 'browser_history', { action: 'sideways' });
  t.match(badEnum.text, /"action" must be one of "back", "forward", "reload"/);
  const badKeyName = await call(client, 'browser_press', { key: 'Hyperspace' });
  t.ok(badKeyName.isError);
  t.match(badKeyName.text, /validation_error.*unknown key "Hyperspace"/);
  const rest = await d.rest(alice, 'POST', '/v1/tools/browser_history', { action: 'sideways' });
  t.equal(rest.status, 400);
  t.equal(rest.json.error.code, 'validation_error');
});

t.test('logging: the server takes logging/setLevel and sends its notices as notifications/message, at that level or above', async (t) => {
  const client = await d.mcp(alice);
  t.ok(client.getServerCapabilities()?.logging, 'the logging capability is declared');
  const notices: any[] = [];
  let wake: (() => void) | undefined;
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    notices.push(n.params);
    wake?.();
  });
  const next = () => (notices.length ? Promise.resolve() : new Promise<void>((r) => (wake = r)));
  // Before any setLevel: failures only, so the first notice heard is the failed call's, not the status call's.
  await call(client, 'browser_status', {});
  t.ok((await call(client, 'browser_history', { action: 'backwards' })).isError);
  await next();
  t.match(notices.shift(), { level: 'notice', data: { tool: 'browser_history', outcome: 'validation_error' } });
  await client.setLoggingLevel('debug');
  await call(client, 'browser_status', {});
  await next();
  t.match(notices.shift(), { level: 'debug', logger: 'browserd', data: { tool: 'browser_status', outcome: 'ok' } });
  await client.setLoggingLevel('notice');
  await call(client, 'browser_status', {});
  const bad = await call(client, 'browser_history', { action: 'sideways' });
  t.ok(bad.isError);
  await next();
  // The first notice after the change is the failure's: the successful call's debug notice was held back.
  t.match(notices.shift(), { level: 'notice', data: { tool: 'browser_history', outcome: 'validation_error' } });
});

