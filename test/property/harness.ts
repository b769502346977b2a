/**
 * The property every tool and REST-only operation must keep, whatever it is sent, and the world it is checked
 * in. Shared by the tap tests (test/property/*.test.ts) and `npm run fuzz` (scripts/fuzz.ts), so the long run
 * checks exactly what CI checks, only more often.
 *
 * The property: each call answers within CALL_BOUND_MS with a result, or with an error from the closed table
 * (protocol/errors.ts) that is not internal_error: over MCP an isError result whose text says `Error [code]`, or
 * a JSON-RPC -32602 (unknown tool, bad params); over REST a JSON error whose status is the one the table gives
 * its code. A 5xx is only accepted as such a table answer (503 browser_capacity, 502 navigation_failed...), never
 * a 500. After each tool's run the daemon still answers browser_status, and bob's tabs are where he left them.
 */
import fc from 'fast-check';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ERROR_CODES } from '../../protocol/errors.js';
import { DEFAULT_CDP_TIMEOUT_MS } from '../../daemon/cdp/connection.js';
import { toJsonSchema } from '../../daemon/call/schema.js';
import { ROUTES, TOOLS } from '../../daemon/main.js';
import { openapiPaths } from '../../scripts/docs.js';
import { startTestDaemon, resultText, type TestDaemon } from '../fixtures/daemon.js';
import { html, startSite, type FixtureSite } from '../fixtures/site.js';
import { cases, type Case, type Mix, type Targets } from './arbitraries.js';

/**
 * No call may take longer than this, whatever it was sent. The longest valid wait generated is ~2 s; a page
 * whose renderer stops answering is answered `timeout` once a CDP command passes its own limit, so the bound
 * leaves that limit a few seconds to report in.
 */
export const CALL_BOUND_MS = DEFAULT_CDP_TIMEOUT_MS + 5_000;
/** The seed of every run unless one is given: the same cases on every machine, so a failure reproduces. */
export const DEFAULT_SEED = 19_19_19;

export interface World {
  d: TestDaemon;
  site: FixtureSite;
  alice: string;
  bob: string;
  /** The host's admin key, for the admin routes. */
  admin: string;
  client: Client;
  targets: Targets;
  /** How the calls so far ended (ok, an error code, jsonrpc), so a run can show it reached past validation. */
  outcomes: Map<string, number>;
  /** Bob's tabs as he left them (id -> url), checked after every tool's run. */
  bobTabs: Map<string, string>;
  stop(): Promise<void>;
}

const FORM_PAGE = html(`<h1>Order</h1>
  <form action="/submit" method="post">
    <label>Name <input id="name" name="name"></label>
    <label>Email <input type="email" name="email"></label>
    <label>Size <select name="size"><option>S</option><option>M</option></select></label>
    <label><input type="checkbox" name="news"> News</label>
    <textarea name="note"></textarea>
    <input type="file" name="doc">
    <button type="submit">Send</button>
  </form>
  <a href="/page2">Second page</a> <a href="/page3">Third page</a>
  <button id="more" onclick="this.textContent='clicked'">More</button>
  <iframe src="/inner" width="300" height="60"></iframe>`, '', 'Order form');

