/** API map exports: OpenAPI validates, snippets and HAR carry placeholders only, TypeScript typechecks. */
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import ts from 'typescript';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { ApiMap } from '../../../protocol/api-map.js';
import { BrowserdError } from '../../../protocol/errors.js';
import { exportApiMap } from '../../../daemon/traffic/api-map/export.js';

// Values that look like secrets, put where a careless export would copy them.
const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXRva2Vu.sig9Xq';
const CSRF = 'csrf-7f3a9c1e5b2d4a6f';
const SID = 'sid-0a1b2c3d4e5f';
const KEY = 'key_live_5f4e3d2c1b';

const map: ApiMap = {
  id: 'api_0123456789abcdef',
  name: 'Shop API',
  hosts: ['shop.test'],
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-02T00:00:00.000Z',
  entries: 42,
  endpoints: [
    {
      id: 'GET /items', kind: 'http', method: 'GET', origin: 'https://shop.test', path: '/items', write: false, seen: 3,
      params: [
        { name: 'page', in: 'query', schema: { type: 'integer' }, required: false, example: '2' },
        { name: 'q', in: 'query', schema: { type: 'string' }, required: false, example: 'lamp' },
        { name: 'Authorization', in: 'header', schema: { type: 'string' }, required: true, example: `Bearer ${TOKEN}` },
        { name: 'access_token', in: 'query', schema: { type: 'string' }, required: false, example: TOKEN },
      ],
      responses: [{ status: 200, contentType: 'application/json', schema: { type: 'object', properties: { items: { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } }, required: ['id', 'name'] } }, page: { type: 'integer' } }, required: ['items', 'page'] }, example: '{"items":[{"id":7,"name":"Lamp"}],"page":2}' }],
      pagination: { style: 'page', param: 'page', start: 1 },
      auth: [{ kind: 'bearer', name: 'Authorization' }],
      dependencies: [],
    },
    {
      id: 'GET /items/{id}', kind: 'http', method: 'GET', origin: 'https://shop.test', path: '/items/{id}', write: false, seen: 2,
      params: [{ name: 'id', in: 'path', schema: { type: 'integer' }, required: true, example: '7' }, { name: 'sid', in: 'cookie', schema: { type: 'string' }, required: true, example: SID }],
      responses: [{ status: 200, contentType: 'application/json', schema: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } }, required: ['id'] } }, { status: 404 }],
      auth: [{ kind: 'cookie', name: 'sid' }],
      dependencies: [],
    },
    {
      id: 'GET /session', kind: 'http', method: 'GET', origin: 'https://shop.test', path: '/session', write: false, seen: 1,
      params: [{ name: 'X-Api-Key', in: 'header', schema: { type: 'string' }, required: true, example: KEY }],
      responses: [{ status: 200, contentType: 'application/json', schema: { type: 'object', properties: { csrf: { type: 'string' } } }, example: `{"csrf":"${CSRF}"}` }],
      auth: [{ kind: 'header', name: 'X-Api-Key' }],
      dependencies: [],
    },
    {
      id: 'POST /items', kind: 'http', method: 'POST', origin: 'https://shop.test', path: '/items', write: true, seen: 1,
      params: [{ name: 'X-CSRF-Token', in: 'header', schema: { type: 'string' }, required: true, example: CSRF }],
      requestBody: { contentType: 'application/json', schema: { type: 'object', properties: { name: { type: 'string' }, price: { type: 'number' } }, required: ['name'] }, example: '{"name":"Desk","price":99.5}' },
      responses: [{ status: 201, contentType: 'application/json', schema: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] } }],
      auth: [{ kind: 'cookie', name: 'sid' }],
      dependencies: [{ target: { in: 'header', name: 'X-CSRF-Token' }, source: { endpoint: 'GET /session', in: 'body', path: '/csrf' } }],
    },
    {
      id: 'graphql query ItemList', kind: 'graphql', method: 'POST', origin: 'https://shop.test', path: '/graphql', write: false, seen: 2,
      operation: { type: 'query', name: 'ItemList' }, params: [],
      requestBody: { contentType: 'application/json', schema: { type: 'object', properties: { operationName: { type: 'string' }, query: { type: 'string' }, variables: { type: 'object', properties: { first: { type: 'integer' } } } }, required: ['query'] }, example: '{"operationName":"ItemList","query":"query ItemList($first: Int) { items(first: $first) { id } }","variables":{"first":5}}' },
      responses: [{ status: 200, contentType: 'application/json', schema: { type: 'object', properties: { data: { type: 'object' } } } }],
      auth: [{ kind: 'bearer', name: 'Authorization' }], dependencies: [],
    },
    {
      id: 'graphql mutation AddItem', kind: 'graphql', method: 'POST', origin: 'https://shop.test', path: '/graphql', write: true, seen: 1,
      operation: { type: 'mutation', name: 'AddItem' }, params: [],
      requestBody: { contentType: 'application/json', schema: { type: 'object', properties: { query: { type: 'string' }, variables: { type: 'object', properties: { name: { type: 'string' }, token: { type: 'string' } } } }, required: ['query'] }, example: `{"query":"mutation AddItem($name: String!) { addItem(name: $name) { id } }","variables":{"name":"Chair","token":"${TOKEN}"}}` },
      responses: [{ status: 200, contentType: 'application/json', schema: { type: 'object' } }],
      auth: [{ kind: 'bearer', name: 'Authorization' }], dependencies: [],
    },
    {
      id: 'WS /ws', kind: 'websocket', method: 'GET', origin: 'wss://shop.test', path: '/ws', write: false, seen: 1, params: [], responses: [],
      auth: [], dependencies: [],
      messages: [{ direction: 'receive', count: 4, schema: { type: 'object', properties: { price: { type: 'number' } } }, example: '{"price":3}' }, { direction: 'send', count: 1, example: `{"auth":"${TOKEN}"}` }],
    },
  ],
};

