/**
 * load-file.ts without Chromium: a loopback server and a stand-in tab (its cookie jar and User-Agent). Each
 * redirect hop is judged before it is requested (a refused hop never reaches the server, and the reason names
 * it), a hop the address rules refuse is named the same way, each hop carries only its own address's cookies,
 * and failures come back as the reasons collect lists.
 */
import t from 'tap';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadResource } from '../../../daemon/docs/load-file.js';
import type { Tab } from '../../../daemon/browser/tab.js';
import type { FetchGuard } from '../../../daemon/fetch/guarded-fetch.js';

const seen: { path: string; cookie?: string; ua?: string }[] = [];
const server = http.createServer((q, res) => {
  seen.push({ path: q.url!, cookie: q.headers.cookie, ua: q.headers['user-agent'] });
  const to: Record<string, [number, string]> = { '/a.pdf': [302, '/b/b.pdf'], '/b/b.pdf': [307, 'c.pdf'], '/x.pdf': [301, '/account/delete?id=1'], '/away.pdf': [302, 'http://blocked.test/z.pdf'] };
  const hop = to[q.url!];
  if (hop) return void res.writeHead(hop[0], { location: hop[1] }).end();
  if (q.url === '/missing.pdf') return void res.writeHead(404).end('no');
  res.writeHead(200, { 'content-type': 'application/pdf' }).end(q.url === '/big.pdf' ? 'x'.repeat(5000) : '%PDF-1.4 file');
});
let base = '';
t.before(async () => {
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
t.teardown(() => void server.close());

/** The stand-in tab's jar: a cookie only for paths under /b/. */
const tab = {
  send: async (method: string, p: { urls: string[] }) => {
    if (method !== 'Network.getCookies') throw new Error(`unexpected ${method}`);
    return { cookies: new URL(p.urls[0]!).pathname.startsWith('/b/') ? [{ name: 'sid', value: 'b-only' }] : [] };
  },
  agentHeaders: async () => ({ 'user-agent': 'TabAgent/1' }),
} as unknown as Tab;
const guard: FetchGuard = { allowPrivateNetwork: true, deniedPorts: () => new Set(), hostAccess: (u) => (new URL(u).hostname === 'blocked.test' ? 'blocked' : 'default') };
const judged: string[] = [];
const judgeHop = (to: string) => (judged.push(to), /\/account\//.test(to) ? 'it acts' : undefined);
const load = (path: string, maxBytes = 1_000_000) => loadResource(tab, `${base}${path}`, { maxBytes, guard, judgeHop });

t.test('a chain of hops within the rules is followed; each hop is judged and gets only its own cookies', async (t) => {
  const from = seen.length;
  judged.length = 0;
  const r = await load('/a.pdf');
  t.ok(r.ok, JSON.stringify(r));
  if (r.ok) t.equal(r.bytes.toString(), '%PDF-1.4 file');
  t.same(judged, [`${base}/b/b.pdf`, `${base}/b/c.pdf`], 'both hops judged, the relative Location resolved');
  t.same(seen.slice(from).map((s) => [s.path, s.cookie]), [['/a.pdf', undefined], ['/b/b.pdf', 'sid=b-only'], ['/b/c.pdf', 'sid=b-only']]);
  t.ok(seen.slice(from).every((s) => s.ua === 'TabAgent/1'), "the tab's User-Agent");
});

t.test('a hop the judge refuses is never requested, and the reason names it', async (t) => {
  const from = seen.length;
  const r = await load('/x.pdf');
  t.same(r.ok ? 'ok' : [r.reason, r.detail], ['blocked', `the redirect from ${base}/x.pdf to ${base}/account/delete?id=1 was not followed: it acts`]);
  t.same(seen.slice(from).map((s) => s.path), ['/x.pdf']);
});

t.test('a hop the address rules refuse is named too', async (t) => {
  const r = await load('/away.pdf');
  t.equal(r.ok ? 'ok' : r.reason, 'blocked');
  t.match(r.ok ? '' : r.detail, /^the redirect from .*\/away\.pdf to http:\/\/blocked\.test\/z\.pdf was not followed: blocked\.test is blocked by your host policy/);
});

t.test('http errors and too large files', async (t) => {
  const missing = await load('/missing.pdf');
  t.same(missing.ok ? 'ok' : [missing.reason, missing.status], ['http_error', 404]);
  const big = await load('/big.pdf', 1000);
  t.equal(big.ok ? 'ok' : big.reason, 'too_large');
});
