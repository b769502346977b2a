/**
 * Toolsets over MCP with the real SDK client: a connection to /mcp?tools=core,vault lists only those tools and
 * finds every other one unknown (the same JSON-RPC error as a name that does not exist, on the direct path and
 * on the SDK's), a connection without the query has all 75, and an unknown set name is a 400 validation_error
 * naming the known sets, before any session exists.
 */
import t from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestDaemon } from '../fixtures/daemon.js';
import { TOOLS } from '../../daemon/main.js';
import { TOOLSETS } from '../../daemon/server/toolsets.js';

const d = await startTestDaemon();
const token = await d.addUser('sets');
const mine: Client[] = [];
t.teardown(async () => {
  for (const c of mine) await c.close().catch(() => undefined);
  await d.stop();
});

async function connect(query: string): Promise<Client> {
  const client = new Client({ name: 'browserd-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${d.url}/mcp${query}`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  mine.push(client);
  return client;
}

/** A call's result, or the JSON-RPC error it was refused with. progress: through the SDK's transport, not the direct path. */
const unknownError = (client: Client, name: string, progress = false): Promise<{ result?: unknown; code?: number; message?: string }> =>
  client.callTool({ name, arguments: {} }, undefined, progress ? { onprogress: () => undefined } : undefined).then(
    (r) => ({ result: r }),
    (e) => ({ code: e.code as number, message: String(e.message) }),
  );

t.test('?tools=core,vault lists those tools only, in the usual order', async (t) => {
  const client = await connect('?tools=core,vault');
  const { tools } = await client.listTools();
  const want = TOOLS.names().filter((n) => TOOLSETS.core!.includes(n) || TOOLSETS.vault!.includes(n));
  t.same(tools.map((x) => x.name), want);
  t.ok(want.includes('browser_fill_secret') && want.includes('browser_snapshot'));
  t.notOk(tools.some((x) => x.name === 'browser_crawl'), 'no crawl tool');
});

t.test('a tool outside the sets is unknown to that connection, as a name that does not exist is', async (t) => {
  const client = await connect('?tools=core,vault');
  const fly = await unknownError(client, 'browser_fly');
  t.equal(fly.code, -32602);
  for (const progress of [false, true]) {
    const crawl = await unknownError(client, 'browser_crawl_status', progress);
    t.equal(crawl.code, -32602, `${progress ? 'SDK path' : 'direct path'}: invalid params, like an unknown tool`);
    t.match(crawl.message, /unknown tool "browser_crawl_status"/);
    t.match(crawl.message, /browser_open/, 'the tools there are for this connection are named');
    t.notMatch(crawl.message, /browser_crawl\b|browser_monitor/, 'and no tool outside its sets');
  }
  // A tool inside the sets runs as usual.
  const listed = await client.callTool({ name: 'browser_vault_list', arguments: {} });
  t.notOk(listed.isError, 'browser_vault_list runs');
});

t.test('without the query, or with all, a connection has every tool', async (t) => {
  for (const q of ['', '?tools=all']) {
    const client = await connect(q);
    const { tools } = await client.listTools();
    t.equal(tools.length, 75, `${q || 'no query'}: 75 tools`);
    const r = await unknownError(client, 'browser_crawl_status');
    t.ok(r.result, 'browser_crawl_status is known: a result (its missing id refused), not a protocol error');
  }
});

t.test('an unknown toolset is a 400 validation_error naming the known ones, and no session is made', async (t) => {
  const before = d.daemon.app.mcp.sessionCount('sets');
  const res = await fetch(`${d.url}/mcp?tools=core,bogus`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
  });
  t.equal(res.status, 400);
  const body = (await res.json()) as any;
  t.equal(body.error.code, 'validation_error');
  t.match(body.error.message, /unknown toolset "bogus"/);
  t.match(body.error.next, /core, vault, .*cdp, all/);
  t.equal(d.daemon.app.mcp.sessionCount('sets'), before, 'no session was made');
  // The SDK client sees the refusal too.
  await t.rejects(connect('?tools=nope'));
});