export async function startWorld(): Promise<World> {
  const site = await startSite();
  site.route('/form', FORM_PAGE);
  site.route('/inner', html('<button onclick="this.textContent=\'in\'">Inner</button>'));
  site.route('/page2', html('<h1>Second</h1><p>Price: 12 EUR</p><a href="/form">back</a>', '', 'Second'));
  site.route('/page3', html('<h1>Third</h1><ul><li>a</li><li>b</li></ul>', '', 'Third'));
  site.route('/submit', (_req, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end(html('<p>Thanks</p>')); });
  site.route('/api/items', (_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"items":[1,2]}'); });
  const d = await startTestDaemon();
  const alice = await d.addUser('alice');
  const bob = await d.addUser('bob');
  const client = await d.mcp(alice);
  const admin = await d.daemon.env.users.replaceAdminKey();
  // Bob has more tabs than alice ever keeps, so his ids are also ids alice's calls may name.
  const bobTabs = new Map<string, string>();
  for (const path of ['/page2', '/page3', '/form', '/page2']) {
    const r = await d.rest(bob, 'POST', '/v1/tabs', { url: `${site.url}${path}` });
    if (r.status !== 201) throw new Error(`bob could not open a tab: ${JSON.stringify(r.json)}`);
    bobTabs.set(r.json.tab, r.json.url);
  }
  const targets: Targets = {
    urls: [`${site.url}/form`, `${site.url}/page2`, `${site.url}/api/items`, `${site.url}/nothing`, 'http://shop.test:1/', `http://localhost:${site.port}/page3`],
    tabs: [],
    foreignTabs: [...bobTabs.keys(), 't999', 'work/t1'],
    refs: [],
  };
  const world: World = { d, site, alice, bob, admin, client, targets, bobTabs, outcomes: new Map(), stop: async () => { await d.stop(); await site.close(); } };
  await resetAlice(world);
  return world;
}

/**
 * Puts alice back in a known state before a tool's run: one act tab on the form page (opened again if a run
 * closed it) and the refs of its snapshot. Arbitraries are built after this, from the tabs and refs now true.
 */
export async function resetAlice(w: World): Promise<void> {
  const { d, alice, site } = w;
  const list = await d.rest(alice, 'GET', '/v1/tabs');
  const tabs: { id: string; mode: string }[] = list.json?.tabs ?? [];
  // Runs may open tabs; many open tabs would slow every later call, so all but one go.
  const act = tabs.find((t) => t.mode === 'act' && !t.id.includes('/'));
  for (const t of tabs) if (t !== act) await d.rest(alice, 'DELETE', `/v1/tabs/${encodeURIComponent(t.id)}`);
  let id = act?.id;
  if (id) {
    const nav = await d.rest(alice, 'POST', '/v1/tools/browser_navigate', { tab: id, url: `${site.url}/form` });
    if (nav.status !== 200) id = undefined;
  }
  if (!id) {
    const r = await d.rest(alice, 'POST', '/v1/tabs', { url: `${site.url}/form`, mode: 'act' });
    if (r.status !== 201) throw new Error(`alice could not open her tab: ${JSON.stringify(r.json)}`);
    id = r.json.tab as string;
  }
  const snap = await d.rest(alice, 'POST', '/v1/tools/browser_snapshot', { tab: id });
  const refs = [...String(snap.json?.text ?? '').matchAll(/\[ref=((?:f\d+:)?e\d+)\]/g)].map((m) => m[1]);
  w.targets.tabs = [id];
  w.targets.refs = [...new Set(refs)].slice(0, 12).concat(['e999', 'f3:e1']);
}

/**
 * How many cases each subject gets in `npm run check`, and of which kinds. The bound: 76 tools, 16 operations
 * and 19 other routes share under ~5 minutes on 2 cores. A refused call (validation, not_found) costs a few
 * milliseconds; a valid one that loads or waits costs up to seconds. So every subject gets DEFAULT_RUNS cases;
 * tools that navigate, wait, or start background work (crawls, monitors, tasks, recordings, hand-offs), and
 * routes that would change the host, get SLOW_RUNS and no deliberately valid cases, since what matters there
 * is what they refuse. Measured on 2 shared cores: tools.test.ts ~2 min 45 s, rest-only.test.ts ~30-65 s
 * (the two files run side by side in ~2 min 10 s). BROWSERD_PROPERTY_RUNS scales both (0.2 for a quick look,
 * 5 for a longer CI job); `npm run fuzz` sets its own count.
 */
const DEFAULT_RUNS = 40;
const SLOW_RUNS = 16;
const SLOW = new Set([
  'browser_open', 'browser_navigate', 'browser_history', 'browser_wait', 'browser_pdf', 'browser_screenshot', 'browser_crawl', 'browser_map',
  'browser_explore', 'browser_monitor', 'browser_record', 'browser_replay', 'browser_replay_wait', 'browser_handoff', 'browser_handoff_wait',
  'browser_api_call', 'browser_api_map', 'browser_convert', 'browser_read', 'browser_login', 'browser_search', 'browser_capture', 'browser_har',
  'browser_session_load', 'browser_extract_ai', 'browser_captcha_act', 'browser_viewport', 'browser_close_tab', 'browser_route',
  'research', 'task_start', 'task_get', 'extractor_learn', 'extractor_run', 'ask', 'tab_act', 'tab_observe', 'tab_validate',
]);

/** Routes whose valid calls would change the host for every later case (settings, accounts): invalid cases only. */
const HOST_CHANGING = /^(POST|PATCH) \/v1\/admin\/|^POST \/signup$|^POST \/v1\/crawls$/;

export function planFor(name: string, scale = Number(process.env.BROWSERD_PROPERTY_RUNS ?? 1)): { runs: number; mix: Mix } {
  const slow = SLOW.has(name) || HOST_CHANGING.test(name);
  const runs = Math.max(1, Math.round((slow ? SLOW_RUNS : DEFAULT_RUNS) * (Number.isFinite(scale) && scale > 0 ? scale : 1)));
  return { runs, mix: slow ? { valid: 0, near: 3, hostile: 5 } : { valid: 4, near: 3, hostile: 4 } };
}

export type Transport = 'mcp' | 'rest';

export interface Subject {
  name: string;
  /** The JSON Schema cases are generated from: a tool's input, or a route's JSON body (or path parameters). */
  schema: Record<string, any>;
  /** REST-only operations are reached through their own routes, never over MCP. */
  operation: boolean;
  /** A REST route that is neither a tool nor an operation (bodies from api/openapi.yaml's source, scripts/docs.ts). */
  route?: { method: string; path: string; auth: 'none' | 'user' | 'admin'; body: boolean };
}

export function subjects(): Subject[] {
  return [
    ...TOOLS.tools.map((tool) => ({ name: tool.name, schema: toJsonSchema(tool.input), operation: false })),
    ...TOOLS.operations.map((tool) => ({ name: tool.name, schema: toJsonSchema(tool.input), operation: true })),
    ...routeSubjects(),
  ];
}

/**
 * Routes reached only over REST that the tool and operation subjects do not already cover: each with its JSON
 * body's schema as the docs generator writes it, or, for a route without a body, its path parameters. The MCP
 * endpoint, the tool route, the operation routes and the HTML admin console (form posts) are covered elsewhere.
 */
const COVERED = /^\/mcp$|^\/v1\/tools\/|^\/v1\/(research|tasks|extractors|ask)\b|^\/v1\/tabs\/\{id\}\/(observe|act|validate)$|^\/admin\/|^\/handoff\/|^\/live\/|^\/dl\//;

function routeSubjects(): Subject[] {
  const docs = openapiPaths();
  const out: Subject[] = [];
  for (const r of ROUTES) {
    if (r.method === 'GET' || COVERED.test(r.path)) continue;
    const op = docs[r.path]?.[r.method.toLowerCase()] as { requestBody?: { content?: Record<string, { schema?: Record<string, any> }> } } | undefined;
    const bodySchema = op?.requestBody?.content?.['application/json']?.schema;
    const params = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    const schema = bodySchema ?? { type: 'object', additionalProperties: false, required: params, properties: Object.fromEntries(params.map((p) => [p, { type: 'string', minLength: 1, maxLength: 80 }])) };
    out.push({ name: `${r.method} ${r.path}`, schema, operation: true, route: { method: r.method, path: r.path, auth: r.auth, body: !!bodySchema } });
  }
  return out;
}

/** The generated calls for one subject: which transport and which case. */
export function callsFor(s: Subject, w: World, mix: Mix): fc.Arbitrary<[Transport, Case]> {
  const transports: Transport[] = s.operation ? ['rest'] : ['mcp', 'rest'];
  return fc.constantFrom(...transports).chain((tr) => cases(s.schema, w.targets, mix, tr === 'rest').map((c) => [tr, c] as [Transport, Case]));
}

/** Sends one case and says what was wrong with the answer, or undefined when the property holds. */
export async function check(w: World, s: Subject, transport: Transport, c: Case): Promise<string | undefined> {
  return transport === 'mcp' ? checkMcp(w, s.name, c) : checkRest(w, s, c);
}

function bounded<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const bound = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: no answer within ${CALL_BOUND_MS / 1000} s`)), CALL_BOUND_MS); });
  return Promise.race([p, bound]).finally(() => clearTimeout(timer));
}

function tally(w: World, outcome: string): undefined {
  w.outcomes.set(outcome, (w.outcomes.get(outcome) ?? 0) + 1);
  return undefined;
}

/** The tally as one line, most frequent first, e.g. "validation_error 812, ok 95, not_found 40". */
export function outcomeLine(w: World): string {
  return [...w.outcomes].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ');
}

function codeProblem(code: unknown, status?: number): string | undefined {
  if (typeof code !== 'string' || !(code in ERROR_CODES)) return `error code ${JSON.stringify(code)} is not in the closed table`;
  if (code === 'internal_error') return 'internal_error';
  const want = ERROR_CODES[code as keyof typeof ERROR_CODES].status;
  if (status !== undefined && status !== want) return `HTTP ${status} for ${code}, the table says ${want}`;
  return undefined;
}

async function checkMcp(w: World, name: string, c: Case): Promise<string | undefined> {
  try {
    // The SDK client sends whatever `arguments` it is given (it checks answers, not requests), so hostile
    // arguments that are no object at all go through it too; a raw fetch is needed for nothing here.
    const r = await bounded(w.client.callTool({ name, arguments: c.args as Record<string, unknown> }, undefined, { timeout: CALL_BOUND_MS + 5_000 }), `MCP ${name}`);
    if (!r.isError) return tally(w, 'ok');
    const text = resultText(r);
    const m = /Error \[([a-z_]+)\]/.exec(text);
    tally(w, m?.[1] ?? 'isError without a code');
    if (!m) return `MCP isError without an "Error [code]" line: ${text.slice(0, 300)}`;
    const p = codeProblem(m[1]);
    return p && `MCP ${p}: ${text.slice(0, 500)}`;
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (code === -32602) return tally(w, 'jsonrpc -32602');
    // The gateway refuses a body too deep to parse before any JSON-RPC dispatch: HTTP 400 carrying a JSON-RPC
    // error (-32600 Invalid Request), which the SDK surfaces as a failed POST.
    const message = e instanceof Error ? e.message : '';
    if (code === 400 && /"code":-326(00|02)\b/.test(message)) return tally(w, 'jsonrpc -32600');
    return `MCP call threw: ${e instanceof Error ? e.message.slice(0, 500) : String(e)}`;
  }
}

/**
 * A string as one URL path segment. A lone surrogate has no UTF-8 form (encodeURIComponent throws), so it is
 * sent as a broken client would: its three WTF-8 bytes, which the daemon must refuse when it decodes the path.
 */
export function pathSegment(v: string): string {
  return v.replace(/[\ud800-\udbff][\udc00-\udfff]|[\s\S]/g, (c) => {
    const u = c.charCodeAt(0);
    if (c.length === 1 && u >= 0xd800 && u <= 0xdfff) return [0xe0 | (u >> 12), 0x80 | ((u >> 6) & 0x3f), 0x80 | (u & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    return encodeURIComponent(c);
  });
}

/** Where a subject is reached over REST, with the case's id or tab moved into the path as its route does. */
function restTarget(s: Subject, args: unknown): { method: string; path: string; body: boolean } {
  const a = (args && typeof args === 'object' && !Array.isArray(args) ? args : {}) as Record<string, unknown>;
  // Path segments carry what fits in a URL; anything else is sent as a plain bad id, refused the same way.
  const seg = (v: unknown) => pathSegment(typeof v === 'string' && v.length && v.length < 2000 ? v : 'x');
  if (s.route) {
    // A path parameter takes the generated value of the same name when there is one (a route without a body).
    const path = s.route.path.replace(/\{(\w+)\}/g, (_m, p: string) => (s.route!.body ? (p === 'name' ? 'shop.test' : 'x1') : seg(a[p])));
    return { method: s.route.method, path, body: s.route.body };
  }
  switch (s.name) {
    case 'research': return { method: 'POST', path: '/v1/research', body: true };
    case 'research_get': return { method: 'GET', path: `/v1/research/${seg(a.id)}`, body: false };
    case 'task_start': return { method: 'POST', path: '/v1/tasks', body: true };
    case 'task_list': return { method: 'GET', path: `/v1/tasks${typeof a.state === 'string' && a.state.length < 2000 ? `?state=${encodeURIComponent(a.state)}` : ''}`, body: false };
    case 'task_get': return { method: 'GET', path: `/v1/tasks/${seg(a.id)}${typeof a.waitS === 'number' ? `?waitS=${Math.min(a.waitS, 2)}` : ''}`, body: false };
    case 'task_cancel': return { method: 'POST', path: `/v1/tasks/${seg(a.id)}/cancel`, body: false };
    case 'task_delete': return { method: 'DELETE', path: `/v1/tasks/${seg(a.id)}`, body: false };
    case 'extractor_learn': return { method: 'POST', path: '/v1/extractors', body: true };
    case 'extractor_list': return { method: 'GET', path: '/v1/extractors', body: false };
    case 'extractor_get': return { method: 'GET', path: `/v1/extractors/${seg(a.id)}`, body: false };
    case 'extractor_delete': return { method: 'DELETE', path: `/v1/extractors/${seg(a.id)}`, body: false };
    case 'extractor_run': return { method: 'POST', path: `/v1/extractors/${seg(a.id)}/run`, body: true };
    case 'ask': return { method: 'POST', path: '/v1/ask', body: true };
    case 'tab_observe': case 'tab_act': case 'tab_validate':
      return { method: 'POST', path: `/v1/tabs/${seg(a.tab)}/${s.name.slice(4)}`, body: true };
    default:
      if (s.operation) throw new Error(`no REST route known for the operation ${s.name}: add it to restTarget`);
      return { method: 'POST', path: `/v1/tools/${s.name}`, body: true };
  }
}

/** Alice's token, the admin key on admin routes; open routes get none (they check their own secret). */
function authOf(w: World, s: Subject): Record<string, string> {
  if (s.route?.auth === 'none') return {};
  return { Authorization: `Bearer ${s.route?.auth === 'admin' ? w.admin : w.alice}` };
}

async function checkRest(w: World, s: Subject, c: Case): Promise<string | undefined> {
  const { method, path, body } = restTarget(s, c.args);
  const text = body ? (c.rawBody ?? (c.args === undefined ? '' : JSON.stringify(c.args))) : undefined;
  let status: number;
  let raw: string;
  try {
    const res = await fetch(`${w.d.url}${path}`, {
      method,
      headers: { ...authOf(w, s), ...(text !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      body: text,
      signal: AbortSignal.timeout(CALL_BOUND_MS),
    });
    status = res.status;
    raw = await res.text();
  } catch (e) {
    const err = e as Error & { cause?: { code?: string } };
    // A body far over the limit may be answered 413 and the connection closed before all of it was sent.
    if (text && text.length > 1_000_000 && /ECONNRESET|EPIPE|other side closed/.test(`${err.cause?.code} ${err.cause} ${err.message}`)) return tally(w, 'closed after 413');
    return `REST ${method} ${path}: ${err.name === 'TimeoutError' ? `no answer within ${CALL_BOUND_MS / 1000} s` : `${err.message} ${err.cause ?? ''}`}`;
  }
  let json: any;
  try {
    json = JSON.parse(raw);
  } catch {
    return `REST ${method} ${path}: HTTP ${status} answer is not JSON: ${raw.slice(0, 200)}`;
  }
  tally(w, status < 300 ? 'ok' : String(json?.error?.code));
  if (status >= 200 && status < 300) return json?.ok === true ? undefined : `REST ${method} ${path}: HTTP ${status} without ok: true`;
  if (json?.ok !== false || typeof json?.error !== 'object') return `REST ${method} ${path}: HTTP ${status} without an error body: ${raw.slice(0, 300)}`;
  const p = codeProblem(json.error.code, status);
  return p && `REST ${method} ${path}: ${p}: ${raw.slice(0, 500)}`;
}

/** After a tool's run: the daemon still serves alice, and bob's tabs are all there, where he left them. */
export async function stillServing(w: World): Promise<string | undefined> {
  try {
    const r = await bounded(w.client.callTool({ name: 'browser_status', arguments: {} }), 'browser_status');
    if (r.isError) return `browser_status failed: ${resultText(r).slice(0, 300)}`;
  } catch (e) {
    return `browser_status threw: ${e instanceof Error ? e.message : String(e)}`;
  }
  const tabs = await w.d.rest(w.bob, 'GET', '/v1/tabs');
  const now = new Map<string, string>((tabs.json?.tabs ?? []).map((t: { id: string; url: string }) => [t.id, t.url]));
  for (const [id, url] of w.bobTabs) if (now.get(id) !== url) return `bob's tab ${id} was at ${url}, now ${now.get(id) ?? 'gone'}`;
  return undefined;
}

