/** Tab ids and cookies survive a daemon restart; a killed Chromium is restarted with its tabs back; capacity. */
import t from 'tap';
import { startTestDaemon, call, type TestDaemon } from '../fixtures/daemon.js';
import { startSite, html, type FixtureSite } from '../fixtures/site.js';

let d: TestDaemon;
let site: FixtureSite;
let alice: string;

t.before(async () => {
  site = await startSite();
  d = await startTestDaemon({ maxBrowsers: 1 });
  alice = await d.addUser('alice');
  site.route('/set', html('<h1>set</h1><script>document.cookie="session=kept-123; max-age=86400; path=/"</script>'));
  site.route('/show', html('<h1>show</h1><p id="c"></p><script>document.getElementById("c").textContent="cookie: "+document.cookie</script>'));
});
t.teardown(async () => {
  await d.stop();
  await site.close();
});

t.test('capacity: with a maximum of 1, a second user gets 503 browser_capacity with Retry-After', async (t) => {
  const a = await d.mcp(alice);
  await call(a, 'browser_open', { url: `${site.url}/set` });
  const bob = await d.addUser('bob');
  const rest = await d.rest(bob, 'POST', '/v1/tabs', { url: `${site.url}/show` });
  t.equal(rest.status, 503);
  t.equal(rest.json.error.code, 'browser_capacity');
  t.ok(Number(rest.headers.get('retry-after')) > 0);
  // Over MCP the refusal comes from the one capacity check in dispatch, as a tool error with the same code.
  const overMcp = await call(await d.mcp(bob), 'browser_snapshot', {});
  t.ok(overMcp.isError);
  t.match(overMcp.text, /browser_capacity/);
  t.equal((await d.rest(bob, 'GET', '/v1/me')).status, 200, 'calls that need no browser still work');
});

t.test('tab ids and a cookie survive a daemon restart', async (t) => {
  const a = await d.mcp(alice);
  const opened = await call(a, 'browser_open', { url: `${site.url}/show`, mode: 'act' });
  const id = /Opened tab (t\d+)/.exec(opened.text)![1];
  const before = (await call(a, 'browser_tabs')).text;
  await d.restart();
  const a2 = await d.mcp(alice);
  const after = await call(a2, 'browser_tabs');
  t.equal(after.text.replace(/<<<(page|end) [0-9a-f]{12}/g, '<<<$1'), before.replace(/<<<(page|end) [0-9a-f]{12}/g, '<<<$1'), 'same tabs, same ids, same urls');
  await call(a2, 'browser_history', { tab: id, action: 'reload' });
  t.match((await call(a2, 'browser_read_text', { tab: id })).text, /cookie: session=kept-123/);
  const mode = (await d.rest(alice, 'GET', '/v1/tabs')).json.tabs.find((x: any) => x.id === id).mode;
  t.equal(mode, 'act', 'mode kept');
});

t.test('a killed Chromium is noticed and restarted on the next call, with its tabs back', async (t) => {
  const a = await d.mcp(alice);
  const list = (await d.rest(alice, 'GET', '/v1/tabs')).json.tabs;
  const inst = d.daemon.env.pool.peek('alice')!;
  const pid = inst.pid!;
  const exited = new Promise((r) => inst['opts'] && (inst as any).chromium.process.once('exit', r));
  process.kill(pid, 'SIGKILL');
  await exited;
  const r = await call(a, 'browser_read_text', { tab: list[0].id });
  t.notOk(r.isError, r.text);
  const inst2 = d.daemon.env.pool.peek('alice')!;
  t.not(inst2.pid, pid, 'a new Chromium');
  const after = (await d.rest(alice, 'GET', '/v1/tabs')).json.tabs;
  t.same(after.map((x: any) => x.id), list.map((x: any) => x.id));
  t.equal(inst2.tabs.size, list.length, 'every tab reopened');
});
