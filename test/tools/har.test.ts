/**
 * browser_har end to end against real Chromium and the loopback API app: a recorded HAR is valid HAR 1.2 (ajv,
 * our schema from the spec), holds none of the app's secrets nor the user's vault value but keeps their names,
 * has pages, timings, a redirect, WebSocket and EventSource messages; export equals REST; bounds and filters
 * hold; states; another user sees nothing; a read tab records and still sends no write.
 */
import t from 'tap';
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import formatsModule from 'ajv-formats';
import { findLeaks } from '../fixtures/daemon.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import { startApiApp, SECRETS, SECRET_NAMES, type ApiApp } from '../fixtures/api-app.js';

const VAULT = 'vault-value-9f8e7d6c5b4a';
const schema = JSON.parse(readFileSync(new URL('../fixtures/har-schema.json', import.meta.url), 'utf8'));
const ajv = new Ajv({ allErrors: true, strict: false });
// ajv-formats is CommonJS: its function is the default export's default under ESM.
const addFormats = ((formatsModule as any).default ?? formatsModule) as (a: Ajv) => void;
addFormats(ajv);
const validHar = ajv.compile(schema);

let stack: Stack;
let app: ApiApp;

t.before(async () => {
  stack = await startStack();
  app = await startApiApp();
  const put = await stack.d.rest(stack.token, 'PUT', '/v1/vault/127.0.0.1', { fields: { api_key: VAULT } });
  if (put.status !== 200) throw new Error(`vault put: ${JSON.stringify(put.json)}`);
});
t.teardown(async () => {
  await stack.stop();
  await app.close();
});

async function tool(name: string, args: Record<string, unknown>, token = stack.token) {
  return stack.d.rest(token, 'POST', `/v1/tools/${name}`, args);
}

async function openTab(mode: 'act' | 'read'): Promise<string> {
  const r = await tool('browser_open', { mode, live: 'none' });
  if (r.status !== 200) throw new Error(JSON.stringify(r.json));
  return r.json.tab;
}

/** Loads /app and waits for its script to finish (#done) or fail (#failed); answers which. */
async function runApp(tab: string, marker: '#done' | '#failed' = '#done'): Promise<void> {
  const nav = await tool('browser_navigate', { tab, url: `${app.url}/app?extra=${VAULT}` });
  if (nav.status !== 200) throw new Error(JSON.stringify(nav.json));
  const w = await tool('browser_wait', { tab, selector: marker, timeoutMs: 20000 });
  if (w.status !== 200) {
    const text = await tool('browser_read_text', { tab });
    throw new Error(`${marker} never came: ${JSON.stringify(text.json.text ?? text.json)}`);
  }
}

async function restHar(tab: string, token = stack.token) {
  return stack.d.rest(token, 'GET', `/v1/tabs/${tab}/har`);
}

function harFiles(): string[] {
  const dir = join(stack.d.dataDir, 'har');
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((u) => readdirSync(join(dir, u)).map((f) => join(dir, u, f)));
}

