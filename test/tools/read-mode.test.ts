/** Read tabs really cannot write: form posts and fetch/XHR/beacon writes never reach the server; act tabs send them. */
import t from 'tap';
import { call, refOf } from '../fixtures/daemon.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { html, type FixtureSite } from '../fixtures/site.js';

let stack: Stack;
let site: FixtureSite;
let client: Client;

t.before(async () => {
  stack = await startStack();
  ({ site, client } = stack);
  site.route('/form', html(`<form method="post" action="/submit"><input name="q" value="x"><button>Go</button></form>`));
  site.route('/submit', (_req, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end(html('<h1>Thanks</h1>')); });
  site.route('/api', (_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"ok":true}'); });
  site.route('/fetcher', html(`
    <button onclick="fetch('/api',{method:'POST',body:'fetch-body'}).then(()=>document.getElementById('r').textContent='fetch sent',()=>document.getElementById('r').textContent='fetch failed')">Fetch post</button>
    <button onclick="const x=new XMLHttpRequest();x.open('PUT','/api');x.send('xhr-body')">XHR put</button>
    <button onclick="navigator.sendBeacon('/api','beacon-body')">Beacon</button>
    <button onclick="fetch('/api').then(()=>document.getElementById('r').textContent='get ok')">Fetch get</button>
    <p id="r">idle</p>`));
});
t.teardown(() => stack.stop());

t.test('in a read tab a form POST never reaches the server and is reported', async (t) => {
  const open = await call(client, 'browser_open', { url: `${site.url}/form` });
  t.match(open.text, /read mode/);
  const snap = (await call(client, 'browser_snapshot')).text;
  const before = site.writes().length;
  const r = await call(client, 'browser_click', { ref: refOf(snap, /button "Go"/) });
  t.match(r.text, /Blocked in t\d+ \(read tab\): POST [\s\S]*\/submit/);
  t.equal(site.writes().length, before, 'no write reached the fixture server');
  const log = await stack.rest('browser_log');
  const blocked = log.json.entries.filter((e: { kind: string; method?: string; url?: string }) => e.kind === 'write_blocked' && e.method === 'POST' && /\/submit$/.test(e.url ?? ''));
  t.equal(blocked.length, 1, 'the tab log records the blocked POST once');
});

t.test('in a read tab fetch POST, XHR PUT and beacons are aborted; GET works', async (t) => {
  await call(client, 'browser_navigate', { url: `${site.url}/fetcher` });
  const snap = (await call(client, 'browser_snapshot')).text;
  const before = site.writes().length;
  const f = await call(client, 'browser_click', { ref: refOf(snap, /button "Fetch post"/) });
  t.match(f.text, /Blocked.*POST [\s\S]*\/api/);
  await call(client, 'browser_wait', { text: 'fetch failed' });
  const x = await call(client, 'browser_click', { ref: refOf(snap, /button "XHR put"/) });
  t.match(x.text, /Blocked.*PUT [\s\S]*\/api/);
  const b = await call(client, 'browser_click', { ref: refOf(snap, /button "Beacon"/) });
  t.match(b.text, /Blocked.*POST [\s\S]*\/api/);
  await call(client, 'browser_click', { ref: refOf(snap, /button "Fetch get"/) });
  await call(client, 'browser_wait', { text: 'get ok' });
  t.equal(site.writes().length, before, 'nothing but GETs reached the server');
});

t.test('an act tab sends the same writes', async (t) => {
  await call(client, 'browser_open', { url: `${site.url}/fetcher`, mode: 'act' });
  const snap = (await call(client, 'browser_snapshot')).text;
  await call(client, 'browser_click', { ref: refOf(snap, /button "Fetch post"/) });
  const got = await site.waitFor((r) => r.method === 'POST' && r.body === 'fetch-body');
  t.equal(got.path, '/api');
  await call(client, 'browser_navigate', { url: `${site.url}/form` });
  const form = (await call(client, 'browser_snapshot')).text;
  await call(client, 'browser_click', { ref: refOf(form, /button "Go"/) });
  const posted = await site.waitFor((r) => r.method === 'POST' && r.path === '/submit');
  t.equal(posted.body, 'q=x');
  t.match((await call(client, 'browser_read_text')).text, /Thanks/);
});
