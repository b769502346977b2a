/**
 * Tries to break each safety promise against a daemon with the private-network guard ON. Only the fixture
 * site's exact address:port is allowed (as an admin would allow an intranet app); every other loopback target
 * must stay unreachable. All traffic stays on loopback.
 */
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { WebSocketServer } from 'ws';
import { startTestDaemon, call, refOf, type TestDaemon } from '../fixtures/daemon.js';
import { startSite, html, type FixtureSite } from '../fixtures/site.js';

let d: TestDaemon;
let site: FixtureSite;
const victims: FixtureSite[] = [];
let alice: string;
let bob: string;
let wsMessages = 0;
const rest = (token: string, name: string, args: Record<string, unknown>) => d.rest(token, 'POST', `/v1/tools/${name}`, args);

t.before(async () => {
  site = await startSite();
  victims.push(await startSite('127.0.0.1'), await startSite('127.0.0.2'));
  try {
    victims.push(await startSite('::1'));
  } catch {
    /* no IPv6 loopback on this host */
  }
  new WebSocketServer({ server: site.server }).on('connection', (ws) => ws.on('message', () => wsMessages++));
  d = await startTestDaemon({ allowPrivateNetwork: false, allowTargets: [`127.0.0.1:${site.port}`] });
  alice = await d.addUser('alice');
  bob = await d.addUser('bob');
  await d.daemon.env.users.update('bob', { approvals: true });
  const A = (host = 'a.test') => `http://${host}:${site.port}`;
  site.route('/writes', html(`
    <form method="post" action="/nav-post"><input name="q" value="1"></form>
    <button onclick="navigator.sendBeacon('/beacon','b')">Beacon</button>
    <button onclick="const ws=new WebSocket('ws://'+location.host+'/ws'); ws.onopen=()=>{ws.send('hello');document.title='ws open'}; ws.onerror=()=>{document.title='ws error'}">Socket</button>
    <button onclick="fetch('/api',{method:'POST',body:'x'}).catch(()=>{})">Post</button>
    <button onclick="const f=document.body.appendChild(document.createElement('iframe')); try{const ws=new f.contentWindow.WebSocket('ws://'+location.host+'/ws2'); ws.onopen=()=>ws.send('from frame')}catch(e){}">Frame socket</button>
    <button onclick="new Worker(URL.createObjectURL(new Blob(['const ws=new WebSocket(&quot;ws://'+location.host+'/ws3&quot;); ws.onopen=()=>ws.send(&quot;from worker&quot;)'])))">Worker socket</button>`));
  site.route('/pay', html(`<h1>Checkout</h1><form method="post" action="/charge">
    <label>Card number <input name="cardnumber" autocomplete="cc-number"></label>
    <label>CVC <input name="cvc" autocomplete="cc-csc"></label>
    <button type="submit">Pay now</button></form>
    <a href="/inside">Shipping info</a>`, '', 'Checkout'));
  site.route('/charge', (_q, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end(html('<h1>Paid</h1>')); });
  site.route('/home', html(`<a href="${A('b.test')}/elsewhere">Go elsewhere</a>
    <button onclick="window.open('${A('b.test')}/popup')">Popup elsewhere</button>
    <a href="/redir">Redirect me</a><a href="/inside">Inside</a>`));
  site.route('/inside', html('<h1>Inside</h1>'));
  site.route('/redir', (_q, res) => { res.writeHead(302, { location: `${A('b.test')}/landing` }); res.end(); });
  site.route('/login', html(`<label>Password <input type="password" id="pw"></label>`));
});
t.teardown(async () => {
  await d.stop();
  await site.close();
  for (const v of victims) await v.close();
});

