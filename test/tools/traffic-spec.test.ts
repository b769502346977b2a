/**
 * The traffic tools as their contract words them, on real Chromium against the loopback site: a capture cuts
 * every kind of body at maxBytes, takes only real HTTP methods, and reads `*` as "anything"; the captured
 * listing is not narrowed by the recent-responses filters; a HAR can record CORS preflights.
 */
import t from 'tap';
import type { ServerResponse } from 'node:http';
import { call } from '../fixtures/daemon.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import { html } from '../fixtures/site.js';

let s: Stack;
const LONG = 'x'.repeat(10_000);

const send = (type: string, body: string) => (_req: unknown, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': type });
  res.end(body);
};

interface Body { text: string; size: number; truncated: boolean }
interface Row { method: string; url: string; type: string; status: number; requestBody?: Body; responseBody?: Body }

t.before(async () => {
  s = await startStack();
  s.site.route('/blank', html('<p>blank</p>'));
  s.site.route('/long/text', send('text/plain', LONG));
  s.site.route('/long/json', send('application/json', JSON.stringify({ filler: LONG })));
  s.site.route('/long/page', send('text/html', `<p>${LONG}</p>`));
  s.site.route('/long/bin', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    res.end(Buffer.from(Array.from({ length: 5000 }, (_v, i) => (i * 7919 + 255) % 256)));
  });
  s.site.route('/deep/a/b/c', send('application/json', '{"deep":true}'));
  s.site.route('/missing', (_req, res) => {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('gone');
  });
  s.site.route('/long/post', send('text/plain', 'ok'));
  s.site.route('/cors', (req, res) => {
    const cors = { 'access-control-allow-origin': '*', 'access-control-allow-headers': 'x-thing', 'access-control-allow-methods': 'GET' };
    res.writeHead(req.method === 'OPTIONS' ? 204 : 200, { ...cors, 'content-type': 'application/json' });
    res.end(req.method === 'OPTIONS' ? '' : '{"cors":true}');
  });
});
t.teardown(() => s.stop());

async function openTab(): Promise<string> {
  const r = await s.rest('browser_open', { url: `${s.site.url}/blank`, mode: 'act' });
  if (r.status !== 200) throw new Error(JSON.stringify(r.json));
  return r.json.tab as string;
}

/** Runs fetches in the page and waits for them all to be answered. */
async function fetchInPage(tab: string, script: string) {
  const r = await s.rest('browser_evaluate', { tab, js: `(async () => { ${script}; return 'done'; })()` });
  if (r.status !== 200) throw new Error(JSON.stringify(r.json));
}

/** The captured exchanges once `n` were seen: the capture keeps one a moment after its body is read. */
async function capturedAtLeast(tab: string, n: number, extra: Record<string, unknown> = {}): Promise<Row[]> {
  const until = Date.now() + 10_000;
  for (;;) {
    const r = await s.rest('browser_network', { tab, captured: true, ...extra });
    if ((r.json.capture?.kept ?? 0) >= n || Date.now() > until) return r.json.captured as Row[];
    await new Promise((res) => setTimeout(res, 50));
  }
}

const pathOf = (u: string) => new URL(u).pathname;

t.test('maxBytes cuts every body it keeps: text, JSON, a document, a request body', async (t) => {
  const tab = await openTab();
  const start = await s.rest('browser_capture', { tab, urlPattern: '/long/', maxBytes: 200 });
  t.equal(start.status, 200, JSON.stringify(start.json));
  await fetchInPage(tab, `await fetch('/long/text').then((r) => r.text()); await fetch('/long/json').then((r) => r.text());
    await fetch('/long/bin').then((r) => r.arrayBuffer());
    await fetch('/long/post', { method: 'POST', body: ${JSON.stringify(LONG)} }).then((r) => r.text())`);
  await s.rest('browser_navigate', { tab, url: `${s.site.url}/long/page` });
  const rows = await capturedAtLeast(tab, 5);
  const byPath = new Map(rows.map((r) => [pathOf(r.url), r]));
  for (const p of ['/long/text', '/long/json', '/long/page']) {
    const body = byPath.get(p)?.responseBody;
    t.ok(body, `${p} kept a response body`);
    t.ok(Buffer.byteLength(body!.text) <= 200, `${p}: ${Buffer.byteLength(body!.text)} bytes kept of ${body!.size}`);
    t.equal(body!.truncated, true, `${p}: marked cut`);
    t.ok(body!.size > 200, `${p}: the whole size is still told`);
  }
  const bin = byPath.get('/long/bin')?.responseBody as (Body & { base64: boolean }) | undefined;
  t.ok(bin?.base64, 'a binary body is kept as base64');
  t.ok(bin && Buffer.from(bin.text, 'base64').length <= 200 && bin.truncated, 'of at most maxBytes bytes, marked cut');
  const post = byPath.get('/long/post')?.requestBody;
  t.ok(post && Buffer.byteLength(post.text) <= 200 && post.truncated, 'the request body is cut too');
});

