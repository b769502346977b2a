/**
 * The REST route table's schemas are the checks (issue 35): walked row by row, every path parameter, query
 * parameter and body a route takes has a schema in routes.ts (or names the tool, operation or handler that
 * checks its body), no handler parses the query or decodes a segment by hand, and a bad value to each answers
 * 400 validation_error with a next step. No browser starts here.
 */
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TSchema } from '@sinclair/typebox';
import { startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { closeAll } from '../fixtures/close-all.js';
import { ROUTES, routeKey, type RouteSpec } from '../../daemon/server/routes.js';
import { pathParamNames } from '../../daemon/server/route-input.js';

const SERVER = join(import.meta.dirname, '../../daemon/server');

/** The REST contract: /v1 routes (the MCP endpoint, HTML pages and token links are not it). */
const rest = ROUTES.filter((r) => r.path.startsWith('/v1/') && r.auth !== 'none');

/** POSTs that act on the resource in their path and read no body. */
const NO_BODY = new Set(['POST /v1/crawls/{id}/pause', 'POST /v1/crawls/{id}/resume', 'POST /v1/crawls/{id}/cancel', 'POST /v1/tasks/{id}/cancel']);

/** Path parameters still checked in their handler, inside its audited change (each refusal audited too). */
const PATH_IN_HANDLER = new Set(['PUT /v1/vault/{name}', 'DELETE /v1/vault/{name}', 'DELETE /v1/vault/{name}/fields/{field}']);

/** A value each path parameter form accepts, so a bad query is the only thing wrong. */
const GOOD: Record<string, string> = { '^crawl_[0-9a-f]{16}$': 'crawl_00112233aabbccdd', '^wh_[0-9a-f]{16}$': 'wh_0011223344556677', '^[A-Za-z0-9._-]{1,64}$': 'c1' };

let d: TestDaemon;
let alice: string;
let admin: string;
t.before(async () => {
  d = await startTestDaemon();
  alice = await d.addUser('alice');
  admin = await d.daemon.env.users.replaceAdminKey();
});
t.teardown(() => closeAll(() => d.stop()));

const props = (s: RouteSpec['params']) => (s?.properties ?? {}) as Record<string, TSchema>;

function pathOf(route: RouteSpec, override: Record<string, string> = {}): string {
  return route.path.replace(/\{([a-z]+)\}/g, (_m, name: string) => override[name] ?? GOOD[props(route.params)[name]?.pattern ?? ''] ?? 'x1');
}

/** A query value the parameter's schema refuses, or undefined when any text fits (its handler judges it). */
function badQueryValue(s: TSchema): string | undefined {
  if (s.type === 'integer') return 'x';
  if (Array.isArray(s.enum)) return 'nope';
  if (s.pattern) return 'not-this-form';
  if (s.minLength) return '';
  return undefined;
}

const call = (route: RouteSpec, path: string, body?: unknown) => d.rest(route.auth === 'admin' ? admin : alice, route.method, path, body);

function refused(t: Pick<typeof import('tap').default, 'equal' | 'type'>, r: { status: number; json: any }, what: string) {
  t.equal(r.status, 400, `${what}: 400 (got ${r.status} ${r.json?.error?.code}: ${String(r.json?.error?.message).slice(0, 120)})`);
  t.equal(r.json?.error?.code, 'validation_error', `${what}: validation_error`);
  t.type(r.json?.error?.next, 'string', `${what}: says what to do next`);
}

t.test('every REST route with a path parameter has its schema in routes.ts, and every body its checker', async (t) => {
  for (const route of rest) {
    const key = routeKey(route);
    const names = pathParamNames(route.path);
    if (names.length && !PATH_IN_HANDLER.has(key)) t.same(Object.keys(props(route.params)).sort(), [...names].sort(), `${key}: a schema for each path parameter`);
    if (['POST', 'PUT', 'PATCH'].includes(route.method) && !NO_BODY.has(key)) t.ok(route.body, `${key}: says where its body is checked`);
    if (NO_BODY.has(key)) t.notOk(route.body, `${key}: reads no body`);
  }
});

t.test('no REST handler reads the query or decodes a path segment by hand: the route schemas do', async (t) => {
  const files = readdirSync(SERVER).filter((f) => /^rest(-[a-z-]+)?\.ts$/.test(f));
  t.ok(files.length > 10, 'the REST handler files are found');
  for (const f of files) {
    const src = readFileSync(join(SERVER, f), 'utf8');
    t.notMatch(src, /\br\.query\b/, `${f} reads no query by hand`);
    // The vault decodes inside its audited change; the SMS inbox before its secret check, answering 401 alike.
    if (f !== 'rest-vault.ts' && f !== 'rest-inbox.ts') t.notMatch(src, /decodeURIComponent/, `${f} decodes no segment by hand`);
  }
});

t.test('a bad value of each query parameter is 400 validation_error with a next step', async (t) => {
  let checked = 0;
  for (const route of rest.filter((r) => r.query)) {
    for (const [name, schema] of Object.entries(props(route.query))) {
      const bad = badQueryValue(schema);
      if (bad === undefined) continue;
      refused(t, await call(route, `${pathOf(route)}?${name}=${encodeURIComponent(bad)}`), `${routeKey(route)} ?${name}=${JSON.stringify(bad)}`);
      checked++;
    }
  }
  t.ok(checked >= 15, `every constrained query parameter tried (${checked})`);
});

t.test('a path parameter off its form, or not a decodable segment, is 400 validation_error with a next step', async (t) => {
  for (const route of rest.filter((r) => r.params)) {
    for (const [name, schema] of Object.entries(props(route.params))) {
      refused(t, await call(route, pathOf(route, { [name]: '%E0%A4%A' })), `${routeKey(route)} {${name}} = a broken escape`);
      if (schema.pattern) refused(t, await call(route, pathOf(route, { [name]: 'Not-This-Form!' })), `${routeKey(route)} {${name}} off its pattern`);
    }
  }
});

t.test('a body that is no object of arguments is 400 validation_error on every body-taking route', async (t) => {
  for (const route of rest.filter((r) => r.body)) {
    const path = route.path === '/v1/tools/{name}' ? '/v1/tools/browser_tabs' : route.path === '/v1/vault/{name}' ? '/v1/vault/example.com' : pathOf(route);
    const r = await call(route, path, [1]);
    // A vault write's answer is not parsed by the fixture (it may carry a secret): its status says enough.
    if (route.path === '/v1/vault/{name}') t.equal(r.status, 400, `${routeKey(route)}: 400`);
    else refused(t, r, `${routeKey(route)} with [1]`);
  }
});