t.test('read tab: form POST navigation, beacon, WebSocket send and fetch POST never reach the server', async (t) => {
  const open = await rest(alice, 'browser_open', { url: `http://a.test:${site.port}/writes` });
  t.equal(open.status, 200, JSON.stringify(open.json));
  const tab = open.json.tab;
  const snap = (await call(await d.mcp(alice), 'browser_snapshot', { tab })).text;
  const c = await d.mcp(alice);
  await call(c, 'browser_click', { tab, ref: refOf(snap, /button "Beacon"/) });
  await call(c, 'browser_click', { tab, ref: refOf(snap, /button "Socket"/) });
  await call(c, 'browser_click', { tab, ref: refOf(snap, /button "Post"/) });
  await call(c, 'browser_click', { tab, ref: refOf(snap, /button "Frame socket"/) });
  await call(c, 'browser_click', { tab, ref: refOf(snap, /button "Worker socket"/) });
  const nav = await rest(alice, 'browser_evaluate', { tab, js: 'document.forms[0].submit(); "submitted"' });
  t.equal(nav.status, 200);
  await rest(alice, 'browser_wait', { tab, timeMs: 300 });
  t.same(site.writes(), [], 'no write reached the fixture server');
  t.equal(wsMessages, 0, 'no WebSocket message arrived');
  const log = (await rest(alice, 'browser_log', { tab })).json.entries;
  t.ok(log.some((e: any) => e.kind === 'write_blocked' && /nav-post/.test(e.url)), 'the POST navigation is in the log');
  t.ok(log.some((e: any) => e.kind === 'write_blocked' && /beacon/.test(e.url)), 'the beacon is in the log');
});

t.test('in a read tab Enter on a payment page is refused, and nothing is sent', async (t) => {
  const tab = (await rest(alice, 'browser_open', { url: `http://a.test:${site.port}/pay` })).json.tab;
  const snap = (await call(await d.mcp(alice), 'browser_snapshot', { tab })).text;
  await rest(alice, 'browser_click', { tab, ref: refOf(snap, /textbox "Card number"/) });
  const enter = await rest(alice, 'browser_press', { tab, key: 'Enter' });
  t.equal(enter.json.error?.code, 'refused');
  t.match(enter.json.error.message, /payment.*read tab/);
  const click = await rest(alice, 'browser_click', { tab, ref: refOf(snap, /button "Pay now"/) });
  t.equal(click.json.error?.code, 'refused');
  t.same(site.writes(), []);
});

t.test('a read-only site refuses click-to-submit, Enter, evaluate and fill of a payment form in an act tab', async (t) => {
  await d.daemon.env.policies.upsert('alice', { pattern: 'a.test', access: 'read_only' });
  const tab = (await rest(alice, 'browser_open', { url: `http://a.test:${site.port}/pay`, mode: 'act' })).json.tab;
  const c = await d.mcp(alice);
  const snap = (await call(c, 'browser_snapshot', { tab })).text;
  const card = refOf(snap, /textbox "Card number"/);
  const fill = await rest(alice, 'browser_fill', { tab, ref: card, value: '4111111111111111' });
  t.equal(fill.json.error?.code, 'site_read_only');
  t.match(fill.json.error.next, /Do not try another way/);
  const click = await rest(alice, 'browser_click', { tab, ref: refOf(snap, /button "Pay now"/) });
  t.equal(click.json.error?.code, 'site_read_only');
  await rest(alice, 'browser_click', { tab, ref: card });
  const enter = await rest(alice, 'browser_press', { tab, key: 'Enter' });
  t.equal(enter.json.error?.code, 'site_read_only');
  const js = await rest(alice, 'browser_evaluate', { tab, js: 'document.forms[0].submit()' });
  t.equal(js.json.error?.code, 'site_read_only');
  const dom = await rest(alice, 'browser_click', { tab, ref: refOf(snap, /button "Pay now"/), mode: 'dom' });
  t.equal(dom.json.error?.code, 'site_read_only', 'dom mode is no way around it');
  const harmless = await rest(alice, 'browser_click', { tab, ref: refOf(snap, /link "Shipping info"/) });
  t.equal(harmless.status, 200, `reading on: a link still works: ${JSON.stringify(harmless.json.error)}`);
  t.match(harmless.json.url, /\/inside$/);
  t.same(site.writes(), [], 'the server saw nothing');
  await d.daemon.env.policies.remove('alice', 'a.test');
});

