// The API map builder on HAR JSON built here (test/fixtures/api-har.ts): what it learns, and that no credential
// of the HAR survives into the map.
import t from 'tap';
import { buildApiMap, mergeApiMaps } from '../../../daemon/traffic/api-map/index.js';
import { trafficRedactor } from '../../../daemon/traffic/redact.js';
import { scrubList } from '../../../daemon/call/redact.js';
import type { ApiEndpoint, ApiMap } from '../../../protocol/api-map.js';
import { API_MAP_ID } from '../../../protocol/ids.js';
import { appHar, entry, har, SECRETS } from '../../fixtures/api-har.js';

const redactor = trafficRedactor(scrubList([]));
const map = buildApiMap(appHar(), { redactor });
const ep = (m: ApiMap, id: string): ApiEndpoint => {
  const e = m.endpoints.find((x) => x.id === id);
  if (!e) throw new Error(`no endpoint ${id} in ${m.endpoints.map((x) => x.id).join(', ')}`);
  return e;
};

t.test('the map: id, hosts, API entries only', async (t) => {
  t.match(map.id, API_MAP_ID);
  t.same(map.hosts, ['app.test']);
  t.equal(map.entries, 23, 'every HAR entry was read');
  const paths = map.endpoints.map((e) => e.path);
  t.notOk(paths.includes('/') || paths.includes('/app.js') || paths.includes('/logo.png'), 'document, script and image skipped');
  t.same(map.endpoints.filter((e) => e.origin !== 'https://app.test' && e.origin !== 'wss://app.test'), []);
});

t.test('path templates', async (t) => {
  const one = ep(map, 'GET /api/items/{id}');
  t.equal(one.seen, 2);
  t.same(one.params.find((p) => p.in === 'path'), { name: 'id', in: 'path', schema: { type: 'integer' }, required: true, example: '7' });
  t.same(ep(map, 'GET /api/items/{id}/parts/{id2}').params.filter((p) => p.in === 'path').map((p) => p.name), ['id', 'id2'], 'two ids in one path');
  const orders = ep(map, 'GET /users/{id}/orders');
  t.equal(orders.seen, 2, 'a word segment that varies between equal neighbours is an id');
  ep(map, 'GET /api/csrf');
  ep(map, 'GET /api/items');
  ep(map, 'POST /api/items');
  t.notOk(map.endpoints.some((e) => e.path === '/api/{id}'), '/api/csrf and /api/items stay two endpoints');
  t.same(ep(map, 'GET /api/items/{id}').responses[0]!.schema!.properties, { id: { type: 'integer' }, name: { type: 'string' }, created: { type: 'string' } });
});

t.test('GraphQL: operations by name and type; a mutation is a write', async (t) => {
  const q = ep(map, 'graphql query ItemList');
  t.equal(q.kind, 'graphql');
  t.same(q.operation, { type: 'query', name: 'ItemList' });
  t.equal(q.write, false, 'a query over POST is not a write');
  t.same((q.requestBody!.schema.properties as any).variables, { type: 'object', properties: { first: { type: 'integer' } }, required: ['first'] });
  const m = ep(map, 'graphql mutation AddItem');
  t.equal(m.write, true);
  t.equal(m.path, '/graphql');
  // A GET ?query= is read the same way.
  const get = buildApiMap(har([entry({ url: `/graphql?query=${encodeURIComponent('query Me { me { id } }')}`, response: { data: { me: { id: 1 } } } })]), { redactor });
  t.same(get.endpoints.map((e) => [e.id, e.write]), [['graphql query Me', false]]);
});

t.test('pagination styles', async (t) => {
  t.same(ep(map, 'GET /api/items').pagination, { style: 'page', param: 'page', start: 1 });
  t.same(ep(map, 'GET /api/feed').pagination, { style: 'offset', param: 'offset', limitParam: 'limit', pageSize: 20 });
  t.same(ep(map, 'GET /api/events').pagination, { style: 'cursor', param: 'cursor', from: '/meta/next_cursor' });
  t.same(ep(map, 'GET /api/news').pagination, { style: 'next_link', from: '/links/next' });
  t.same(ep(map, 'GET /api/public').pagination, { style: 'next_link', from: 'header:link' });
  t.equal(ep(map, 'GET /api/csrf').pagination, undefined, 'no paging where none was seen');
  // A cursor parameter that matches no earlier response value is not a cursor.
  const lone = buildApiMap(har([entry({ url: '/x?cursor=zzz999', response: { a: 1 } })]), { redactor });
  t.equal(lone.endpoints[0]!.pagination, undefined);
});