/** The property for one subject, as fast-check runs it (the test and the fuzz script each assert it). */
export function propertyFor(w: World, s: Subject, mix: Mix) {
  return fc.asyncProperty(callsFor(s, w, mix), async ([transport, c]) => {
    const problem = await check(w, s, transport, c);
    if (problem) throw new Error(problem);
  });
}

/**
 * Runs the property for one subject and says what failed: the seed, the shrunk counterexample (summarised) and
 * the problem, or undefined when every case held. The test and `npm run fuzz` both report through this.
 */
export async function runProperty(w: World, s: Subject, opts: { runs: number; seed: number; mix: Mix }): Promise<string | undefined> {
  const r = await fc.check(propertyFor(w, s, opts.mix), { numRuns: opts.runs, seed: opts.seed });
  if (!r.failed) return undefined;
  const [transport, c] = (r.counterexample?.[0] ?? []) as [Transport?, Case?];
  const err = r.errorInstance instanceof Error ? r.errorInstance.message : String(r.errorInstance);
  return [
    `${s.name}: failed after ${r.numRuns} case(s), seed ${r.seed}, path ${r.counterexamplePath} (shrunk ${r.numShrinks} times)`,
    `  ${transport} ${c?.kind} case (${c?.shape}): ${c?.rawBody !== undefined ? `body ${describeCase(c.rawBody)}` : describeCase(c?.args)}`,
    `  ${err}`,
  ].join('\n');
}

/** Prints a case short enough to read: long strings and deep nesting are summarised. */
export function describeCase(value: unknown): string {
  let depth = 0;
  const seen = JSON.stringify(value, function (_k, v) {
    if (typeof v === 'string' && v.length > 120) return `${v.slice(0, 40)}... (${v.length} chars)`;
    if (Array.isArray(v) && v.length > 20) return `[${v.length} items]`;
    if (v && typeof v === 'object' && ++depth > 40) return '[deeper]';
    return v;
  });
  return seen && seen.length > 2_000 ? `${seen.slice(0, 2_000)}...` : String(seen);
}
