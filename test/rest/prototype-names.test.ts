/**
 * Names that are also Object.prototype's ('constructor', '__proto__', 'toString', 'hasOwnProperty') sent wherever
 * a caller names something: as the tool of a call over MCP and REST, and as every name or id in a user route's
 * path. Each answers a proper refusal (unknown tool, not_found, validation_error), never HTTP 500 or JSON-RPC
 * -32603: a plain-object table read by the caller's string once answered "LENGTH_ONLY[tool]?.has is not a function".
 */
import t from 'tap';
import { McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { ROUTES } from '../../daemon/main.js';

const NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

let d: TestDaemon;
let token: string;
t.before(async () => {
  d = await startTestDaemon();
  token = await d.addUser('alice');
});
t.teardown(() => d.stop());

t.test('as a tool name over REST: 400 validation_error (unknown tool)', async (t) => {
  for (const name of NAMES) {
    // An argument, so the audit's redaction looks the tool up in its tables (it did not with none).
    const r = await d.rest(token, 'POST', `/v1/tools/${name}`, { text: 'x' });
    t.equal(r.status, 400, `${name}: status`);
    t.equal(r.json?.error?.code, 'validation_error', `${name}: code`);
  }
});

t.test('as a tool name over MCP: invalid params (-32602), not internal error', async (t) => {
  const client = await d.mcp(token);
  for (const name of NAMES) {
    const e = await client.callTool({ name, arguments: { text: 'x' } }).then(
      () => undefined,
      (err: unknown) => err,
    );
    t.ok(e instanceof McpError, `${name}: a JSON-RPC error`);
    t.equal((e as McpError).code, ErrorCode.InvalidParams, `${name}: ${(e as Error).message}`);
  }
});

t.test('as every name or id in a user route path: never 500', async (t) => {
  const routes = ROUTES.filter((r) => r.auth === 'user' && r.path.includes('{') && r.path !== '/v1/tools/{name}');
  t.ok(routes.length > 10, 'the routes with a caller name are found');
  for (const route of routes) {
    for (const name of NAMES) {
      const path = route.path.replace(/\{[^}]+\}/g, name);
      const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : { text: 'x' };
      const r = await d.rest(token, route.method, path, body);
      t.ok(r.status < 500 && r.json?.error?.code !== 'internal_error', `${route.method} ${path}: ${r.status} ${r.json?.error?.code ?? ''}`);
    }
  }
});