const SECRETS = [TOKEN, CSRF, SID, KEY];
const noSecret = (t: { notOk: (v: unknown, m: string) => unknown }, text: string, what: string) => {
  for (const s of SECRETS) t.notOk(text.includes(s), `${what} holds no ${s.slice(0, 8)}…`);
};

t.test('OpenAPI 3.1 passes swagger-parser and has paths, params, security', async (t) => {
  const out = await exportApiMap(map, 'openapi');
  t.equal(out.fileName, 'shop-api.openapi.json');
  noSecret(t, out.text, 'openapi');
  const doc = JSON.parse(out.text);
  await t.resolves(SwaggerParser.validate(structuredClone(doc)), 'valid OpenAPI');
  t.equal(doc.openapi, '3.1.0');
  t.equal(doc.info.title, 'Shop API');
  t.same(doc.servers, [{ url: 'https://shop.test' }]);
  t.same(Object.keys(doc.paths), ['/graphql', '/items', '/items/{id}', '/session', '/ws'], 'sorted paths');
  const item = doc.paths['/items/{id}'].get;
  t.match(item.parameters, [{ name: 'id', in: 'path', required: true, example: '7' }]);
  t.notOk(item.parameters.some((p: { in: string }) => p.in === 'cookie'), 'the auth cookie is a security scheme, not a parameter');
  t.same(item.security, [{ cookie_sid: [] }]);
  t.same(Object.keys(doc.components.securitySchemes), ['bearerAuth', 'cookie_sid', 'header_X-Api-Key']);
  t.same(doc.components.securitySchemes.bearerAuth, { type: 'http', scheme: 'bearer', description: 'Bearer token in Authorization.' });
  t.same(doc.components.securitySchemes['header_X-Api-Key'], { type: 'apiKey', in: 'header', name: 'X-Api-Key' });
  t.same(doc.components.securitySchemes.cookie_sid, { type: 'apiKey', in: 'cookie', name: 'sid' });
  const list = doc.paths['/items'].get;
  t.same(list['x-pagination'], { style: 'page', param: 'page', start: 1 });
  t.same(list.security, [{ bearerAuth: [] }]);
  t.same(list.parameters.map((p: { name: string }) => p.name).sort(), ['access_token', 'page', 'q']);
  t.notOk(list.parameters.find((p: { name: string }) => p.name === 'access_token').example, 'no example for a secret query parameter');
  const post = doc.paths['/items'].post;
  t.equal(post.operationId, 'POST_items');
  t.match(post['x-dependencies'], [{ target: { in: 'header', name: 'X-CSRF-Token' }, env: 'CSRF_TOKEN', sourceOperationId: 'GET_session' }]);
  t.same(post.requestBody.content['application/json'].schema.required, ['name']);
  const gql = doc.paths['/graphql'].post;
  t.same(gql['x-graphql-operations'].map((o: { name: string; write: boolean }) => [o.name, o.write]), [['AddItem', true], ['ItemList', false]]);
  t.ok(doc.paths['/ws'].get['x-websocket'], 'WebSocket as an extension');
  t.ok(doc.paths['/ws'].get.responses['101']);
  t.equal((await exportApiMap(map, 'openapi')).text, out.text, 'deterministic');
});

