/**
 * browser_api_call on real Chromium against a loopback API: each pagination style to its bounds, page and
 * server mode (the profile's cookie reaches the site, never the answer), CSRF from a dependency, and every
 * refusal checked against the fixture's request log: nothing reaches the site.
 */
import t from 'tap';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startStack, type Stack } from '../fixtures/stack.js';
import { startTestDaemon } from '../fixtures/daemon.js';
import { html } from '../fixtures/site.js';
import type { ApiEndpoint, ApiMap } from '../../protocol/api-map.js';
import { apiMapStore } from '../../storage/api-maps.js';

const SID = 'sid-value-7f3a9c21e4';
const CSRF = 'csrf-token-5b8d2e91';
const ALL = Array.from({ length: 7 }, (_, i) => ({ id: i + 1, name: `item ${i + 1}` }));

let s: Stack;
let aliceId: string;

function json(res: ServerResponse, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(200, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
const q = (req: IncomingMessage) => new URL(req.url!, 'http://x').searchParams;

function ep(partial: Partial<ApiEndpoint> & { id: string; method: string; path: string }, origin = s.site.origin): ApiEndpoint {
  return { kind: 'http', origin, write: false, params: [], responses: [], auth: [], dependencies: [], seen: 1, ...partial };
}

function buildMap(id: string, roOrigin: string): ApiMap {
  return {
    id,
    name: 'fixture',
    hosts: ['127.0.0.1', 'ro.test'],
    createdAt: new Date().toISOString(),
    updatedAt: new Date().toISOString(),
    entries: 10,
    endpoints: [
      ep({ id: 'GET /api/paged', method: 'GET', path: '/api/paged', pagination: { style: 'page', param: 'page', start: 1 } }),
      // As a map built from traffic records it: every recorded request had ?page=, so the parameter looks required.
      ep({
        id: 'GET /api/paged-required', method: 'GET', path: '/api/paged', pagination: { style: 'page', param: 'page', start: 1 },
        params: [{ name: 'page', in: 'query', required: true, schema: { type: 'integer' }, example: '2' }],
      }),
      ep({ id: 'GET /api/offset', method: 'GET', path: '/api/offset', pagination: { style: 'offset', param: 'offset', limitParam: 'limit' } }),
      ep({ id: 'GET /api/cursor', method: 'GET', path: '/api/cursor', pagination: { style: 'cursor', param: 'cursor', from: '/meta/next' } }),
      ep({ id: 'GET /api/linked', method: 'GET', path: '/api/linked', pagination: { style: 'next_link', from: 'header:link' } }),
      ep({ id: 'GET /api/items/{id}', method: 'GET', path: '/api/items/{id}' }),
      ep({ id: 'GET /api/whoami', method: 'GET', path: '/api/whoami' }),
      ep({
        id: 'graphql query ItemByName', kind: 'graphql', method: 'POST', path: '/api/graphql', operation: { type: 'query', name: 'ItemByName' },
        requestBody: { contentType: 'application/json', schema: { type: 'object' }, example: JSON.stringify({ query: 'query ItemByName($name: String) { item(name: $name) { id name } }', variables: { name: 'x' } }) },
      }),
      ep({
        id: 'graphql mutation Rename', kind: 'graphql', method: 'POST', path: '/api/graphql', write: true, operation: { type: 'mutation', name: 'Rename' },
        requestBody: { contentType: 'application/json', schema: { type: 'object' }, example: JSON.stringify({ query: 'mutation Rename($id: Int) { rename(id: $id) }' }) },
      }),
      ep({ id: 'GET /api/csrf', method: 'GET', path: '/api/csrf' }),
      ep({
        id: 'POST /api/save', method: 'POST', path: '/api/save', write: true,
        dependencies: [{ target: { in: 'header', name: 'X-CSRF-Token' }, source: { endpoint: 'GET /api/csrf', in: 'body', path: '/csrf' } }],
      }),
      ep({ id: 'POST /api/ro', method: 'POST', path: '/api/ro', write: true }, roOrigin),
    ],
  };
}

const MAP = 'api_0123456789abcdef';

t.before(async () => {
  s = await startStack();
  const env = s.d.daemon.env;
  aliceId = env.users.list().find((u) => u.name === 'alice')!.id;
  // Stored the way browser_api_map stores a built map.
  await apiMapStore(env.db).put(aliceId, buildMap(MAP, `http://ro.test:${s.site.port}`));
  await env.policies.setRules(aliceId, [{ pattern: 'ro.test', access: 'read_only' }]);
  const site = s.site;
  site.route('/app', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': `sid=${SID}; Path=/; HttpOnly` });
    res.end(html('<h1>App</h1>'));
  });
  site.route('/api/paged', (req, res) => {
    const p = Number(q(req).get('page') ?? 1);
    json(res, { data: ALL.slice((p - 1) * 3, p * 3), page: p });
  });
  site.route('/api/offset', (req, res) => {
    const o = Number(q(req).get('offset') ?? 0);
    const l = Number(q(req).get('limit') ?? 2);
    json(res, { results: ALL.slice(o, o + l), total: ALL.length });
  });
  site.route('/api/cursor', (req, res) => {
    const c = Number(q(req).get('cursor') ?? 0);
    const next = c + 2 < ALL.length ? String(c + 2) : null;
    json(res, { items: ALL.slice(c, c + 2), meta: { next } });
  });
  site.route('/api/linked', (req, res) => {
    const p = Number(q(req).get('p') ?? 1);
    const link: Record<string, string> = p < 4 ? { link: `</api/linked?p=${p + 1}>; rel="next"` } : {};
    json(res, ALL.slice((p - 1) * 2, p * 2), link);
  });
  site.route('/api/items/7', (_req, res) => json(res, { id: 7, name: 'item 7' }));
  site.route('/api/whoami', (req, res) => json(res, { signedIn: (req.headers.cookie ?? '').includes(SID), echo: req.headers.cookie ?? null }));
  site.route('/api/csrf', (_req, res) => json(res, { csrf: CSRF }));
  site.route('/api/graphql', (_req, res, body) => {
    const { query, variables, operationName } = JSON.parse(body || '{}');
    json(res, { data: { op: operationName, query, variables } });
  });
  site.route('/api/save', (req, res, body) => {
    if (req.headers['x-csrf-token'] !== CSRF) {
      res.writeHead(403, { 'content-type': 'application/json' });
      return res.end('{"error":"bad csrf"}');
    }
    json(res, { saved: JSON.parse(body) });
  });
  site.route('/api/ro', (_req, res) => json(res, { written: true }));
});
t.teardown(() => s.stop());

const apiCall = (args: Record<string, unknown>) => s.rest('browser_api_call', { map: MAP, ...args });
const apiRequestsSince = (mark: number) => s.site.requests.slice(mark).filter((r) => r.path.startsWith('/api/'));

let actTab: string;
let readTab: string;

t.test('tabs on the app (its cookie set in the profile)', async (t) => {
  const a = await s.rest('browser_open', { url: `${s.site.origin}/app`, mode: 'act' });
  t.equal(a.status, 200, JSON.stringify(a.json));
  actTab = a.json.tab;
  const r = await s.rest('browser_open', { url: `${s.site.origin}/app`, mode: 'read' });
  readTab = r.json.tab;
});

t.test('the page parameter a detected pager fills is not asked of the caller', async (t) => {
  const all = await apiCall({ endpoint: 'GET /api/paged-required', tab: readTab });
  t.equal(all.status, 200, JSON.stringify(all.json));
  t.same(all.json.items.map((i: any) => i.id), [1, 2, 3, 4, 5, 6, 7], 'every page, from the first');
  t.equal(all.json.pages, 3);
});

t.test('page numbers: natural end, maxPages, maxItems', async (t) => {
  const all = await apiCall({ endpoint: 'GET /api/paged', tab: readTab });
  t.equal(all.status, 200, JSON.stringify(all.json));
  t.same(all.json.items.map((i: any) => i.id), [1, 2, 3, 4, 5, 6, 7]);
  t.equal(all.json.pages, 3, 'the short third page is the last');
  t.match(all.json.stoppedBecause, /short page/);
  const two = await apiCall({ endpoint: 'GET /api/paged', tab: readTab, maxPages: 2 });
  t.equal(two.json.pages, 2);
  t.equal(two.json.itemCount, 6);
  t.match(two.json.stoppedBecause, /maxPages/);
  const few = await apiCall({ endpoint: 'GET /api/paged', tab: readTab, maxItems: 4 });
  t.same(few.json.items.map((i: any) => i.id), [1, 2, 3, 4], 'cut at maxItems');
  t.equal(few.json.pages, 2);
  t.match(few.json.stoppedBecause, /maxItems/);
});

t.test('offset, cursor and Link header, each to its end and to maxPages', async (t) => {
  const off = await apiCall({ endpoint: 'GET /api/offset', params: { limit: 2 }, mode: 'server' });
  t.same(off.json.items.map((i: any) => i.id), [1, 2, 3, 4, 5, 6, 7]);
  t.equal(off.json.pages, 4);
  t.same(off.json.requests.map((r: any) => new URL(r.url).searchParams.get('offset')), [null, '2', '4', '6']);
  const cur = await apiCall({ endpoint: 'GET /api/cursor', tab: readTab });
  t.same(cur.json.items.map((i: any) => i.id), [1, 2, 3, 4, 5, 6, 7]);
  t.match(cur.json.stoppedBecause, /no next cursor/);
  const curShort = await apiCall({ endpoint: 'GET /api/cursor', tab: readTab, maxPages: 3 });
  t.equal(curShort.json.itemCount, 6);
  const link = await apiCall({ endpoint: 'GET /api/linked', mode: 'server' });
  t.same(link.json.items.map((i: any) => i.id), [1, 2, 3, 4, 5, 6, 7]);
  t.equal(link.json.pages, 4);
  t.match(link.json.stoppedBecause, /no next link/);
  const linkItems = await apiCall({ endpoint: 'GET /api/linked', tab: actTab, maxItems: 3 });
  t.equal(linkItems.json.itemCount, 3);
  t.equal(linkItems.json.pages, 2);
});

t.test('a concrete path finds its template; a missing path value is named', async (t) => {
  const one = await apiCall({ endpoint: 'GET /api/items/7', tab: readTab });
  t.equal(one.json.status, 200);
  t.match(one.json.text, /item 7/);
  const byId = await apiCall({ endpoint: 'GET /api/items/{id}', params: { id: 7 }, mode: 'server' });
  t.equal(byId.json.status, 200);
  const mark = s.site.requests.length;
  const missing = await apiCall({ endpoint: 'GET /api/items/{id}', mode: 'server' });
  t.equal(missing.json.error.code, 'validation_error');
  t.match(missing.json.error.message, /params\.id/);
  t.same(apiRequestsSince(mark), []);
});

t.test("page and server mode send the profile's cookie; the answer never shows it", async (t) => {
  const mark = s.site.requests.length;
  for (const args of [{ tab: readTab }, { mode: 'server' }, { mode: 'server', tab: actTab }]) {
    const r = await apiCall({ endpoint: 'GET /api/whoami', ...args });
    t.equal(r.status, 200, JSON.stringify(r.json));
    t.match(r.json.text, /"signedIn":true/, `signed in (${JSON.stringify(args)})`);
    t.notMatch(JSON.stringify(r.json), SID, 'the cookie value is nowhere in the answer');
  }
  const seen = apiRequestsSince(mark);
  t.equal(seen.length, 3);
  for (const r of seen) t.match(r.headers.cookie ?? '', SID, 'the site saw the cookie');
  t.notOk(s.d.logLines.some((l) => l.includes(SID)), 'no log line holds it');
});

t.test('CSRF comes from the dependency; the write goes through with access act', async (t) => {
  const mark = s.site.requests.length;
  for (const args of [{ tab: actTab }, { mode: 'server' }]) {
    const r = await apiCall({ endpoint: 'POST /api/save', body: { name: 'new' }, access: 'act', ...args });
    t.equal(r.json.status, 200, JSON.stringify(r.json));
    t.match(r.json.text, /"saved":\{"name":"new"\}/);
    t.notMatch(JSON.stringify(r.json), CSRF, 'the token is not shown');
  }
  const seen = apiRequestsSince(mark);
  t.same(seen.map((r) => `${r.method} ${r.path}`), ['GET /api/csrf', 'POST /api/save', 'GET /api/csrf', 'POST /api/save']);
  t.equal(seen[1]!.headers['x-csrf-token'], CSRF);
});

t.test('refusals send nothing', async (t) => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['a write without access act', { endpoint: 'POST /api/save', body: {}, mode: 'server' }, 'refused'],
    ['a write without access act (page)', { endpoint: 'POST /api/save', body: {}, tab: actTab }, 'refused'],
    ['a write in a read tab', { endpoint: 'POST /api/save', body: {}, tab: readTab, access: 'act' }, 'refused'],
    ['a write to a read-only site', { endpoint: 'POST /api/ro', body: {}, mode: 'server', access: 'act' }, 'site_read_only'],
    ['a Cookie header', { endpoint: 'GET /api/whoami', mode: 'server', headers: { Cookie: 'sid=x' } }, 'refused'],
    ['an Authorization header', { endpoint: 'GET /api/whoami', tab: readTab, headers: { authorization: 'Bearer x' } }, 'refused'],
    ['a CSRF header', { endpoint: 'POST /api/save', body: {}, access: 'act', mode: 'server', headers: { 'X-CSRF-Token': 'x' } }, 'refused'],
    ['an API key header', { endpoint: 'GET /api/whoami', mode: 'server', headers: { 'X-Api-Key': 'x' } }, 'refused'],
    ['an unknown endpoint', { endpoint: 'GET /api/nope', mode: 'server' }, 'not_found'],
    ['a session in page mode', { endpoint: 'GET /api/whoami', session: 'work' }, 'validation_error'],
  ];
  for (const [what, args, code] of cases) {
    const mark = s.site.requests.length;
    const r = await apiCall(args);
    t.equal(r.json.error?.code, code, `${what}: ${JSON.stringify(r.json.error ?? r.json.text)}`);
    t.same(apiRequestsSince(mark), [], `${what}: the site saw nothing`);
  }
  t.same(s.site.requests.filter((r) => r.path === '/api/ro'), [], 'the read-only site never got the write');
});