t.test('approvals on: a sensitive action returns needsApproval and the server sees nothing', async (t) => {
  const tab = (await rest(bob, 'browser_open', { url: `http://a.test:${site.port}/pay`, mode: 'act' })).json.tab;
  const c = await d.mcp(bob);
  const snap = (await call(c, 'browser_snapshot', { tab })).text;
  const r = await call(c, 'browser_click', { tab, ref: refOf(snap, /button "Pay now"/) });
  t.notOk(r.isError);
  t.match(r.text, /needsApproval/);
  t.match(r.text, /payment/);
  const viaRest = await rest(bob, 'browser_click', { tab, ref: refOf(snap, /button "Pay now"/) });
  t.equal(viaRest.json.needsApproval.classes[0], 'payment');
  const js = await rest(bob, 'browser_evaluate', { tab, js: '1' });
  t.ok(js.json.needsApproval, 'running JavaScript needs approval too');
  t.same(site.writes(), []);
  const audit = await d.rest(bob, 'GET', '/v1/audit?limit=5');
  t.equal(audit.json.entries[0].outcome, 'needs_approval');
});

t.test('allowedDomains: no link, redirect or window.open leaves the domain', async (t) => {
  const before = site.requests.length;
  const tab = (await rest(alice, 'browser_open', { url: `http://a.test:${site.port}/home`, mode: 'act', allowedDomains: ['a.test'] })).json.tab;
  const c = await d.mcp(alice);
  // A blocked navigation leaves an error page: go home again before each attempt.
  for (const what of [/link "Go elsewhere"/, /link "Redirect me"/, /button "Popup elsewhere"/]) {
    await rest(alice, 'browser_navigate', { tab, url: `http://a.test:${site.port}/home` });
    const snap = (await call(c, 'browser_snapshot', { tab })).text;
    const r = await call(c, 'browser_click', { tab, ref: refOf(snap, what) });
    t.notOk(r.isError && !/blocked/i.test(r.text), r.text);
  }
  const nav = await rest(alice, 'browser_navigate', { tab, url: `http://b.test:${site.port}/direct` });
  t.equal(nav.json.error?.code, 'blocked');
  await rest(alice, 'browser_wait', { tab, timeMs: 300 });
  const toB = site.requests.slice(before).filter((r) => String(r.headers.host).startsWith('b.test'));
  t.same(toB.map((r) => r.path), [], 'nothing reached b.test');
  const log = (await rest(alice, 'browser_log', { tab })).json.entries.filter((e: any) => e.kind === 'navigation_blocked');
  t.ok(log.some((e: any) => /elsewhere/.test(e.url)));
  t.ok(log.some((e: any) => /landing/.test(e.url)), `the redirect hop was blocked: ${JSON.stringify(log)}`);
  const popups = (await d.rest(alice, 'GET', '/v1/tabs')).json.tabs.filter((x: any) => x.opener === tab);
  for (const p of popups) {
    t.same(p.allowedDomains, ['a.test'], 'the popup inherits allowedDomains');
    const plog = (await rest(alice, 'browser_log', { tab: p.id })).json.entries;
    t.ok(plog.some((e: any) => e.kind === 'navigation_blocked' && /popup/.test(e.url)), 'the popup could not load b.test');
  }
  t.ok(popups.length >= 1, 'the window.open became a tab');
  const inside = await rest(alice, 'browser_navigate', { tab, url: `http://a.test:${site.port}/inside` });
  t.equal(inside.status, 200, 'inside the domain works');
});