t.test('an act tab: a valid, redacted HAR with pages, timings, a redirect and messages; export equals REST', async (t) => {
  const tab = await openTab('act');
  const before = await tool('browser_har', { tab });
  t.equal(before.json.har.state, 'none', 'summary before start says none');

  const started = await tool('browser_har', { action: 'start', tab });
  t.equal(started.status, 200, JSON.stringify(started.json));
  t.equal(started.json.har.state, 'recording');
  const again = await tool('browser_har', { action: 'start', tab });
  t.equal(again.json.error?.code, 'validation_error', 'a start while recording is refused');
  t.match(again.json.error.message, /already recording/);

  await runApp(tab);
  const file = harFiles().find((f) => f.endsWith(`${tab}.jsonl`));
  t.ok(file, 'the recording is a file in the data dir');
  t.equal(statSync(file!).mode & 0o777, 0o600, 'readable by the daemon user only');
  t.ok(statSync(file!).size > 0, 'entries were appended while recording');

  const stopped = await tool('browser_har', { action: 'stop', tab });
  t.equal(stopped.json.har.state, 'stopped');
  const summary = await tool('browser_har', { tab, limit: 5 });
  t.equal(summary.json.har.newest.length, 5, 'summary lists the newest N');
  t.match(summary.json.text, /<<<page [0-9a-f]{12}[ >]/, 'entry lines are fenced page data');

  const exported = await tool('browser_har', { action: 'export', tab });
  t.equal(exported.status, 200, JSON.stringify(exported.json));
  t.match(exported.json.file, /^127\.0\.0\.1-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ\.har$/);
  const file2 = await fetch(`${stack.d.url}${exported.json.url}`, { headers: { Authorization: `Bearer ${stack.token}` } });
  const exportText = await file2.text();
  const har = JSON.parse(exportText);
  const rest = await restHar(tab);
  t.equal(rest.status, 200);
  t.same(rest.json.log.entries, har.log.entries, 'export equals GET /v1/tabs/{id}/har');
  t.same(rest.json.log.pages, har.log.pages);

  t.ok(validHar(har), `valid HAR 1.2: ${ajv.errorsText(validHar.errors)}`);
  const broken = structuredClone(har);
  delete broken.log.entries[0].timings;
  t.notOk(validHar(broken), 'the schema does refuse an entry without timings');

  for (const [name, value] of Object.entries({ ...SECRETS, vault: VAULT })) {
    const at = exportText.indexOf(value.slice(0, 12));
    t.same(findLeaks([value], [{ where: 'export', text: exportText }, { where: 'rest', text: JSON.stringify(rest.json) }]), [], `the ${name} value is in neither${at >= 0 ? `: …${exportText.slice(Math.max(0, at - 200), at + 60)}` : ''}`);
  }
  const lower = exportText.toLowerCase();
  for (const name of [SECRET_NAMES.cookie, SECRET_NAMES.csrfHeader, SECRET_NAMES.itemPasswordKey, 'authorization', 'x-extra', '\\"password\\"', '\\"token\\"', '\\"secret\\"']) {
    t.ok(lower.includes(name.toLowerCase()), `the name ${name} is kept`);
  }

  const entries: any[] = har.log.entries;
  const urls = entries.map((e) => `${e.request.method} ${new URL(e.request.url).pathname}`);
  for (const u of ['GET /app', 'POST /login', 'GET /api/items', 'GET /api/items/2', 'GET /api/csrf', 'POST /api/items', 'POST /graphql', 'GET /events', 'GET /ws']) t.ok(urls.includes(u), `${u} was recorded`);
  const login = entries.find((e) => e.request.url.endsWith('/login'));
  t.same(login.response.cookies.map((c: any) => [c.name, c.value, c.httpOnly]), [[SECRET_NAMES.cookie, '[redacted]', true]], 'Set-Cookie: name kept, value hidden');
  t.equal(JSON.parse(login.request.postData.text).password, '[redacted]');
  const csrfPost = entries.find((e) => e.request.method === 'POST' && e.request.url.endsWith('/api/items'));
  t.equal(csrfPost.response.status, 201, 'the CSRF post went through in the act tab');
  t.same(csrfPost.request.cookies.map((c: any) => c.name), [SECRET_NAMES.cookie]);
  const page2 = entries.find((e) => e.request.url.includes('page=2'));
  t.same(page2.request.queryString, [{ name: 'page', value: '2' }]);
  t.match(JSON.stringify(page2.response.headers), /rel=\\"next\\"/, 'the Link header is kept');

  t.equal(har.log.pages.length, 1, 'one page: the /app document');
  const page = har.log.pages[0];
  t.ok(page.pageTimings.onContentLoad >= 0 && page.pageTimings.onLoad >= page.pageTimings.onContentLoad, `page timings ${JSON.stringify(page.pageTimings)}`);
  t.ok(entries.every((e) => e.pageref === page.id), 'every entry belongs to the page');
  const doc = entries.find((e) => e._resourceType === 'document');
  t.ok(doc.timings.wait >= 0 && doc.timings.send >= 0 && doc.time > 0, 'the document has timings');
  t.ok(entries.some((e) => e.timings.connect >= 0), 'a new connection has connect time');

  const hop = entries.find((e) => e.response.status === 302);
  t.ok(hop, 'the redirect hop is an entry of its own');
  t.match(hop.response.redirectURL, /\/api\/items\?page=1$/);

  const ws = entries.find((e) => e._resourceType === 'websocket');
  t.ok(ws._webSocketMessages.some((m: any) => m.type === 'send') && ws._webSocketMessages.some((m: any) => m.type === 'receive'), 'frames both ways');
  t.ok(ws._webSocketMessages.some((m: any) => m.data.includes('"secret":"[redacted]"')), 'the WebSocket secret is hidden by key');
  const sse = entries.find((e) => e._resourceType === 'eventsource');
  t.equal(sse._eventSourceMessages.length, 3);
  t.match(sse._eventSourceMessages[1].data, /"token":"\[redacted\]"/);
  t.equal(sse._open, true, 'the stream still open at stop is written, marked open');
});

