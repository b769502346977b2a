/** Contexts are isolated and end with their cookies; named profiles persist; workspaces show all; search via a loopback backend. */
import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestDaemon } from '../fixtures/daemon.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import { html, type FixtureSite } from '../fixtures/site.js';
import { searxng } from '../../daemon/search/backends.js';

let stack: Stack;
let d: TestDaemon;
let site: FixtureSite;
let token: string;
const rest = (name: string, args: Record<string, unknown>) => stack.rest(name, args);

t.before(async () => {
  stack = await startStack();
  ({ d, site, token } = stack);
  site.route('/set', html('<script>document.cookie="who=" + (location.hash.slice(1) || "x") + "; max-age=86400; path=/"</script><p>set</p>'));
  site.route('/show', html('<p id="c"></p><script>document.getElementById("c").textContent="cookie=["+document.cookie+"]"</script>'));
});
t.teardown(() => stack.stop());

const cookieIn = async (tab: string) => {
  await rest('browser_navigate', { tab, url: `${site.url}/show` });
  return /cookie=\[([^\]]*)\]/.exec((await rest('browser_read_text', { tab })).json.text)![1];
};

t.test("a context's cookies do not reach the default profile, and close ends them", async (t) => {
  const def = (await rest('browser_open', { url: `${site.url}/show` })).json.tab;
  const ctxTab = (await rest('browser_open', { url: `${site.url}/set#incognito`, context: 'shop' })).json.tab;
  t.equal(await cookieIn(ctxTab), 'who=incognito');
  t.equal(await cookieIn(def), '', 'the default profile does not see it');
  const list = await rest('browser_contexts', {});
  t.same(list.json.contexts, [{ name: 'shop', tabs: 1 }]);
  const closed = await rest('browser_contexts', { action: 'close', name: 'shop' });
  t.same(closed.json.closed.tabs, [ctxTab]);
  t.equal((await rest('browser_read_text', { tab: ctxTab })).status, 404);
  const again = (await rest('browser_open', { url: `${site.url}/show`, context: 'shop' })).json.tab;
  t.equal(await cookieIn(again), '', 'a new context of the same name starts empty');
  t.equal((await rest('browser_contexts', { action: 'close', name: 'nope' })).status, 404);
});

t.test("a named profile has tab ids <profile>/tN, its own cookies, and they survive a restart", async (t) => {
  const p = await rest('browser_open', { url: `${site.url}/set#work`, profile: 'work', mode: 'act' });
  t.equal(p.status, 200, JSON.stringify(p.json));
  t.match(p.json.tab, /^work\/t\d+$/);
  const profiles = await d.rest(token, 'GET', '/v1/profiles');
  t.same(profiles.json.profiles.map((x: any) => x.name), ['work']);
  t.equal(await cookieIn(p.json.tab), 'who=work');
  // The tab now shows /show, so a reopen cannot set the cookie again: only the profile on disk can bring it back.
  await d.restart();
  t.equal(await cookieIn(p.json.tab), 'who=work', 'the profile kept its cookie across a restart');
  const ws = await rest('browser_workspaces', {});
  const names = ws.json.workspaces.map((w: any) => `${w.kind}:${w.name}`);
  t.ok(names.includes('profile:default'));
  t.ok(names.includes('profile:work'));
  t.ok(ws.json.workspaces.find((w: any) => w.name === 'work').tabs.some((x: any) => x.id === p.json.tab));
  const def = ws.json.workspaces.find((w: any) => w.name === 'default');
  for (const tab of def.tabs) t.not(await cookieIn(tab.id), 'who=work', 'the default profile never sees the work cookie');
});

t.test('search goes through a loopback server speaking the SearXNG JSON format', async (t) => {
  const seen: string[] = [];
  const srv = createServer((req, res) => {
    seen.push(req.url!);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ query: 'kettle', number_of_results: 2, results: [
      { url: 'https://a.example/kettle', title: 'Kettle care', content: 'How to descale', engine: 'x' },
      { url: 'https://b.example/vinegar', title: 'Vinegar', content: 'Uses of vinegar', engine: 'y' },
    ] }));
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const none = await rest('browser_search', { query: 'kettle' });
  t.equal(none.status, 501);
  t.equal(none.json.error.code, 'not_configured');
  d.daemon.env.search = searxng(`http://127.0.0.1:${(srv.address() as AddressInfo).port}/`);
  const r = await rest('browser_search', { query: 'kettle', limit: 1 });
  t.equal(r.status, 200);
  t.same(r.json.results, [{ title: 'Kettle care', url: 'https://a.example/kettle', snippet: 'How to descale' }]);
  t.match(seen[0], /^\/search\?q=kettle&format=json/);
  t.match(r.json.text, /<<<page [0-9a-f]{12}[ >]/, 'results are fenced');
  srv.close();
});
