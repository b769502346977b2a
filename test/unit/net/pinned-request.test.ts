/** A pinned request connects to the vetted addresses only: the name in the URL is never looked up in DNS. */
import t from 'tap';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pinnedLookup, pinnedRequest } from '../../../daemon/net/pinned-request.js';

t.test('the request reaches the vetted address whatever the name would resolve to', async (t) => {
  const hosts: string[] = [];
  const server = http.createServer((req, res) => {
    hosts.push(req.headers.host ?? '');
    res.end('pinned');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise((r) => server.close(r)));
  const { port } = server.address() as AddressInfo;
  // .invalid never resolves (RFC 6761): only the pinned lookup can connect this.
  const u = new URL(`http://never-resolves.invalid:${port}/x`);
  const body = await new Promise<string>((resolve, reject) => {
    const req = pinnedRequest(u, ['127.0.0.1'], { method: 'GET', agent: new http.Agent(), headers: {} });
    req.on('error', reject);
    req.on('response', (res) => {
      let s = '';
      res.on('data', (c) => (s += c));
      res.on('end', () => resolve(s));
    });
    req.end();
  });
  t.equal(body, 'pinned');
  t.same(hosts, [`never-resolves.invalid:${port}`], 'the Host header keeps the name');
});

t.test('the lookup answers with the vetted list, one or all', async (t) => {
  const lookup = pinnedLookup(['127.0.0.1', '::1']);
  const one = await new Promise<[string, number]>((r) => lookup('x.test', {}, ((_e: unknown, a: string, f: number) => r([a, f])) as never));
  t.same(one, ['127.0.0.1', 4]);
  const all = await new Promise<unknown>((r) => lookup('x.test', { all: true }, ((_e: unknown, l: unknown) => r(l)) as never));
  t.same(all, [{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }]);
});