t.test('maxEntries and maxBodyBytes bound what is kept', async (t) => {
  const tab = await openTab('act');
  await tool('browser_har', { action: 'start', tab, maxEntries: 4, maxBodyBytes: 16, resourceTypes: ['fetch', 'document'] });
  await runApp(tab);
  await tool('browser_har', { action: 'stop', tab });
  const s = await tool('browser_har', { tab });
  t.equal(s.json.har.entries, 4);
  t.ok(s.json.har.dropped > 0, 'later requests counted, not kept');
  const har = (await restHar(tab)).json;
  t.equal(har.log.entries.length, 4);
  for (const e of har.log.entries) {
    const text = e.response.content.text ?? '';
    t.ok(Buffer.byteLength(text) <= 16, 'no body longer than maxBodyBytes');
  }
  t.ok(har.log.entries.some((e: any) => e.response.content._truncated === true), 'a cut body is marked');
});

t.test('resourceTypes and urlPattern filter', async (t) => {
  const tab = await openTab('act');
  await tool('browser_har', { action: 'start', tab, resourceTypes: ['fetch'], urlPattern: '**/api/items?*' });
  await runApp(tab);
  await tool('browser_har', { action: 'stop', tab });
  const har = (await restHar(tab)).json;
  const paths = har.log.entries.map((e: any) => new URL(e.request.url).pathname + new URL(e.request.url).search);
  t.same([...new Set(paths)].sort(), ['/api/items?page=1', '/api/items?page=2', '/api/items?page=3'], 'only the list pages');
  t.ok(har.log.entries.every((e: any) => e._resourceType === 'fetch'));
  const s = await tool('browser_har', { tab });
  t.ok(s.json.har.filtered > 0, 'the rest was counted as filtered');
});

