/**
 * The REST route table's schemas are the checks (issue 35): walked row by row, every path parameter, query
 * parameter and body a route takes has a schema in routes.ts (or names the tool or operation whose schema checks
 * its body), no handler parses the query, decodes a segment or reads a JSON body by hand, a bad value to each
 * answers 400 validation_error with a next step, and a row that audits its refusals audits them. No browser
 * starts here.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { featureFaces, repoRoot, sourceFiles } from '../fixtures/source-files.js';
import { join } from 'node:path';
import type { TSchema } from '@sinclair/typebox';
import { startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { closeAll } from '../fixtures/close-all.js';
import { routeKey, type RouteSpec } from '../../daemon/server/routes.js';
import { ROUTES } from '../../daemon/main.js';
import { pathParamNames } from '../../daemon/server/route-input.js';


/** The REST contract: /v1 routes (the MCP endpoint, HTML pages and token links are not it). */
const rest = ROUTES.filter((r) => r.path.startsWith('/v1/') && r.auth !== 'none');

/** POSTs that act on the resource in their path and read no body. */
const NO_BODY = new Set(['POST /v1/crawls/{id}/pause', 'POST /v1/crawls/{id}/resume', 'POST /v1/crawls/{id}/cancel', 'POST /v1/tasks/{id}/cancel', 'POST /v1/admin/users/{name}/hold', 'POST /v1/admin/users/{name}/release']);

/**
 * Bodies no JSON schema can say, read by their handler: an SMS forwarder's JSON, form or plain text (read only
 * after the inbox secret is checked), the sign-up form (counted per address before it is read), and a user's
 * archive moved in from another host of a fleet (binary frames, streamed to disk).
 */
const HANDLER_BODY = new Set(['POST /v1/inbox/sms/{inbox}', 'POST /signup', 'POST /v1/admin/users/import']);

/**
 * The files that may read a request body themselves: the tool-call body (checked by the dispatch), the
 * multipart upload of /v1/convert, the SMS forwarder's text; nothing else in a REST handler file.
 */
const READS_BODY = new Set(['daemon/server/rest-call.ts', 'daemon/docs/routes.ts', 'daemon/vault/sms-inbox-route.ts']);

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
    if (names.length) t.same(Object.keys(props(route.params)).sort(), [...names].sort(), `${key}: a schema for each path parameter`);
    if (['POST', 'PUT', 'PATCH'].includes(route.method) && !NO_BODY.has(key)) t.ok(route.body, `${key}: says where its body is checked`);
    if (NO_BODY.has(key)) t.notOk(route.body, `${key}: reads no body`);
  }
});

t.test('every body is checked by a schema: its own on the row, or its tool\'s or operation\'s', async (t) => {
  for (const route of ROUTES.filter((r) => r.body)) {
    const key = routeKey(route);
    if ('handler' in route.body!) t.ok(HANDLER_BODY.has(key), `${key}: a body read by hand must be one no JSON schema can say`);
    else if ('schema' in route.body!) t.equal(route.body.schema.type ?? (route.body.schema.anyOf ? 'object' : undefined), 'object', `${key}: its body schema is an object (or a union of them)`);
    else t.ok('tool' in route.body! || 'operation' in route.body!, `${key}: names its checker`);
  }
});

t.test('no REST handler reads the query or decodes a path segment by hand: the route schemas do', async (t) => {
  // The server's REST files, and every file of a feature's face (its feature.ts and what that lists) that
  // holds route handlers.
  const read = (f: string) => readFileSync(join(repoRoot, f), 'utf8');
  const files = [...sourceFiles('daemon').filter((f) => /^daemon\/server\/rest(-[a-z-]+)?\.ts$/.test(f)), ...featureFaces().filter((f) => /\bHandler\b|handlers:/.test(read(f)))];
  t.ok(files.length > 10, `the REST handler files are found (${files.length})`);
  t.ok(['daemon/crawl/routes.ts', 'daemon/vault/routes.ts', 'daemon/vault/sms-inbox-route.ts', 'daemon/cache/routes.ts', 'daemon/tools/feature.ts'].every((f) => files.includes(f)), 'feature route files among them');
  for (const f of files) {
    const src = readFileSync(join(repoRoot, f), 'utf8');
    t.notMatch(src, /\br\.query\b/, `${f} reads no query by hand`);
    // The SMS inbox decodes before its secret check, answering 401 alike.
    if (f !== 'daemon/vault/sms-inbox-route.ts') t.notMatch(src, /decodeURIComponent/, `${f} decodes no segment by hand`);
    if (!READS_BODY.has(f)) t.notMatch(src, /\b(readJson|readBody|parseJsonBounded|JSON\.parse)\b/, `${f} reads no body by hand: input.body() checks it against the row's schema`);
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

t.test('a row that audits its refusals audits a bad path parameter or body as validation_error, and changes nothing', async (t) => {
  const rows = rest.filter((r) => r.refusalsAudited);
  t.ok(rows.length >= 5, `the audited rows are found (${rows.length})`);
  for (const route of rows) {
    const who = route.auth === 'admin' ? '(admin)' : 'alice';
    const count = () => d.daemon.env.audit.all(100000).filter((e) => e.user === who && e.outcome === 'validation_error').length;
    const before = count();
    const names = pathParamNames(route.path);
    const path = names.length ? pathOf(route, { [names[names.length - 1]!]: 'Not-This-Form!' }) : pathOf(route);
    const r = await call(route, path, route.body ? { nope: 1 } : undefined);
    t.equal(r.status, 400, `${routeKey(route)}: 400`);
    t.equal(count(), before + 1, `${routeKey(route)}: the refusal is audited`);
  }
  t.same(d.daemon.env.vault.list('alice'), [], 'no vault entry was made by a refusal');
  t.same(d.daemon.env.webhookReceivers.list('alice'), [], 'no webhook was registered by a refusal');
});
