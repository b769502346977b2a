/** hover, drag, scroll, select_options, upload, fill_form, allow_confirm, viewport, evaluate, pdf, log, network, popups. */
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, refOf, type TestDaemon } from '../fixtures/daemon.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { html, type FixtureSite } from '../fixtures/site.js';

let stack: Stack;
let d: TestDaemon;
let site: FixtureSite;
let client: Client;
let token: string;

const rest = (name: string, args: Record<string, unknown>) => stack.rest(name, args);

t.before(async () => {
  stack = await startStack();
  ({ d, site, client, token } = stack);
  site.route('/hover', html(`<style>#menu{display:none}#wrap:hover #menu{display:block}</style>
    <div id="wrap"><button>Products</button><ul id="menu"><li><a href="/shoes">Shoes</a></li><li><a href="/hats">Hats</a></li></ul></div>`));
  site.route('/drag', html(`<div id="item" draggable="false" style="position:absolute;left:20px;top:100px;width:60px;height:40px;background:#39f">Item</div>
    <div id="zone" role="region" aria-label="Drop zone" style="position:absolute;left:400px;top:100px;width:150px;height:150px;border:2px dashed #999">Drop zone</div>
    <p id="status" style="margin-top:300px">not dropped</p>
    <script>
      const item=document.getElementById('item'); let drag=null;
      item.addEventListener('mousedown',e=>{drag={dx:e.clientX-item.offsetLeft,dy:e.clientY-item.offsetTop}});
      document.addEventListener('mousemove',e=>{if(drag){item.style.left=(e.clientX-drag.dx)+'px';item.style.top=(e.clientY-drag.dy)+'px'}});
      document.addEventListener('mouseup',e=>{if(!drag)return;drag=null;const z=document.getElementById('zone').getBoundingClientRect();
        document.getElementById('status').textContent=(e.clientX>=z.left&&e.clientX<=z.right&&e.clientY>=z.top&&e.clientY<=z.bottom)?'dropped in zone':'dropped outside'});
    </script>`));
  site.route('/long', html(`<div style="height:5000px;background:linear-gradient(#fff,#ccc)">top</div><p id="end">The very end</p>`));
  site.route('/forms', html(`
    <form id="f" action="/upload" method="post" enctype="multipart/form-data">
      <label>First <input name="first"></label><label>Last <input name="last"></label>
      <label>Colors <select name="colors" multiple><option>Red</option><option value="g">Green</option><option>Blue</option></select></label>
      <label>Attachment <input type="file" name="doc"></label>
      <button>Upload</button>
    </form>
    <button id="del" onclick="document.getElementById('ans').textContent = confirm('Delete it?') ? 'confirmed' : 'declined'">Remove item</button>
    <p id="ans">none</p>
    <button onclick="window.open('/popup-page','_blank')">Open popup</button>`));
  site.route('/upload', (_req, res, body) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end(html(`<p>got ${body.length} bytes</p>`)); });
  site.route('/popup-page', html('<h1>I am a popup</h1>', '', 'Popup'));
  site.route('/err', html('<h1>err</h1><script>console.error("boom from page"); fetch("/missing-thing")</script>'));
});
t.teardown(() => stack.stop());

t.test('hover shows new elements marked *', async (t) => {
  await call(client, 'browser_open', { url: `${site.url}/hover`, mode: 'act' });
  const snap = (await call(client, 'browser_snapshot')).text;
  t.notMatch(snap, /Shoes/);
  const r = await call(client, 'browser_hover', { ref: refOf(snap, /button "Products"/) });
  t.notOk(r.isError, r.text);
  t.match(r.text, /^\s*\*.*link "Shoes"/m);
});

t.test('drag moves the item into the zone', async (t) => {
  await call(client, 'browser_navigate', { url: `${site.url}/drag` });
  const zone = (await rest('browser_query', { css: '#zone' })).json.matches[0].ref;
  const r = await call(client, 'browser_drag', { fromX: 50, fromY: 120, toRef: zone });
  t.notOk(r.isError, r.text);
  t.match((await call(client, 'browser_read_text')).text, /dropped in zone/);
  const out = await call(client, 'browser_drag', { fromX: 50, fromY: 120, toX: 5000, toY: 10 });
  t.ok(out.isError);
  t.match(out.text, /outside the viewport/);
  const steps = await rest('browser_drag', { fromX: 1, fromY: 1, toX: 2, toY: 2, steps: 101 });
  t.equal(steps.status, 400);
});