t.test('with approvals on, a write is asked about and not sent; a read still goes', async (t) => {
  await s.d.daemon.env.users.update('alice', { approvals: true });
  t.teardown(() => s.d.daemon.env.users.update('alice', { approvals: false }));
  const mark = s.site.requests.length;
  for (const args of [{ tab: actTab }, { mode: 'server' }]) {
    const r = await apiCall({ endpoint: 'POST /api/save', body: { name: 'asked' }, access: 'act', ...args });
    t.equal(r.status, 200);
    t.match(r.json.needsApproval, { action: 'api_call', classes: ['api write'], target: 'POST /api/save' });
    t.match(r.json.text, /needsApproval/);
  }
  t.same(apiRequestsSince(mark), [], 'neither the write nor its CSRF fetch was sent');
  const read = await apiCall({ endpoint: 'GET /api/whoami', mode: 'server' });
  t.equal(read.json.status, 200, 'reads are not asked about');
});

t.test('GraphQL: an operation by name, its query from the map, variables from params; a mutation is a write', async (t) => {
  const mark = s.site.requests.length;
  const r = await apiCall({ endpoint: 'ItemByName', params: { name: 'widget' }, mode: 'server' });
  t.equal(r.json.status, 200, JSON.stringify(r.json).slice(0, 300));
  t.match(r.json.text, /"op":"ItemByName"/);
  t.match(r.json.text, /query ItemByName\(\$name: String\)/);
  t.match(r.json.text, /"variables":\{"name":"widget"\}/);
  const refused = await apiCall({ endpoint: 'Rename', params: { id: 1 }, mode: 'server' });
  t.equal(refused.json.error?.code, 'refused', 'a mutation without access act');
  t.same(apiRequestsSince(mark).map((q) => `${q.method} ${q.path}`), ['POST /api/graphql'], 'the query went; the refused mutation did not');
});

t.test('another user cannot use the map', async (t) => {
  const bob = await s.d.addUser('bob');
  const mark = s.site.requests.length;
  const r = await s.d.rest(bob, 'POST', '/v1/tools/browser_api_call', { map: MAP, endpoint: 'GET /api/whoami', mode: 'server' });
  t.equal(r.json.error.code, 'not_found');
  t.same(apiRequestsSince(mark), []);
});

t.test('server mode: the private-network guard stops a loopback target', async (t) => {
  const guarded = await startTestDaemon({ allowPrivateNetwork: false });
  t.teardown(() => guarded.stop());
  const token = await guarded.addUser('carol');
  const carol = guarded.daemon.env.users.list().find((u) => u.name === 'carol')!.id;
  await apiMapStore(guarded.daemon.env.db).put(carol, buildMap(MAP, `http://ro.test:${s.site.port}`));
  const mark = s.site.requests.length;
  const r = await guarded.rest(token, 'POST', '/v1/tools/browser_api_call', { map: MAP, endpoint: 'GET /api/whoami', mode: 'server' });
  t.equal(r.json.error?.code, 'blocked', JSON.stringify(r.json));
  t.same(apiRequestsSince(mark), [], 'the fixture saw nothing');
});
