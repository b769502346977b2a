/**
 * The operator's log: one line per HTTP request and one per tool call, tied by the request id (the client's
 * X-Request-Id, or ours, echoed either way); never a token, key, argument value or a path's own token. Egress
 * refusals name the user whose browser asked; a browser's pid does not overwrite the daemon's.
 */
import t from 'tap';
import { startTestDaemon, call } from '../fixtures/daemon.js';
import { startSite } from '../fixtures/site.js';

const d = await startTestDaemon();
const site = await startSite();
t.teardown(async () => {
  await d.stop();
  await site.close();
});
const alice = await d.addUser('alice');
const admin = await d.daemon.env.users.replaceAdminKey();

/** The JSON log lines with a given message. */
const lines = (msg: string) => d.logLines.map((l) => JSON.parse(l)).filter((e) => e.msg === msg);

t.test('a REST tool call: one request line and one tool-call line, tied by the id the client sent', async (t) => {
  const secretText = 'typed-value-7f3k2';
  const opened = await d.rest(alice, 'POST', '/v1/tabs', { url: `${site.url}/form?q=${secretText}` }, { 'X-Request-Id': 'client-req-0001' });
  t.equal(opened.status, 201);
  t.equal(opened.headers.get('x-request-id'), 'client-req-0001', 'echoed');
  const req = lines('http request').find((e) => e.reqId === 'client-req-0001');
  t.match(req, { method: 'POST', route: '/v1/tabs', user: 'alice', status: 201 });
  t.type(req.ms, 'number');
  t.ok(req.bytes > 0, 'the size of the answer');
  const tool = lines('tool call').find((e) => e.reqId === 'client-req-0001');
  t.match(tool, { user: 'alice', tool: 'browser_open', via: 'rest', outcome: 'ok' });
  t.type(tool.ms, 'number');
  t.notOk(d.logLines.some((l) => l.includes(secretText)), 'no argument value in any log line');
});

t.test('without an id (or with one we cannot echo) the daemon makes one; errors carry their code', async (t) => {
  const r = await d.rest(alice, 'POST', '/v1/tools/browser_navigate', { url: 'not a url at all' }, { 'X-Request-Id': 'bad id with spaces and "quotes"' });
  const id = r.headers.get('x-request-id')!;
  t.match(id, /^\d{20}$/, 'a new id, digits only (no letters to spell a secret by chance)');
  t.match(lines('http request').find((e) => e.reqId === id), { route: '/v1/tools/{name}', status: 400, code: 'validation_error', user: 'alice' });
  t.match(lines('tool call').find((e) => e.reqId === id), { tool: 'browser_navigate', outcome: 'validation_error' });
  const wrong = await d.rest('bd_not-a-real-token', 'GET', '/v1/me');
  t.match(lines('http request').find((e) => e.reqId === wrong.headers.get('x-request-id')), { route: '/v1/me', status: 401, code: 'unauthorized' });
  const none = await d.rest(alice, 'GET', '/v1/nothing-here');
  t.match(lines('http request').find((e) => e.reqId === none.headers.get('x-request-id')), { route: 'no route', status: 404 });
});

t.test('MCP: the POST that carried a tool call and the call itself share one id', async (t) => {
  const client = await d.mcp(alice);
  const r = await call(client, 'browser_tabs', {});
  t.notOk(r.isError);
  const tool = lines('tool call').filter((e) => e.tool === 'browser_tabs' && e.via === 'mcp').pop();
  t.ok(tool?.reqId, 'the tool call has a request id');
  t.match(lines('http request').find((e) => e.reqId === tool.reqId), { method: 'POST', route: '/mcp', user: 'alice', status: 200 });
});

t.test('no token, key, or token in a path reaches the log', async (t) => {
  await d.rest(admin, 'GET', '/v1/admin/users');
  t.ok(lines('http request').some((e) => e.route === '/v1/admin/users' && e.user === '(admin)'));
  const live = (await d.rest(alice, 'POST', '/v1/tabs', { url: `${site.url}/` })).json.live_url as string;
  await fetch(live);
  const liveToken = live.split('/live/')[1]!;
  t.ok(lines('http request').some((e) => e.route === '/live/{token}'), 'the live page is logged by its route');
  const all = d.logLines.join('\n');
  for (const [what, secret] of [['user token', alice], ['admin key', admin], ['live link token', liveToken]] as const) t.notOk(all.includes(secret), `no ${what} in the log`);
});

t.test("a browser's pid is a field of its own; an egress refusal names the user", async (t) => {
  const started = lines('browser started').find((e) => e.user === 'alice');
  t.type(started.browserPid, 'number');
  t.equal(started.pid, process.pid, "pino's pid stays the daemon's");
  // No DNS in tests: this name resolves nowhere, so the guard refuses it.
  await d.rest(alice, 'POST', '/v1/tabs', { url: 'http://nowhere-at-all.example/' });
  const refused = lines('egress blocked').find((e) => e.host === 'nowhere-at-all.example');
  t.match(refused, { user: 'alice' }, JSON.stringify(refused));
  t.type(refused.browserPid, 'number');
});