t.test('scroll by amount, to an element and to the end', async (t) => {
  await call(client, 'browser_navigate', { url: `${site.url}/long` });
  const by = await rest('browser_scroll', { amount: 700 });
  t.ok(by.json.scroll.y >= 690, `scrolled to ${by.json.scroll.y}`);
  const end = await rest('browser_scroll', { to: 'end' });
  t.ok(end.json.scroll.y >= end.json.scroll.maxY - 1);
  await rest('browser_scroll', { to: 'top' });
  const found = await rest('browser_find_text', { text: 'The very end' });
  t.equal(found.json.matches.length, 1);
  const s = await rest('browser_scroll', { toRef: found.json.matches[0].ref });
  t.ok(s.json.scroll.y > 4000);
});

t.test('fill_form fills in order and reports failures; select_options; upload reaches the server with its bytes', async (t) => {
  await call(client, 'browser_navigate', { url: `${site.url}/forms` });
  const snap = (await call(client, 'browser_snapshot')).text;
  const first = refOf(snap, /textbox "First"/);
  const last = refOf(snap, /textbox "Last"/);
  const r = await rest('browser_fill_form', { fields: { [first]: 'Ada', [last]: 'Lovelace', e999: 'x' } });
  t.equal(r.status, 200, JSON.stringify(r.json));
  t.same(r.json.filled, [first, last]);
  t.equal(r.json.failed[0].ref, 'e999');
  const vals = await rest('browser_evaluate', { js: `[document.forms.f.first.value, document.forms.f.last.value]` });
  t.match(vals.json.text, /\["Ada","Lovelace"\]/);
  t.equal(site.writes().length, 0, 'fill_form never submits');
  const sel = await rest('browser_select_options', { ref: refOf(snap, /listbox "Colors"/), values: ['Red', 'g'] });
  t.same(sel.json.selected, ['Red', 'Green']);
  const bytes = Buffer.from('hello upload ' + 'x'.repeat(1000));
  const up = await rest('browser_upload', { ref: refOf(snap, /Attachment/), name: 'note.txt', base64: bytes.toString('base64') });
  t.equal(up.status, 200, JSON.stringify(up.json));
  await call(client, 'browser_click', { ref: refOf(snap, /button "Upload"/) });
  const posted = await site.waitFor((x) => x.method === 'POST' && x.path === '/upload');
  t.match(posted.body, /filename="note\.txt"/);
  t.ok(posted.body.includes(bytes.toString()), 'the file bytes arrived');
});

t.test('confirm() is answered NO by default and YES once after allow_confirm', async (t) => {
  await call(client, 'browser_navigate', { url: `${site.url}/forms` });
  const snap = (await call(client, 'browser_snapshot')).text;
  const del = refOf(snap, /button "Remove item"/);
  await call(client, 'browser_click', { ref: del });
  t.match((await call(client, 'browser_read_text')).text, /declined/);
  t.notOk((await call(client, 'browser_allow_confirm')).isError);
  await call(client, 'browser_click', { ref: del });
  t.match((await call(client, 'browser_read_text')).text, /confirmed/);
  await call(client, 'browser_click', { ref: del });
  t.match((await call(client, 'browser_read_text')).text, /declined/, 'only the next one');
  const log = await rest('browser_log', {});
  t.ok(log.json.entries.some((e: any) => e.kind === 'dialog' && /accepted/.test(e.detail)));
});

t.test('a popup becomes a tab of its own with its opener\'s mode', async (t) => {
  const opened = await rest('browser_open', { url: `${site.url}/forms`, mode: 'read', allowedDomains: ['127.0.0.1'] });
  const snap = (await call(client, 'browser_snapshot', { tab: opened.json.tab })).text;
  await call(client, 'browser_click', { tab: opened.json.tab, ref: refOf(snap, /button "Open popup"/) });
  let popup: any;
  for (let i = 0; i < 50 && !popup; i++) {
    popup = (await d.rest(token, 'GET', '/v1/tabs')).json.tabs.find((x: any) => x.opener === opened.json.tab && /popup-page/.test(x.url));
    if (!popup) await call(client, 'browser_wait', { timeMs: 100, tab: opened.json.tab });
  }
  t.ok(popup, 'popup listed by browser_tabs');
  t.equal(popup.mode, 'read');
  t.same(popup.allowedDomains, ['127.0.0.1']);
  t.match((await call(client, 'browser_read_text', { tab: popup.id })).text, /I am a popup/);
  const log = await rest('browser_log', { tab: opened.json.tab });
  t.ok(log.json.entries.some((e: any) => e.kind === 'popup'));
});