t.test('parameters: types, required, header params', async (t) => {
  const feed = ep(map, 'GET /api/feed');
  t.same(feed.params.map((p) => [p.name, p.in, p.schema, p.required]), [['offset', 'query', { type: 'integer' }, true], ['limit', 'query', { type: 'integer' }, true]]);
  const events = ep(map, 'GET /api/events');
  t.equal(events.params.find((p) => p.name === 'cursor')!.required, false, 'seen in one request of two');
  const post = ep(map, 'POST /api/items');
  t.same(post.params.map((p) => [p.name, p.in]), [['X-CSRF-Token', 'header'], ['X-Client', 'header']], 'X- headers are parameters; Authorization, Cookie, Accept are not');
  t.equal(post.params[0]!.example, '[redacted]');
  t.equal(post.params[1]!.example, 'web');
  t.equal(post.write, true);
  t.equal(post.requestBody!.contentType, 'application/json');
  t.same(post.responses.map((r) => r.status), [201]);
});

t.test('auth by name only; no secret in the map', async (t) => {
  t.same(ep(map, 'GET /api/items').auth, [{ kind: 'bearer', name: 'Authorization' }, { kind: 'cookie', name: 'sid' }, { kind: 'cookie', name: 'theme' }]);
  t.same(ep(map, 'GET /api/feed').auth, [{ kind: 'header', name: 'X-Api-Key' }]);
  const pub = ep(map, 'GET /api/public');
  t.same(pub.auth, [{ kind: 'query', name: 'api_key' }]);
  t.same(pub.params, [], 'an API key in the query is auth, not a parameter');
  const basic = buildApiMap(har([entry({ url: '/b', headers: { Authorization: 'Basic YW5uOnB3' }, response: {} })]), { redactor });
  t.same(basic.endpoints[0]!.auth, [{ kind: 'basic', name: 'Authorization' }]);
  const text = JSON.stringify(map);
  for (const [name, value] of Object.entries(SECRETS)) t.notOk(text.includes(value), `${name} is nowhere in the map`);
  t.match(ep(map, 'POST /api/login').responses[0]!.example, /"token":"\[redacted\]"/, 'examples are redacted, keys kept');
});

t.test('dependencies: a CSRF token and a login token from earlier responses', async (t) => {
  t.same(ep(map, 'POST /api/items').dependencies, [{ target: { in: 'header', name: 'X-CSRF-Token' }, source: { endpoint: 'GET /api/csrf', in: 'body', path: '/csrfToken' } }]);
  // The session cookie came from login's Set-Cookie, but the Cookie header is the browser's: not a dependency.
  t.same(ep(map, 'GET /api/csrf').dependencies, []);
  // A value sent BEFORE any response held it is no dependency.
  const before = buildApiMap(har([
    entry({ method: 'POST', url: '/a', headers: { 'X-Token': 'abc-123456789' }, body: {}, response: {} }),
    entry({ url: '/b', response: { t: 'abc-123456789' } }),
  ]), { redactor });
  t.same(before.endpoints.flatMap((e) => e.dependencies), []);
  // A double-submit cookie: the header equals a Set-Cookie value.
  const cookie = buildApiMap(har([
    entry({ url: '/form', response: {}, responseHeaders: { 'Set-Cookie': 'csrftoken=dbl-998877665544; Path=/' } }),
    entry({ method: 'POST', url: '/save', headers: { 'X-CSRFToken': 'dbl-998877665544' }, body: { a: 1 }, response: {} }),
  ]), { redactor });
  t.same(ep(cookie, 'POST /save').dependencies, [{ target: { in: 'header', name: 'X-CSRFToken' }, source: { endpoint: 'GET /form', in: 'cookie', path: 'csrftoken' } }]);
  t.notOk(JSON.stringify(cookie).includes('dbl-998877665544'));
  // A bearer token a login answered: Authorization depends on it (the credential after the scheme compared).
  const login = buildApiMap(har([
    entry({ method: 'POST', url: '/login', body: { user: 'a' }, response: { access: { token: SECRETS.loginToken } } }),
    entry({ url: '/me', headers: { Authorization: `Bearer ${SECRETS.loginToken}` }, response: { id: 1 } }),
  ]), { redactor });
  t.same(ep(login, 'GET /me').dependencies, [{ target: { in: 'header', name: 'Authorization' }, source: { endpoint: 'POST /login', in: 'body', path: '/access/token' } }]);
  t.notOk(JSON.stringify(login).includes(SECRETS.loginToken));
});