t.test('curl: method, URL with query, env placeholders, CSRF comment', async (t) => {
  const all = await exportApiMap(map, 'curl');
  noSecret(t, all.text, 'curl');
  t.match(all.text, /get_items\(\) \{/, 'one function per endpoint');
  t.match(all.text, /'Authorization: Bearer '"\$API_TOKEN"/);
  t.match(all.text, /Cookie: sid='"\$COOKIE_SID"/);
  t.match(all.text, /X-Api-Key: '"\$API_KEY"/);
  t.match(all.text, /\$CSRF_TOKEN \(header X-CSRF-Token\) comes from the response of "GET \/session", body \/csrf/);
  t.match(all.text, /Pagination: pages by page number: query "page" from 1/);
  t.match(all.text, /WebSocket wss:\/\/shop\.test\/ws/);
  t.notMatch(all.text, /__BRD/, 'no sentinel left');
  const one = await exportApiMap(map, 'curl', { endpoint: 'GET /items' });
  t.equal(one.fileName, 'shop-api-get-items.sh');
  t.match(one.text, /curl --request GET/);
  t.match(one.text, /--url 'https:\/\/shop\.test\/items\?access_token='"\$ACCESS_TOKEN"'&page=2&q=lamp'/);
  t.notMatch(one.text, /POST/, 'endpoint narrows');
  const item = await exportApiMap(map, 'curl', { endpoint: 'GET /items/{id}' });
  t.match(item.text, /shop\.test\/items\/7/, 'path filled from the example');
});

t.test('curl: the shell really sends the environment values (loopback server)', async (t) => {
  const seen: { url?: string; headers?: Record<string, unknown>; body?: string } = {};
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      Object.assign(seen, { url: req.url, headers: req.headers, body });
      res.end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  const port = (server.address() as { port: number }).port;
  const text = (await exportApiMap(map, 'curl')).text.replaceAll('https://shop.test', `http://127.0.0.1:${port}`);
  const dir = mkdtempSync(join(tmpdir(), 'api-curl-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
  writeFileSync(join(dir, 'api.sh'), text);
  execFileSync('bash', ['-n', join(dir, 'api.sh')]);
  const env = { PATH: process.env.PATH, API_TOKEN: 'tok 1', ACCESS_TOKEN: 'a&b', COOKIE_SID: 's1', CSRF_TOKEN: 'c1', TOKEN: 'x"y' };
  await new Promise<void>((resolve, reject) => {
    import('node:child_process').then(({ execFile }) => execFile('bash', ['-c', `. ${join(dir, 'api.sh')} && get_items >/dev/null && post_items >/dev/null`], { env }, (e) => (e ? reject(e) : resolve())));
  });
  t.equal(seen.url, '/items', 'the last call was POST /items');
  t.equal(seen.headers!['x-csrf-token'], 'c1');
  t.equal(seen.headers!.cookie, 'sid=s1');
  t.same(JSON.parse(seen.body!), { name: 'Desk', price: 99.5 });
});

t.test('python: os.environ for secrets, functions, methods', async (t) => {
  const out = await exportApiMap(map, 'python');
  noSecret(t, out.text, 'python');
  t.match(out.text, /^import os$/m);
  t.match(out.text, /"Authorization": "Bearer " \+ os\.environ\['API_TOKEN'\]/);
  t.match(out.text, /"X-CSRF-Token": os\.environ\['CSRF_TOKEN'\]/);
  t.match(out.text, /def post_items\(\):\n {4}url = "https:\/\/shop\.test\/items"/);
  t.match(out.text, /requests\.post\(url, json=payload/);
  t.match(out.text, /"token": os\.environ\['TOKEN'\]/, 'a redacted body field becomes a placeholder');
  t.notMatch(out.text, /__BRD/);
  t.same(out.text.split('\n').filter((l) => !l.startsWith('#') && l.includes('[redacted]')), [], 'the redactor mark only in comments (a message example)');
});

t.test('HAR: one entry per endpoint, placeholders, parses', async (t) => {
  const out = await exportApiMap(map, 'har');
  noSecret(t, out.text, 'har');
  const har = JSON.parse(out.text);
  t.equal(har.log.version, '1.2');
  t.equal(har.log.entries.length, map.endpoints.length);
  const list = har.log.entries.find((e: { request: { url: string } }) => e.request.url.startsWith('https://shop.test/items?'));
  t.same(list.request.headers, [{ name: 'Authorization', value: 'Bearer $API_TOKEN' }]);
  t.match(list.request.queryString, [{ name: 'access_token', value: '$ACCESS_TOKEN' }, { name: 'page', value: '2' }, { name: 'q', value: 'lamp' }]);
  const ws = har.log.entries.find((e: { _resourceType: string }) => e._resourceType === 'websocket');
  t.equal(ws._webSocketMessages.length, 2);
  t.match(ws._webSocketMessages[1].data, /\[redacted\]/);
});

t.test('TypeScript: compiles strictly with the TypeScript compiler', async (t) => {
  const out = await exportApiMap(map, 'typescript');
  noSecret(t, out.text, 'typescript');
  t.match(out.text, /export interface GetItemsResponse/);
  t.match(out.text, /export async function postItems\(body: PostItemsRequest\)/);
  t.match(out.text, /export async function getItems\(params: GetItemsParams = \{\}\)/);
  t.match(out.text, /env\("CSRF_TOKEN"\)/);
  t.match(out.text, /`Bearer \$\{env\("API_TOKEN"\)\}`/);
  const dir = mkdtempSync(join(tmpdir(), 'api-export-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
  const file = join(dir, 'api.ts');
  writeFileSync(file, out.text);
  // A caller, so the helpers' signatures are exercised too.
  writeFileSync(join(dir, 'use.ts'), `import { getItems, getItemsById, postItems, queryItemList } from './api.js';\nexport async function use() {\n  const l = await getItems({ page: 2 });\n  const n: number = l.items[0]!.id;\n  await getItemsById({ id: n });\n  await postItems({ name: 'x', price: 1 });\n  await queryItemList({ first: 1 });\n}\n`);
  const program = ts.createProgram([file, join(dir, 'use.ts')], {
    strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'], types: ['node'], typeRoots: [join(process.cwd(), 'node_modules/@types')], skipLibCheck: true,
  });
  const diags = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  t.same(diags, [], 'no type errors');
  // And the checker is not blind: a wrong call is reported.
  writeFileSync(join(dir, 'use.ts'), `import { getItemsById } from './api.js';\nexport const x = getItemsById({ nope: 1 });\n`);
  const bad = ts.createProgram([file, join(dir, 'use.ts')], program.getCompilerOptions());
  t.ok(ts.getPreEmitDiagnostics(bad).length > 0, 'a wrong call fails to typecheck');
});

t.test('unknown endpoint and format', async (t) => {
  await t.rejects(exportApiMap(map, 'curl', { endpoint: 'GET /nope' }), { code: 'not_found', message: /GET \/nope/ });
  const e = await exportApiMap(map, 'xml' as never).catch((x: unknown) => x);
  t.ok(e instanceof BrowserdError && e.code === 'validation_error');
  t.equal((await exportApiMap(map, 'openapi', { endpoint: 'ItemList' })).text.includes('/items'), false, 'an operation name narrows too');
});