t.test('evaluate: values, promises, the 12,000 character cut, throws', async (t) => {
  t.match((await rest('browser_evaluate', { js: '1+1' })).json.text, /\n2\n/);
  t.match((await rest('browser_evaluate', { js: 'new Promise(r => setTimeout(() => r({a: [1, "x"]}), 50))' })).json.text, /\{"a":\[1,"x"\]\}/);
  const long = await rest('browser_evaluate', { js: '"y".repeat(20000)' });
  t.equal(long.json.truncated, true);
  t.notMatch(long.json.text, /y{12001}/);
  const thrown = await rest('browser_evaluate', { js: '(() => { throw new Error("nope") })()' });
  t.equal(thrown.status, 422);
  t.equal(thrown.json.error.code, 'action_failed');
  t.notMatch(thrown.json.error.message, /nope/, 'what the script threw is page text, not our message');
  t.match(thrown.json.error.details.pageText, /Error: nope/);
});

t.test('viewport persists for the tab', async (t) => {
  const v = await rest('browser_viewport', { width: 500, height: 400 });
  t.equal(v.status, 200);
  t.match((await rest('browser_evaluate', { js: 'innerWidth + "x" + innerHeight' })).json.text, /500x400/);
  await call(client, 'browser_navigate', { url: `${site.url}/long` });
  t.match((await rest('browser_evaluate', { js: 'innerWidth' })).json.text, /\n500\n/);
  t.equal((await rest('browser_viewport', { width: 5, height: 400 })).status, 400);
});

t.test('pdf: stored in the user\'s files, fetched over REST, and pdftoppm renders it', async (t) => {
  await call(client, 'browser_navigate', { url: `${site.url}/forms` });
  const r = await rest('browser_pdf', { paper: 'letter', name: 'forms.pdf' });
  t.equal(r.status, 200, JSON.stringify(r.json));
  t.equal(r.json.file.name, 'forms.pdf');
  const res = await fetch(`${d.url}${r.json.file.url}`, { headers: { Authorization: `Bearer ${token}` } });
  t.equal(res.status, 200);
  const pdf = Buffer.from(await res.arrayBuffer());
  t.equal(pdf.subarray(0, 5).toString(), '%PDF-');
  const dir = mkdtempSync(join(tmpdir(), 'pdf-'));
  writeFileSync(join(dir, 'f.pdf'), pdf);
  execFileSync('pdftoppm', ['-png', '-f', '1', '-l', '1', '-r', '30', join(dir, 'f.pdf'), join(dir, 'page')]);
  t.ok(existsSync(join(dir, 'page-1.png')) || existsSync(join(dir, 'page-01.png')), 'first page rendered');
  const other = await d.addUser('mallory');
  const stolen = await fetch(`${d.url}${r.json.file.url}`, { headers: { Authorization: `Bearer ${other}` } });
  t.equal(stolen.status, 404, "another user cannot fetch alice's file");
  const traversal = await fetch(`${d.url}/v1/files/..%2F..%2Fbrowserd.lmdb`, { headers: { Authorization: `Bearer ${token}` } });
  t.equal(traversal.status, 404);
  const badRange = await rest('browser_pdf', { pageRanges: 'all of them' });
  t.equal(badRange.status, 400);
});

t.test('log and network show console errors and HTTP errors', async (t) => {
  await call(client, 'browser_navigate', { url: `${site.url}/err` });
  await call(client, 'browser_wait', { timeMs: 200 });
  const log = await rest('browser_log', {});
  t.ok(log.json.entries.some((e: any) => e.kind === 'console_error' && /boom from page/.test(e.detail)));
  t.ok(log.json.entries.some((e: any) => e.kind === 'http_error' && e.status === 404));
  const net = await rest('browser_network', { failedOnly: true });
  t.ok(net.json.responses.some((x: any) => /missing-thing/.test(x.url) && x.status === 404));
  const filtered = await rest('browser_network', { filter: '/err', type: 'document' });
  t.equal(filtered.json.responses.at(-1).status, 200);
  t.equal((await rest('browser_network', { limit: 301 })).status, 400);
});
