/**
 * A value filled from the vault rests nowhere outside the sealed vault, in any form a page or a transport
 * gives it, with no agent script involved: the fixture page's own script sends the filled password in a
 * header as base64 (x-pw-b64, and inside a Basic-style header), a URL-encoded form POST, a JSON body and a
 * query string (encoded and raw), and the server echoes it back in bodies and a header. The HAR (export,
 * REST and its file), the response cache (files and index), the LMDB store, the log and the audit hold none
 * of those forms. A server-run task whose model is shown a page echoing the value (plain, base64, encoded)
 * sends no form of it to the model and stores none in its record.
 */
import t from 'tap';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startStack, type Stack } from '../fixtures/stack.js';
import { html } from '../fixtures/site.js';
import { refOf } from '../fixtures/daemon.js';
import { cacheUrl } from '../../daemon/cache/redact.js';
import { startFakeModels, type FakeModels, type RecordedRequest } from '../fixtures/fake-models.js';

/** Quotes, an ampersand, a plus, a slash and spaces: each encoding writes it differently. */
const VALUE = `Qu1lt&Zebra "7"+/ok'`;
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const htmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
/** The forms looked for, written out here on their own (not taken from the daemon's list). */
const FORMS: Record<string, string> = {
  plain: VALUE,
  urlComponent: encodeURIComponent(VALUE),
  formEncoded: new URLSearchParams({ v: VALUE }).toString().slice(2),
  jsonEscaped: JSON.stringify(VALUE).slice(1, -1),
  // Chromium's own escaping of a raw value in a URL query: space, double and single quote.
  chromiumQuery: VALUE.replace(/ /g, '%20').replace(/"/g, '%22').replace(/'/g, '%27'),
  base64: b64(VALUE).replace(/=+$/, ''),
  base64InQuery: encodeURIComponent(b64(VALUE)),
  // "bob:" is 4 bytes, so the value starts mid-character: only the characters made of its bytes alone.
  base64Shifted: b64(`bob:${VALUE}`).slice(6, -3),
  htmlEscaped: htmlEscape(VALUE),
};
const SITE = 'keys.test';

let s: Stack;
let fake: FakeModels;
let origin: string;

function leaks(text: string): string[] {
  return Object.entries(FORMS).filter(([, f]) => text.includes(f)).map(([name]) => name);
}

/** Every file under a directory, recursively. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** Where in a file (raw bytes, as UTF-8 and Latin-1) any form shows. */
function fileLeaks(file: string): string[] {
  const bytes = readFileSync(file);
  return [...new Set([...leaks(bytes.toString('utf8')), ...leaks(bytes.toString('latin1'))])];
}

const FORM_PAGE = html(
  `<label>Password <input id="pw" type="password" name="pw"></label>
  <button id="send" onclick="send()">Send</button>
  <script>
    async function send() {
      const v = document.getElementById('pw').value;
      await fetch('/echo-h', { headers: { 'x-pw-b64': btoa(v), 'x-basic': 'Basic ' + btoa('bob:' + v) } });
      await fetch('/echo-form', { method: 'POST', body: new URLSearchParams({ note: v }) });
      await fetch('/echo-json', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ note: v }) });
      await fetch('/echo-q?q=' + encodeURIComponent(v) + '&b=' + encodeURIComponent(btoa(v)));
      await fetch('/echo-raw?x=' + v);
      await fetch('/echo-html');
      document.body.insertAdjacentHTML('beforeend', '<p id="done">sent</p>');
    }
  </script>`,
  '',
  'Keys',
);

t.before(async () => {
  fake = await startFakeModels();
  s = await startStack({ models: fake.config });
  origin = `http://${SITE}:${s.site.port}`;
  s.site.route('/form', FORM_PAGE);
  const echo = (contentType: string, body: string) => (_req: unknown, res: import('node:http').ServerResponse) => {
    res.writeHead(200, { 'content-type': contentType, 'x-echo-b64': b64(VALUE) });
    res.end(body);
  };
  const json = JSON.stringify({ seen: VALUE, b64: b64(VALUE), url: encodeURIComponent(VALUE) });
  for (const p of ['/echo-h', '/echo-form', '/echo-json', '/echo-q', '/echo-raw']) s.site.route(p, echo('application/json', json));
  s.site.route('/echo-html', echo('text/html; charset=utf-8', html(`<p>${htmlEscape(VALUE)}</p>`)));
  // What a site's settings page shows back: the key as is, in base64 and URL-encoded.
  s.site.route('/profile', html(`<h1>Profile</h1><p>Key: ${htmlEscape(VALUE)}</p><p>Encoded key: ${b64(VALUE)}</p><p>In a link: ${encodeURIComponent(VALUE)}</p>`, '', 'Profile'));
  const put = await s.d.rest(s.token, 'PUT', `/v1/vault/${SITE}`, { loginUrl: `${origin}/form`, fields: { password: VALUE } });
  if (put.status !== 200) throw new Error(`vault put: ${JSON.stringify(put.json)}`);
});
t.teardown(async () => {
  await s.stop();
  await fake.close();
});

async function tool(name: string, args: Record<string, unknown>) {
  const r = await s.rest(name, args);
  if (r.status !== 200) throw new Error(`${name}: ${JSON.stringify(r.json)}`);
  return r.json;
}

t.test('a page sends the filled value as base64, form, JSON and query: HAR, cache, store, log and audit hold no form of it', async (t) => {
  const tab = (await tool('browser_open', { url: `${origin}/form`, mode: 'act', live: 'none' })).tab as string;
  await tool('browser_har', { action: 'start', tab });
  const recording = await tool('browser_record', { action: 'start', tab, cache: 'record' });
  const snap = (await tool('browser_snapshot', { tab })).text as string;
  await tool('browser_fill_secret', { tab, ref: refOf(snap, /textbox "Password"/), site: SITE, field: 'password' });
  await tool('browser_click', { tab, ref: refOf(snap, /button "Send"/) });
  await tool('browser_wait', { tab, selector: '#done', timeoutMs: 15000 });

  // The page really sent it, in every form, to its own site.
  const seen = (path: string) => s.site.requests.find((r) => r.path.startsWith(path))!;
  t.equal(seen('/echo-h').headers['x-pw-b64'], b64(VALUE), 'the page sent the value as base64 in a header');
  t.equal(new URLSearchParams(seen('/echo-form').body).get('note'), VALUE, 'in a form body');
  t.equal(JSON.parse(seen('/echo-json').body).note, VALUE, 'in a JSON body');
  t.equal(new URL(seen('/echo-q').path, origin).searchParams.get('q'), VALUE, 'in a query string');
  t.ok(seen('/echo-raw'), 'raw in a query string');

  await tool('browser_har', { action: 'stop', tab });
  await tool('browser_record', { action: 'stop', id: recording.id ?? recording.recording?.id });
  const exported = await tool('browser_har', { action: 'export', tab });
  const exportText = await (await fetch(`${s.d.url}${exported.url}`, { headers: { Authorization: `Bearer ${s.token}` } })).text();
  const rest = await s.d.rest(s.token, 'GET', `/v1/tabs/${tab}/har`);
  t.equal(rest.status, 200);
  t.same(leaks(exportText), [], 'the exported HAR holds no form of the value');
  t.same(leaks(JSON.stringify(rest.json)), [], 'GET /v1/tabs/{id}/har holds none');
  for (const f of filesUnder(join(s.d.dataDir, 'har'))) t.same(fileLeaks(f), [], `the HAR file ${f} holds none`);

  // Still a useful HAR: every exchange is there, names kept, values hidden.
  const entries: any[] = rest.json.log.entries;
  const entry = (path: string) => entries.find((e) => new URL(e.request.url).pathname === path);
  for (const p of ['/echo-h', '/echo-form', '/echo-json', '/echo-q', '/echo-raw', '/echo-html']) t.ok(entry(p), `${p} was recorded`);
  const header = entry('/echo-h').request.headers.find((h: any) => h.name.toLowerCase() === 'x-pw-b64');
  t.equal(header?.value, '[secret hidden]', 'the header name is kept, its value hidden');
  t.same(entry('/echo-form').request.postData.params, [{ name: 'note', value: '[secret hidden]' }]);
  t.same(JSON.parse(entry('/echo-json').request.postData.text), { note: '[secret hidden]' });
  t.same(entry('/echo-q').request.queryString, [{ name: 'q', value: '[secret hidden]' }, { name: 'b', value: '[secret hidden]' }]);

  const caches = s.d.daemon.env.responseCache;
  const cacheName = recording.recording.cacheName as string;
  // The recorder stores each response as it finishes loading; the page's last one may still be on its way.
  const lookUp = () => caches.get('alice', cacheName, 'GET', cacheUrl(`${origin}/echo-html`));
  for (const until = Date.now() + 10_000; !lookUp() && Date.now() < until; ) await new Promise((r) => setTimeout(r, 50));
  const stored = lookUp();
  t.ok(stored, 'the cached page is still found under its address');
  t.same(leaks(JSON.stringify(stored)), [], 'its cache entry holds none');
  const cacheFiles = filesUnder(join(s.d.dataDir, 'cache'));
  t.ok(cacheFiles.length >= 3, 'the recording stored the responses in the cache');
  for (const f of cacheFiles) t.same(fileLeaks(f), [], `the cache file ${f} holds none`);

  await s.d.daemon.env.db.flushed();
  t.same(fileLeaks(join(s.d.dataDir, 'browserd.lmdb')), [], 'the LMDB store (cache index, records, tabs, audit), read raw, holds none');
  t.same(leaks(s.d.logLines.join('\n')), [], 'the log holds none');
  t.same(leaks(JSON.stringify(s.d.daemon.env.audit.all(10_000))), [], 'the audit holds none');
});

/** The text of a provider request (OpenAI wire format) and its goal marker. */
const goalOf = (req: RecordedRequest) => String((req.body?.messages ?? []).find((m: any) => m.role === 'user')?.content ?? '');

t.test('a task whose model is shown a page echoing the value: neither the prompt nor the stored task holds it', async (t) => {
  fake.fallback = (req) => {
    if (!goalOf(req).includes('script-profile')) return undefined;
    const tools = (req.body.messages as any[]).filter((m) => m.role === 'tool');
    if (tools.length === 0) return { toolCalls: [{ name: 'browser_open', args: { url: `${origin}/profile` } }] };
    if (tools.length === 1) return { toolCalls: [{ name: 'browser_read_text', args: {} }] };
    // A model that repeats what it was shown: whatever reached it goes into the result too.
    const shown = /Encoded key: ([^\n]+)/.exec(tools[1].content)?.[1] ?? 'nothing';
    return { toolCalls: [{ name: 'task_done', args: { result: `The encoded key is ${shown}; the key is ${/Key: ([^\n]+)/.exec(tools[1].content)?.[1]}` } }] };
  };
  const r = await s.d.rest(s.token, 'POST', '/v1/tasks', { goal: 'script-profile: report the key on the profile page' });
  t.equal(r.status, 201, JSON.stringify(r.json));
  const id = r.json.id as string;
  const task = (await s.d.rest(s.token, 'GET', `/v1/tasks/${id}?waitS=60`)).json.task;
  t.equal(task.state, 'succeeded', JSON.stringify(task));
  t.match(task.result, /The encoded key is \[secret hidden\]/, 'the model got the page, with the value hidden');

  const sent = fake.requests.filter((q) => goalOf(q).includes('script-profile'));
  t.equal(sent.length, 3, 'three model turns');
  t.match(JSON.stringify(sent[2]!.body), /Profile/, 'the page text did reach the model');
  for (const [i, q] of sent.entries()) t.same(leaks(q.bodyText), [], `model request ${i + 1} holds no form of the value`);
  t.same(leaks(JSON.stringify(task)), [], 'the task as GET /v1/tasks/{id} shows it holds none');

  await s.d.daemon.env.db.flushed();
  const raw = s.d.daemon.env.db.root.openDB<any, string>({ name: 'tasks' }).get(`alice\0${id}`);
  t.ok(raw, 'the task record is in the store');
  t.same(leaks(JSON.stringify(raw)), [], 'the raw task record holds none');
  t.notOk(raw.messages, 'its conversation is not stored readable');
  t.ok(raw.sealedMessages?.ct, 'it is sealed');
  t.notOk(JSON.stringify(raw).includes('Profile</h1>') || JSON.stringify(raw).includes('Encoded key'), 'no page text rests readable in it');
  t.same(fileLeaks(join(s.d.dataDir, 'browserd.lmdb')), [], 'the LMDB store read raw holds none');
  t.same(leaks(s.d.logLines.join('\n')), [], 'the log holds none');
  t.same(leaks(JSON.stringify(s.d.daemon.env.audit.all(10_000))), [], 'the audit holds none');
});