t.test('states: delete, start again, tab close; bad input changes nothing', async (t) => {
  const tab = await openTab('act');
  const misplaced = await tool('browser_har', { tab, maxEntries: 5 });
  t.equal(misplaced.json.error?.code, 'validation_error');
  t.match(misplaced.json.error.message, /maxEntries/);
  t.equal((await tool('browser_har', { action: 'start', tab, maxEntries: 0 })).json.error?.code, 'validation_error');
  t.equal((await tool('browser_har', { action: 'start', tab, resourceTypes: ['beacon'] })).json.error?.code, 'validation_error');
  t.equal((await tool('browser_har', { tab })).json.har.state, 'none', 'refused starts started nothing');
  t.equal((await tool('browser_har', { action: 'export', tab })).json.error?.code, 'not_found', 'nothing to export');
  t.equal((await restHar(tab)).status, 404, 'REST 404 when never recorded');

  await tool('browser_har', { action: 'start', tab });
  await tool('browser_navigate', { tab, url: `${app.url}/api/csrf` });
  t.equal((await restHar(tab)).status, 200, 'REST answers while recording');
  const del = await tool('browser_har', { action: 'delete', tab });
  t.equal(del.json.har.state, 'deleted');
  t.equal((await tool('browser_har', { tab })).json.har.state, 'deleted', 'summary after delete says deleted');
  t.equal((await restHar(tab)).status, 404, 'REST 404 after delete');
  t.notOk(harFiles().some((f) => f.endsWith(`${tab}.jsonl`)), 'the file is gone');
  t.equal((await tool('browser_har', { action: 'stop', tab })).json.error?.code, 'not_found');

  const restarted = await tool('browser_har', { action: 'start', tab });
  t.equal(restarted.json.har.state, 'recording', 'a start after delete begins anew');
  t.equal(restarted.json.har.entries, 0);
  t.ok(harFiles().some((f) => f.endsWith(`${tab}.jsonl`)));
  const closed = await stack.d.rest(stack.token, 'DELETE', `/v1/tabs/${tab}`);
  t.equal(closed.status, 200);
  t.equal((await restHar(tab)).status, 404, 'REST 404 after the tab closed');
  t.notOk(harFiles().some((f) => f.endsWith(`${tab}.jsonl`)), 'the file went with the tab');
  t.equal((await tool('browser_har', { tab })).json.error?.code, 'not_found');
});

t.test("another user gets 404 and not_found for alice's tab HAR", async (t) => {
  const tab = await openTab('act');
  await tool('browser_har', { action: 'start', tab });
  await tool('browser_navigate', { tab, url: `${app.url}/api/csrf` });
  const bob = await stack.d.addUser('bob');
  const r = await restHar(tab, bob);
  t.equal(r.status, 404);
  t.notMatch(JSON.stringify(r.json), /csrf/);
  for (const action of ['summary', 'stop', 'export', 'delete']) {
    const b = await tool('browser_har', { action, tab }, bob);
    t.equal(b.json.error?.code, 'not_found', `bob's ${action} is not_found`);
  }
  t.equal((await tool('browser_har', { tab })).json.har.state, 'recording', "alice's recording is untouched");
});

t.test('a read tab records, and its page still sends no write', async (t) => {
  const tab = await openTab('read');
  await tool('browser_har', { action: 'start', tab });
  const postsBefore = app.requests.filter((r) => r.method === 'POST').length;
  await runApp(tab, '#failed');
  await tool('browser_har', { action: 'stop', tab });
  t.equal(app.requests.filter((r) => r.method === 'POST').length, postsBefore, 'the app saw no POST from the read tab');
  const har = (await restHar(tab)).json;
  t.ok(validHar(har), ajv.errorsText(validHar.errors));
  t.ok(har.log.entries.some((e: any) => e._resourceType === 'document' && e.response.status === 200), 'the document was recorded');
  const login = har.log.entries.find((e: any) => e.request.url.endsWith('/login'));
  t.ok(login, 'the refused POST is an entry');
  t.equal(login.response.status, 0, 'with no response');
  t.ok(login.response._error, `and its failure: ${login.response._error}`);
});

t.test('a recording goes on after the browser is killed and the tab reopened under its id', async (t) => {
  const tab = await openTab('act');
  t.equal((await tool('browser_har', { action: 'start', tab, urlPattern: '**/api/items*' })).status, 200);
  await runApp(tab);
  const before = (await tool('browser_har', { action: 'summary', tab })).json;
  const inst = stack.d.daemon.env.pool.peek(stack.d.daemon.env.users.list().find((u) => u.name === 'alice')!.id)!;
  const exited = new Promise((r) => (inst as any).chromium.process.once('exit', r));
  process.kill(inst.pid!, 'SIGKILL');
  await exited;
  await runApp(tab); // the next call reopens the tab (a new object) and loads the app again
  const after = (await tool('browser_har', { action: 'summary', tab })).json;
  t.equal(after.har.state, 'recording');
  t.ok(before.har.entries > 0);
  t.ok(after.har.entries > before.har.entries, `entries grew after the restart (${before.har.entries} -> ${after.har.entries})`);
});
