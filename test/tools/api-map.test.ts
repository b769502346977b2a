/**
 * browser_api_map over MCP and REST with a HAR given in (test/fixtures/api-har.ts): build -> get -> list ->
 * export -> delete; another user sees nothing; bad input changes nothing; no credential of the HAR reaches any
 * answer, the audit log, the daemon's log or the stored map.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, findLeaks, startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { startApiApp, SECRETS as APP_SECRETS } from '../fixtures/api-app.js';
import { appHar, SECRETS } from '../fixtures/api-har.js';
import { apiMapStore } from '../../storage/api-maps.js';

let d: TestDaemon;
let alice: string;
let bob: string;
let client: Client;
const seen: { where: string; text: string }[] = [];

t.before(async () => {
  d = await startTestDaemon();
  alice = await d.addUser('alice');
  bob = await d.addUser('bob');
  client = await d.mcp(alice);
});
t.teardown(() => d.stop());

async function rest(args: Record<string, unknown>, token = alice) {
  const r = await d.rest(token, 'POST', '/v1/tools/browser_api_map', args);
  seen.push({ where: `REST ${JSON.stringify(args).slice(0, 60)}`, text: JSON.stringify(r.json) });
  return r;
}
async function mcp(args: Record<string, unknown>) {
  const r = await call(client, 'browser_api_map', args);
  seen.push({ where: `MCP ${JSON.stringify(args).slice(0, 60)}`, text: r.text });
  return r;
}

let id: string;

t.test('build from a HAR given as an object (REST) and as text (MCP)', async (t) => {
  const r = await rest({ action: 'build', har: appHar(), name: 'app' });
  t.equal(r.status, 200, JSON.stringify(r.json));
  id = r.json.map;
  t.match(id, /^api_[0-9a-f]{16}$/);
  t.equal(r.json.name, 'app');
  t.same(r.json.hosts, ['app.test']);
  t.ok(r.json.endpoints >= 15);
  t.match(r.json.text, /<<<page [0-9a-f]{12}[ >]/, 'endpoint lines came from pages: fenced');
  const m = await mcp({ action: 'build', har: JSON.stringify(appHar()), examples: false });
  t.notOk(m.isError, m.text);
  t.match(m.text, /Built api_[0-9a-f]{16}: \d+ endpoint\(s\)/);
  t.match(m.text, /POST \/api\/items \[write\]/);
});

t.test('get: the endpoints, and one endpoint whole', async (t) => {
  const r = await rest({ action: 'get', map: id });
  t.equal(r.status, 200);
  const items = r.json.endpoints.find((e: any) => e.id === 'GET /api/items/{id}');
  t.same(items.params[0], { name: 'id', in: 'path', schema: { type: 'integer' }, required: true, example: '7' });
  const post = r.json.endpoints.find((e: any) => e.id === 'POST /api/items');
  t.equal(post.write, true);
  t.same(post.dependencies, [{ target: { in: 'header', name: 'X-CSRF-Token' }, source: { endpoint: 'GET /api/csrf', in: 'body', path: '/csrfToken' } }]);
  t.same(post.auth.map((a: any) => a.name), ['Authorization', 'sid', 'theme']);
  const one = await rest({ action: 'get', map: id, endpoint: 'graphql mutation AddItem' });
  t.equal(one.json.endpoint.write, true);
  t.ok(one.json.endpoint.requestBody.schema, 'whole endpoint with its schemas');
  const byOp = await mcp({ action: 'get', map: id, endpoint: 'ItemList' });
  t.match(byOp.text, /graphql query ItemList/);
  const none = await rest({ action: 'get', map: id, endpoint: 'GET /nowhere' });
  t.equal(none.status, 404);
  t.equal(none.json.error.code, 'not_found');
});

t.test('list, merge into the same id', async (t) => {
  const l = await rest({});
  t.equal(l.json.action, 'list');
  const mine = l.json.maps.find((m: any) => m.id === id);
  t.same(Object.keys(mine).sort(), ['endpoints', 'hosts', 'id', 'name', 'updatedAt']);
  t.equal(l.json.maps.length, 2);
  const before = mine.endpoints;
  const extra = { log: { version: '1.2', entries: [{ startedDateTime: '2025-02-01T00:00:00Z', _resourceType: 'fetch', request: { method: 'GET', url: 'https://app.test/api/tags', headers: [] }, response: { status: 200, headers: [], content: { mimeType: 'application/json', text: '["a"]' } } }] } };
  const m = await rest({ action: 'merge', map: id, har: extra });
  t.equal(m.status, 200, JSON.stringify(m.json));
  t.equal(m.json.map, id, 'same id');
  t.equal(m.json.endpoints, before + 1);
  t.equal(apiMapStore(d.daemon.env.db).get('alice', id)!.endpoints.some((e) => e.id === 'GET /api/tags'), true, 'stored');
});

t.test('export stores a file of the user', async (t) => {
  const r = await rest({ action: 'export', map: id, format: 'openapi' });
  t.equal(r.status, 200, JSON.stringify(r.json));
  t.equal(r.json.format, 'openapi');
  t.match(r.json.url, /^\/v1\/files\//);
  const file = await d.rest(alice, 'GET', r.json.url);
  t.equal(file.status, 200);
  t.equal(file.json.openapi.startsWith('3.1'), true, 'an OpenAPI 3.1 document');
  seen.push({ where: 'exported file', text: JSON.stringify(file.json) });
  const one = await mcp({ action: 'export', map: id, format: 'curl', endpoint: 'GET /api/items/{id}' });
  t.notOk(one.isError, one.text);
  t.match(one.text, /curl/);
});

t.test("another user's map is not found; bad input changes nothing", async (t) => {
  for (const args of [{ action: 'get', map: id }, { action: 'delete', map: id }, { action: 'export', map: id, format: 'har' }, { action: 'merge', map: id, har: appHar() }]) {
    const r = await rest(args, bob);
    t.equal(r.status, 404, `${args.action} by bob`);
    t.equal(r.json.error.code, 'not_found');
  }
  t.same((await rest({}, bob)).json.maps, [], 'bob lists nothing');
  const store = apiMapStore(d.daemon.env.db);
  const snapshot = JSON.stringify(store.list('alice'));
  const cases: [Record<string, unknown>, string][] = [
    [{ action: 'build', har: 'not json' }, 'har'],
    [{ action: 'build', har: { log: {} } }, 'har'],
    [{ action: 'build', har: { log: { entries: [] } } }, 'har'],
    [{ action: 'build', har: appHar(), format: 'openapi' }, 'format'],
    [{ action: 'build', har: appHar(), name: 'x'.repeat(201) }, 'name'],
    [{ action: 'merge', har: appHar() }, 'map'],
    [{ action: 'get', map: 'api_123' }, 'map'],
    [{ action: 'export', map: id }, 'format'],
    [{ action: 'export', map: id, format: 'pdf' }, 'format'],
    [{ action: 'delete' }, 'map'],
    [{ action: 'fly' }, 'action'],
    [{ action: 'build', har: appHar(), hosts: ['a b'] }, 'hosts'],
  ];
  for (const [args, param] of cases) {
    const r = await rest(args);
    t.equal(r.status, 400, `${JSON.stringify(args).slice(0, 80)} refused`);
    t.equal(r.json.error.code, 'validation_error');
    t.match(JSON.stringify(r.json.error), param, `names ${param}`);
  }
  const other = await rest({ action: 'build', har: appHar(), hosts: ['nowhere.test'] });
  t.equal(other.status, 400, 'no API calls for the hosts: nothing stored');
  t.equal(JSON.stringify(store.list('alice')), snapshot, 'nothing changed');
  const unknown = await rest({ action: 'get', map: 'api_0000000000000000' });
  t.equal(unknown.status, 404);
});

t.test('delete', async (t) => {
  const r = await rest({ action: 'delete', map: id });
  t.equal(r.status, 200);
  t.equal(r.json.deleted, true);
  t.equal((await rest({ action: 'get', map: id })).status, 404);
  t.notOk((await rest({})).json.maps.some((m: any) => m.id === id));
});

t.test('no secret of the HAR anywhere: answers, audit, log, store, data file', async (t) => {
  const audit = await d.rest(alice, 'GET', '/v1/audit?limit=200');
  const entries = audit.json.entries.filter((e: any) => e.tool === 'browser_api_map');
  t.ok(entries.length > 10, 'calls are audited');
  t.ok(entries.some((e: any) => /^\[HAR \d+ (entries|chars)\]$/.test(e.args?.har)), 'the HAR by size only');
  const store = apiMapStore(d.daemon.env.db);
  const stored = store.list('alice').map((m) => JSON.stringify(store.get('alice', m.id)));
  const leaks = findLeaks(Object.values(SECRETS), [
    ...seen,
    { where: 'audit', text: JSON.stringify(entries) },
    { where: 'log', text: d.logLines.join('\n') },
    ...stored.map((text, i) => ({ where: `stored map ${i}`, text })),
    { where: 'data file', text: readFileSync(join(d.dataDir, 'browserd.lmdb')).toString('latin1') },
  ]);
  t.same(leaks, [], 'no leaks');
  t.ok(stored.length >= 1, 'there is a stored map to look at');
});

t.test('built from the tab\'s own HAR recording when no har is given', async (t) => {
  const app = await startApiApp();
  t.teardown(() => app.close());
  const tool = (name: string, args: Record<string, unknown>) => d.rest(alice, 'POST', `/v1/tools/${name}`, args);
  const tab = (await tool('browser_open', { mode: 'act', live: 'none' })).json.tab as string;
  const none = await rest({ action: 'build', tab });
  t.equal(none.json.error?.code, 'validation_error', 'a tab without a recording');
  t.match(none.json.error?.message, /has no HAR recording/);
  t.equal((await tool('browser_har', { action: 'start', tab })).status, 200);
  await tool('browser_navigate', { tab, url: `${app.url}/app` });
  t.equal((await tool('browser_wait', { tab, selector: '#done', timeoutMs: 20000 })).status, 200);
  const built = await rest({ action: 'build', tab, name: 'from the tab' });
  t.equal(built.status, 200, JSON.stringify(built.json).slice(0, 300));
  const got = await rest({ action: 'get', map: built.json.map });
  const text = JSON.stringify(got.json);
  t.match(text, /GET \/api\/items\/\{id\}/, 'the item endpoint templated from the recording');
  t.match(text, /POST \/graphql|graphql (query|mutation)/, 'GraphQL from the recording');
  for (const v of Object.values(APP_SECRETS)) t.notOk(text.includes(String(v)), 'no secret of the app in the map');
});