t.test('the guard: no loopback address, rebinding name or daemon port is reachable from pages', async (t) => {
  const [v4, v4b, v6] = victims;
  const targets = [
    `http://127.0.0.1:${v4.port}/nav`,
    `http://127.0.0.2:${v4b.port}/nav`,
    `http://2130706433:${v4.port}/nav`,
    `http://0x7f.1:${v4.port}/nav`,
    `http://rebind.test:${v4.port}/nav`,
    `http://localhost:${v4.port}/nav`,
    ...(v6 ? [`http://[::1]:${v6.port}/nav`] : []),
    `http://127.0.0.1:${d.daemon.port}/health`,
  ];
  for (const url of targets) {
    const r = await rest(alice, 'browser_open', { url });
    t.equal(r.json.error?.code, 'blocked', `open ${url}`);
  }
  site.route('/probe', html(`<script>
    const urls = ${JSON.stringify(targets.map((u) => u.replace('/nav', '/sub')))};
    for (const u of urls) { fetch(u).catch(() => {}); const i = new Image(); i.src = u + '?img'; }
  </script><p>probe</p>`));
  const tab = (await rest(alice, 'browser_open', { url: `http://127.0.0.1:${site.port}/probe` })).json.tab;
  await rest(alice, 'browser_wait', { tab, timeMs: 500 });
  for (const v of victims) t.same(v.requests, [], `nothing reached the server on ${v.origin}`);
  const net = (await rest(alice, 'browser_network', { tab, limit: 300 })).json.responses;
  const daemonHit = net.find((x: any) => x.url.includes(`:${d.daemon.port}/`));
  t.not(daemonHit?.status, 200, 'the daemon port did not answer the page');
});

t.test('file:, chrome: and devtools: URLs are refused for agents', async (t) => {
  for (const url of ['file:///etc/passwd', 'chrome://settings', 'devtools://devtools/bundled/inspector.html', 'view-source:http://a.test/']) {
    const r = await rest(alice, 'browser_open', { url });
    t.ok(r.status >= 400, url);
    t.ok(['blocked', 'validation_error'].includes(r.json.error.code), `${url}: ${r.json.error.code}`);
  }
});

t.test('the audit log holds every call, newest first, paged, and no secret', async (t) => {
  const tab = (await rest(alice, 'browser_open', { url: `http://a.test:${site.port}/login`, mode: 'act' })).json.tab;
  const snap = (await call(await d.mcp(alice), 'browser_snapshot', { tab })).text;
  await rest(alice, 'browser_type', { tab, ref: refOf(snap, /Password/), text: 'S3cret-Passw0rd!' });
  await rest(alice, 'browser_fill', { tab, ref: refOf(snap, /Password/), value: 'S3cret-Passw0rd!' });
  const p1 = await d.rest(alice, 'GET', '/v1/audit?limit=3');
  t.equal(p1.json.entries.length, 3);
  t.equal(p1.json.entries[0].tool, 'browser_fill');
  t.ok(p1.json.cursor);
  const p2 = await d.rest(alice, 'GET', `/v1/audit?limit=3&cursor=${encodeURIComponent(p1.json.cursor)}`);
  t.ok(p2.json.entries[0].at <= p1.json.entries[2].at, 'the next page is older');
  const all = await d.rest(alice, 'GET', '/v1/audit?limit=500');
  t.notMatch(JSON.stringify(all.json), /S3cret-Passw0rd/);
  t.notMatch(JSON.stringify(all.json), new RegExp(alice), 'no token in the audit');
  t.ok(all.json.entries.every((e: any) => e.user === 'alice'), 'only the caller\'s entries');
  const bobs = await d.rest(bob, 'GET', '/v1/audit?limit=500');
  t.ok(bobs.json.entries.every((e: any) => e.user === 'bob'));
  const bad = await d.rest(alice, 'GET', '/v1/audit?limit=0');
  t.equal(bad.status, 400);
});

t.test('browserd audit (admin) prints every user\'s entries without secrets', async (t) => {
  // LMDB is multi-process: the CLI reads the same store while the daemon runs.
  const out = execFileSync(process.execPath, ['bin/browserd.js', 'audit', '--data', d.dataDir, '--limit', '500'], { encoding: 'utf8' });
  t.match(out, /"user":"alice"/);
  t.match(out, /"user":"bob"/);
  t.notMatch(out, /S3cret-Passw0rd/);
});