t.test('WebSocket and SSE: message schemas', async (t) => {
  const ws = ep(map, 'WS /ws');
  t.equal(ws.kind, 'websocket');
  t.equal(ws.origin, 'wss://app.test');
  const recv = ws.messages!.find((m) => m.direction === 'receive')!;
  t.equal(recv.count, 2);
  t.same(recv.schema, { type: 'object', properties: { type: { type: 'string' }, n: { type: 'integer' }, extra: { type: 'boolean' } }, required: ['type', 'n'] });
  const send = ws.messages!.find((m) => m.direction === 'send')!;
  t.equal(send.example, JSON.stringify({ type: 'auth', token: '[redacted]' }));
  const sse = ep(map, 'SSE /api/stream');
  t.equal(sse.kind, 'eventsource');
  t.same(sse.messages, [{ direction: 'receive', count: 2, schema: { type: 'object', properties: { price: { type: 'number' }, sym: { type: 'string' } }, required: ['price'] }, example: '{"price":1.5}' }]);
});

t.test('options: hosts and examples', async (t) => {
  const mixed = har([entry({ url: '/api/a', response: { a: 1 } }), entry({ url: 'https://cdn.other.test/api/b', response: { b: 1 } })]);
  t.same(buildApiMap(mixed, { redactor, hosts: ['app.test'] }).endpoints.map((e) => e.id), ['GET /api/a']);
  const bare = buildApiMap(appHar(), { redactor, examples: false });
  t.notOk(JSON.stringify(bare).includes('"example"'), 'no examples when examples is false');
  const long = buildApiMap(har([entry({ url: '/big', response: { items: Array.from({ length: 500 }, (_, i) => ({ i, text: 'x'.repeat(50) })) } })]), { redactor });
  const ex = long.endpoints[0]!.responses[0]!.example!;
  t.ok(ex.length <= 2100, 'examples are cut to about 2 KB');
  t.doesNotThrow(() => JSON.parse(ex), 'a cut JSON example is still JSON');
  t.same(buildApiMap({ nope: 1 }, { redactor }).endpoints, [], 'not a HAR: an empty map, no throw');
});

t.test('merge', async (t) => {
  const a = buildApiMap(har([entry({ url: '/api/items/1?lang=en', response: { id: 1 } })]), { redactor, name: 'shop' });
  const b = buildApiMap(har([
    entry({ url: '/api/items/2', response: { id: 2, price: 3.5 } }),
    entry({ url: '/api/items/3', status: 404, response: { error: 'gone' } }),
    entry({ method: 'DELETE', url: '/api/items/2', response: {} }),
  ]), { redactor });
  const m = mergeApiMaps(a, b);
  t.equal(m.id, a.id);
  t.equal(m.name, 'shop');
  t.equal(m.entries, 4);
  const get = ep(m, 'GET /api/items/{id}');
  t.equal(get.seen, 3);
  t.same(get.responses.map((r) => r.status), [200, 404]);
  t.same(Object.keys(get.responses[0]!.schema!.properties as object).sort(), ['id', 'price']);
  t.equal(get.params.find((p) => p.name === 'lang')!.required, false, 'a parameter one side never sent is optional');
  t.equal(get.params.find((p) => p.name === 'id')!.required, true);
  t.equal(ep(m, 'DELETE /api/items/{id}').write, true);
});
