/**
 * The daemon's own page fetch holds the same line as the egress proxy: every hop vetted (a redirect to the
 * daemon's own port or to loopback when private networks are off is refused), names resolved once and checked,
 * the host policy applied, no cookie kept, bodies decoded and capped, slow servers cut off. Loopback only.
 */
import t from 'tap';
import { createServer, type Server } from 'node:http';
import { gzipSync, brotliCompressSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { addressRefusal, guardedFetch, type FetchGuard } from '../../../daemon/fetch/guarded-fetch.js';

let server: Server;
let port: number;
let base: string;
const hits: string[] = [];

t.before(async () => {
  server = createServer((req, res) => {
    hits.push(req.url!);
    const url = new URL(req.url!, 'http://x');
    if (url.pathname === '/plain') return void res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'sid=1' }).end('<p>plain</p>');
    if (url.pathname === '/gzip') return void res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end(gzipSync('gzipped words'));
    if (url.pathname === '/br') return void res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'br' }).end(brotliCompressSync('brotli words'));
    if (url.pathname === '/big') return void res.writeHead(200).end(Buffer.alloc(64 * 1024, 'x'));
    if (url.pathname === '/hang') return; // never answers
    if (url.pathname === '/to') return void res.writeHead(302, { location: url.searchParams.get('u')! }).end();
    if (url.pathname === '/see-other') return void res.writeHead(303, { location: '/plain' }).end();
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});
t.teardown(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));

const open: FetchGuard = { allowPrivateNetwork: true, deniedPorts: () => new Set() };
const code = async (p: Promise<unknown>) => p.then(() => 'ok', (e) => e.code as string);

t.test('an allowed fetch: decoded bodies, no cookie, redirects followed', async (t) => {
  const plain = await guardedFetch(`${base}/plain`, { guard: open });
  t.equal(plain.status, 200);
  t.equal(plain.body.toString(), '<p>plain</p>');
  t.notOk('set-cookie' in plain.headers, 'Set-Cookie is never kept');
  t.equal((await guardedFetch(`${base}/gzip`, { guard: open })).body.toString(), 'gzipped words');
  t.equal((await guardedFetch(`${base}/br`, { guard: open })).body.toString(), 'brotli words');
  const moved = await guardedFetch(`${base}/see-other`, { guard: open });
  t.equal(moved.url, `${base}/plain`);
  t.equal(moved.requestedUrl, `${base}/see-other`);
});

t.test('every hop is vetted', async (t) => {
  const denied: FetchGuard = { allowPrivateNetwork: true, deniedPorts: () => new Set([port + 1]) };
  const before = hits.length;
  t.equal(await code(guardedFetch(`${base}/to?u=${encodeURIComponent(`http://127.0.0.1:${port + 1}/admin`)}`, { guard: denied })), 'blocked', "a redirect to the daemon's own port is refused at the hop");
  t.equal(hits.length, before + 1, 'only the first hop reached a server');
  const closed: FetchGuard = { allowPrivateNetwork: false, deniedPorts: () => new Set() };
  t.equal(await code(guardedFetch(`${base}/plain`, { guard: closed })), 'blocked', 'loopback is refused when private networks are off');
  const rebinding: FetchGuard = { ...closed, lookup: async () => [{ address: '127.0.0.1' }] };
  t.equal(await code(guardedFetch(`http://public.example.test:${port}/plain`, { guard: rebinding })), 'blocked', 'a name that resolves to loopback is refused');
  const mixed: FetchGuard = { ...closed, lookup: async () => [{ address: '93.184.216.34' }, { address: '127.0.0.1' }] };
  t.equal(await code(guardedFetch(`http://mixed.example.test:${port}/plain`, { guard: mixed })), 'blocked', 'one private address among several is enough');
  const target: FetchGuard = { ...closed, allowTargets: [`127.0.0.1:${port}`] };
  t.equal(await code(guardedFetch(`${base}/plain`, { guard: target })), 'ok', 'an allowed target passes');
  const policy: FetchGuard = { ...open, hostAccess: (u) => (new URL(u).hostname === 'blocked.test' ? 'blocked' : 'default') };
  t.equal(await code(guardedFetch(`${base}/to?u=${encodeURIComponent(`http://blocked.test:${port}/plain`)}`, { guard: { ...policy, lookup: async () => [{ address: '127.0.0.1' }] } })), 'blocked', 'the host policy applies to redirects too');
  t.equal(await code(guardedFetch(`file:///etc/passwd`, { guard: open })), 'blocked');
  t.equal(await code(guardedFetch(`http://user:pw@127.0.0.1:${port}/plain`, { guard: open })), 'blocked', 'no credentials in addresses');
});

t.test("the caller judges each redirect hop before it is requested (a crawl's rules)", async (t) => {
  const asked: [string, string][] = [];
  const via = `${base}/to?u=${encodeURIComponent('/see-other')}`;
  const ok = await guardedFetch(via, { guard: open, beforeRedirect: async (to, from) => void asked.push([to, from]) });
  t.equal(ok.url, `${base}/plain`);
  t.same(asked, [[`${base}/see-other`, via], [`${base}/plain`, `${base}/see-other`]], 'every hop, with where it came from');
  const before = hits.length;
  const stop = new Error('not this one');
  const refused = guardedFetch(via, { guard: open, beforeRedirect: async (to) => { if (to.endsWith('/plain')) throw stop; } });
  await t.rejects(refused, stop, "the caller's refusal ends the fetch");
  t.same(hits.slice(before), [via.slice(base.length), '/see-other'], 'the refused hop was never requested');
});

t.test('addressRefusal: the hop checks, asked ahead', async (t) => {
  t.equal(await addressRefusal(`${base}/plain`, open), undefined);
  t.match(await addressRefusal(`http://127.0.0.1:${port}/x`, { allowPrivateNetwork: true, deniedPorts: () => new Set([port]) }), /the daemon's own/);
  t.match(await addressRefusal(`${base}/plain`, { allowPrivateNetwork: false, deniedPorts: () => new Set() }), /loopback address/);
  t.match(await addressRefusal('file:///etc/passwd', open), /file: addresses are not fetched/);
  t.equal(await addressRefusal('http://nowhere.invalid/', { ...open, lookup: async () => [] }), undefined, 'a name that does not resolve is no refusal: the request fails by itself');
});

t.test('caps: size, time, cancel', async (t) => {
  t.equal(await code(guardedFetch(`${base}/big`, { guard: open, maxBytes: 1024 })), 'navigation_failed');
  t.equal(await code(guardedFetch(`${base}/hang`, { guard: open, timeoutMs: 200 })), 'timeout');
  const ac = new AbortController();
  const pending = code(guardedFetch(`${base}/hang`, { guard: open, signal: ac.signal }));
  ac.abort();
  t.equal(await pending, 'timeout');
  t.equal(await code(guardedFetch(`http://127.0.0.1:1/x`, { guard: open })), 'navigation_failed', 'a refused connection');
});