t.test('methods is a subset of the HTTP methods; anything else changes nothing', async (t) => {
  const tab = await openTab();
  await s.rest('browser_capture', { tab, urlPattern: '/keep-me/' });
  for (const methods of [['FETCH'], ['get post'], ['GET', 'GET'], ['TRACE'], ['CONNECT']]) {
    const r = await s.rest('browser_capture', { tab, urlPattern: '*', methods });
    t.equal(r.json.error?.code, 'validation_error', `${JSON.stringify(methods)} refused`);
  }
  const still = await s.rest('browser_network', { tab, captured: true });
  t.equal(still.json.capture.urlPattern, '/keep-me/', 'the running capture is untouched');
  const ok = await s.rest('browser_capture', { tab, urlPattern: '*', methods: ['GET', 'OPTIONS', 'DELETE'] });
  t.equal(ok.status, 200, JSON.stringify(ok.json));
  t.same(ok.json.capture.methods, ['GET', 'OPTIONS', 'DELETE']);
});

t.test('a * in urlPattern matches anything, "/" included', async (t) => {
  const tab = await openTab();
  await s.rest('browser_capture', { tab, urlPattern: `${s.site.url}/deep/*` });
  await fetchInPage(tab, `await fetch('/deep/a/b/c').then((r) => r.text())`);
  const rows = await capturedAtLeast(tab, 1);
  t.same(rows.map((r) => pathOf(r.url)), ['/deep/a/b/c']);
});

t.test('filter, type and failedOnly do not narrow what a capture kept', async (t) => {
  const tab = await openTab();
  await s.rest('browser_capture', { tab, urlPattern: '*' });
  await fetchInPage(tab, `await fetch('/deep/a/b/c').then((r) => r.text()); await fetch('/missing').then((r) => r.text())`);
  const all = await capturedAtLeast(tab, 2);
  const narrowed = await s.rest('browser_network', { tab, captured: true, filter: 'no-such-url', type: 'image', failedOnly: true });
  t.equal(narrowed.status, 200);
  t.same((narrowed.json.captured as Row[]).map((r) => r.url), all.map((r) => r.url), 'the same exchanges');
  t.match(narrowed.json.text, /filter, type, failedOnly narrow recent responses only/, 'and the answer says they did not apply');
  const mcp = await call(s.client, 'browser_network', { tab, captured: true, filter: 'no-such-url' });
  t.notOk(mcp.isError, mcp.text);
  t.equal((mcp.raw.structuredContent as any).captured.length, all.length, 'over MCP too');
});

t.test('browser_har records CORS preflights under resourceTypes "preflight"', async (t) => {
  const tab = await openTab();
  const start = await s.rest('browser_har', { action: 'start', tab, resourceTypes: ['preflight'] });
  t.equal(start.status, 200, JSON.stringify(start.json));
  const other = s.site.url.replace('127.0.0.1', 'cors.test');
  const before = s.site.requests.length;
  await fetchInPage(tab, `await fetch(${JSON.stringify(`${other}/cors`)}, { headers: { 'x-thing': '1' } }).then((r) => r.text())`);
  t.ok(s.site.requests.slice(before).some((r) => r.method === 'OPTIONS' && r.path === '/cors'), 'Chromium sent a preflight');
  await s.rest('browser_har', { action: 'stop', tab });
  const har = await s.d.rest(s.token, 'GET', `/v1/tabs/${tab}/har`);
  const entries = (har.json.log.entries as any[]).map((e) => `${e.request.method} ${pathOf(e.request.url)} ${e._resourceType}`);
  t.same(entries, ['OPTIONS /cors preflight'], 'only the preflight is recorded');
});
