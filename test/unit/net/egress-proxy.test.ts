// Every connection in this file goes to loopback: the proxy is pointed at servers on 127.0.0.0/8 and ::1, and
// names are mapped to loopback with the injectable `lookup`. Other ranges are covered by address.test.ts.
import t from 'tap';
import http from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import { startEgressProxy, type BlockedInfo, type EgressProxyOptions } from '../../../daemon/net/egress-proxy.js';
import { ownBrowsersOnly } from '../../../daemon/net/peer-process.js';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

async function httpServer(host = '127.0.0.1') {
  const seen: Seen[] = [];
  const server = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
    if (req.url === '/redirect') {
      res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' });
      return res.end();
    }
    if (req.url === '/hop') {
      res.writeHead(200, { connection: 'x-secret, keep-alive', 'x-secret': '1', 'keep-alive': 'timeout=5', 'x-kept': 'yes' });
      return res.end('hop');
    }
    if (req.url === '/chunked') {
      res.write('part1-');
      setTimeout(() => res.end('part2'), 5);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`hello ${req.method} ${req.url}`);
  });
  server.listen(0, host);
  await once(server, 'listening');
  return { server, port: (server.address() as net.AddressInfo).port, seen, close: () => new Promise((r) => server.close(r)) };
}

async function echoServer(host = '127.0.0.1') {
  let connections = 0;
  const server = net.createServer((s) => {
    connections++;
    s.pipe(s);
  });
  server.listen(0, host);
  await once(server, 'listening');
  return { port: (server.address() as net.AddressInfo).port, connections: () => connections, close: () => new Promise((r) => server.close(r)) };
}

/** Address as a SOCKS5 request carries it: a name (type 3, as Chromium sends every host), or a literal IPv4 or IPv6 address. */
function socksAddress(host: string, as: 'name' | 'ip' = 'name'): Buffer {
  if (as === 'ip' && net.isIPv4(host)) return Buffer.from([1, ...host.split('.').map(Number)]);
  if (as === 'ip' && net.isIPv6(host)) {
    const [head, tail] = host.split('::');
    const left = head ? head.split(':') : [];
    const right = tail ? tail.split(':') : [];
    const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
    return Buffer.from([4, ...groups.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 255])]);
  }
  const name = Buffer.from(host);
  return Buffer.from([3, name.length, ...name]);
}

/** Reads exactly n bytes from a socket (or fewer when it closes first). */
async function readBytes(socket: net.Socket, n: number): Promise<Buffer> {
  let got = Buffer.alloc(0);
  while (got.length < n) {
    const chunk = socket.read() as Buffer | null;
    if (chunk) {
      got = Buffer.concat([got, chunk]);
      continue;
    }
    if (socket.readableEnded || socket.destroyed) break;
    await Promise.race([once(socket, 'readable'), once(socket, 'close')]);
  }
  if (got.length > n) socket.unshift(got.subarray(n));
  return got.subarray(0, n);
}

/**
 * A SOCKS5 CONNECT through the proxy, as Chromium opens one for plain http://: greeting, request, reply.
 * Resolves with the reply code (0: the tunnel is open) and the socket. `bytewise` sends the handshake a
 * byte at a time, as a slow network might deliver it.
 */
async function socksConnect(proxyPort: number, host: string, port: number, opts: { as?: 'name' | 'ip'; command?: number; methods?: number[]; bytewise?: boolean } = {}) {
  const socket = net.connect(proxyPort, '127.0.0.1');
  await once(socket, 'connect');
  socket.pause();
  const send = async (bytes: Buffer) => {
    if (!opts.bytewise) return void socket.write(bytes);
    for (const byte of bytes) {
      socket.write(Buffer.from([byte]));
      await new Promise((r) => setImmediate(r));
    }
  };
  const methods = opts.methods ?? [0];
  await send(Buffer.from([5, methods.length, ...methods]));
  const method = await readBytes(socket, 2);
  if (method[1] !== 0) return { reply: -1, method: method[1], socket };
  await send(Buffer.concat([Buffer.from([5, opts.command ?? 1, 0]), socksAddress(host, opts.as), Buffer.from([port >> 8, port & 255])]));
  const reply = await readBytes(socket, 10);
  return { reply: reply.length >= 2 ? reply[1]! : -2, method: 0, socket };
}

/** One plain http:// request through the proxy, as Chromium sends it: over a SOCKS5 tunnel to the URL's host. */
async function viaProxy(proxyPort: number, url: string, opts: { method?: string; headers?: Record<string, string>; body?: string; as?: 'name' | 'ip' } = {}) {
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  const { reply, socket } = await socksConnect(proxyPort, host, Number(target.port || 80), { as: opts.as });
  if (reply !== 0) {
    socket.destroy();
    return { status: 0, socksReply: reply, headers: {} as http.IncomingHttpHeaders, body: '' };
  }
  socket.resume();
  return new Promise<{ status: number; socksReply: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = http.request({ path: target.pathname + target.search, method: opts.method ?? 'GET', headers: { host: target.host, ...opts.headers }, createConnection: () => socket });
    req.on('response', async (res) => {
      let body = '';
      for await (const chunk of res) body += chunk;
      socket.destroy();
      resolve({ status: res.statusCode!, socksReply: 0, headers: res.headers, body });
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** A CONNECT tunnel through the proxy; resolves with the status and, when 200, the tunnel socket. */
function tunnel(proxyPort: number, target: string) {
  return new Promise<{ status: number; socket: net.Socket; body: string }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: proxyPort, method: 'CONNECT', path: target, agent: false });
    // Node emits 'connect' for every answer to CONNECT; a refusal's body follows on the socket.
    req.on('connect', async (res, socket, head) => {
      if (res.statusCode === 200) return resolve({ status: 200, socket, body: '' });
      let body = head.toString();
      for await (const chunk of socket) body += chunk;
      resolve({ status: res.statusCode!, socket, body });
    });
    req.on('response', async (res) => {
      let body = '';
      for await (const chunk of res) body += chunk;
      resolve({ status: res.statusCode!, socket: res.socket, body });
    });
    req.on('error', reject);
    req.end();
  });
}

async function echoThrough(socket: net.Socket, text: string): Promise<string> {
  socket.write(text);
  let got = '';
  for await (const chunk of socket) {
    got += chunk;
    if (got.length >= text.length) break;
  }
  socket.destroy();
  return got;
}

const ipv6 = await new Promise<boolean>((resolve) => {
  const s = net.createServer().listen(0, '::1', () => s.close(() => resolve(true)));
  s.on('error', () => resolve(false));
});

async function proxy(t: { teardown(fn: () => unknown): void }, opts: Partial<EgressProxyOptions> = {}) {
  const blocked: BlockedInfo[] = [];
  const p = await startEgressProxy({
    allowPrivateNetwork: false,
    deniedPorts: () => new Set(),
    onBlocked: (info) => blocked.push(info),
    lookup: async (host) => {
      if (host === 'rebind.test') return [{ address: '127.0.0.1', family: 4 }];
      if (host === 'rebind6.test') return [{ address: '::ffff:7f00:1', family: 6 }];
      if (host === 'localhost') return [{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }];
      throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
    },
    ...opts,
  });
  t.teardown(() => p.close());
  return { ...p, blocked };
}

t.test('allowed: plain HTTP rides a SOCKS5 tunnel to loopback, its bytes untouched', async (t) => {
  const site = await httpServer();
  t.teardown(site.close);
  const p = await proxy(t, { allowPrivateNetwork: true });
  const res = await viaProxy(p.port, `http://127.0.0.1:${site.port}/page?q=1`, { method: 'POST', headers: { 'X-Kept': 'end-to-end' }, body: 'payload' });
  t.equal(res.status, 200);
  t.equal(res.body, 'hello POST /page?q=1');
  const seen = site.seen.at(-1)!;
  t.equal(seen.url, '/page?q=1');
  t.equal(seen.body, 'payload', 'body forwarded');
  t.equal(seen.headers['x-kept'], 'end-to-end');
  t.equal(seen.headers.host, `127.0.0.1:${site.port}`);
  t.equal(res.headers['x-browserd-egress'], undefined, "a site's answer carries no mark of the guard");
  t.same(p.blocked, []);
});

t.test('allowed: a name is connected through its checked address; IPv4 and IPv6 literals too; a handshake a byte at a time', async (t) => {
  const site = await httpServer();
  t.teardown(site.close);
  const p = await proxy(t, { allowPrivateNetwork: true });
  const res = await viaProxy(p.port, `http://rebind.test:${site.port}/x`);
  t.equal(res.status, 200);
  t.equal(site.seen.at(-1)!.headers.host, `rebind.test:${site.port}`);
  t.equal((await viaProxy(p.port, `http://127.0.0.1:${site.port}/ip4`, { as: 'ip' })).body, 'hello GET /ip4');
  const slow = await socksConnect(p.port, '127.0.0.1', site.port, { bytewise: true });
  t.equal(slow.reply, 0, 'a handshake in single bytes still opens the tunnel');
  slow.socket.destroy();
  if (ipv6) {
    const six = await httpServer('::1');
    t.teardown(six.close);
    t.equal((await viaProxy(p.port, `http://[::1]:${six.port}/ip6`, { as: 'ip' })).body, 'hello GET /ip6');
  }
});

t.test('allowed: responses pass as they are (redirects not followed, streaming); one tunnel carries many requests on one connection', async (t) => {
  const site = await httpServer();
  t.teardown(site.close);
  let connections = 0;
  site.server.on('connection', () => connections++);
  const p = await proxy(t, { allowPrivateNetwork: true });
  const redirect = await viaProxy(p.port, `http://127.0.0.1:${site.port}/redirect`);
  t.equal(redirect.status, 302);
  t.equal(redirect.headers.location, 'http://127.0.0.1:1/elsewhere');
  t.equal(site.seen.length, 1, 'the proxy did not follow the redirect');
  const chunked = await viaProxy(p.port, `http://127.0.0.1:${site.port}/chunked`);
  t.equal(chunked.body, 'part1-part2');

  // As Chromium keeps a tunnel for its next requests to the same host.
  connections = 0;
  const { reply, socket } = await socksConnect(p.port, '127.0.0.1', site.port);
  t.equal(reply, 0);
  socket.resume();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  agent.createConnection = () => socket;
  const bodies: string[] = [];
  for (const path of ['/1', '/2', '/3']) {
    bodies.push(await new Promise<string>((resolve, reject) => {
      http.get({ path, agent, headers: { host: `127.0.0.1:${site.port}` } }, async (res) => {
        let body = '';
        for await (const chunk of res) body += chunk;
        resolve(body);
      }).on('error', reject);
    }));
  }
  t.same(bodies, ['hello GET /1', 'hello GET /2', 'hello GET /3']);
  t.equal(connections, 1, 'one upstream connection for the tunnel');
  const closed = once(socket, 'close');
  agent.destroy();
  await closed;
});

t.test('blocked by default: loopback in every spelling and by name', async (t) => {
  const site = await httpServer();
  t.teardown(site.close);
  const p = await proxy(t);
  const urls = [
    `http://127.0.0.1:${site.port}/`,
    `http://127.0.0.2:${site.port}/`,
    `http://2130706433:${site.port}/`,
    `http://0x7f.1:${site.port}/`,
    `http://[::ffff:127.0.0.1]:${site.port}/`,
    `http://[::1]:${site.port}/`,
    `http://localhost:${site.port}/`,
    `http://rebind.test:${site.port}/`,
    `http://rebind6.test:${site.port}/`,
  ];
  for (const url of urls) {
    const res = await viaProxy(p.port, url);
    t.equal(res.status, 403, `${url} refused`);
    t.match(res.body, /blocked/);
    t.equal(res.headers['x-browserd-egress'], 'blocked', 'the answer is marked as the guard\'s, for the tab to tell');
  }
  for (const host of ['127.0.0.1', '::1']) {
    const res = await viaProxy(p.port, `http://${host.includes(':') ? `[${host}]` : host}:${site.port}/`, { as: 'ip' });
    t.equal(res.status, 403, `${host} as a literal address refused`);
  }
  t.equal(site.seen.length, 0, 'nothing reached the loopback server');
  t.equal(p.blocked.length, urls.length + 2, 'onBlocked heard every refusal');
  t.match(p.blocked.find((b) => b.host === 'rebind.test'), { host: 'rebind.test', port: site.port, address: '127.0.0.1', reason: 'loopback address' });
});

t.test('allowed: other loopback addresses and names', async (t) => {
  const a = await httpServer('127.0.0.2');
  t.teardown(a.close);
  const p = await proxy(t, { allowPrivateNetwork: true });
  t.equal((await viaProxy(p.port, `http://127.0.0.2:${a.port}/two`)).body, 'hello GET /two');
  const b = await httpServer('127.0.0.1');
  t.teardown(b.close);
  t.equal((await viaProxy(p.port, `http://localhost:${b.port}/name`)).body, 'hello GET /name');
  t.equal((await viaProxy(p.port, `http://2130706433:${b.port}/num`)).body, 'hello GET /num');
  if (ipv6) {
    const c = await httpServer('::1');
    t.teardown(c.close);
    t.equal((await viaProxy(p.port, `http://[::1]:${c.port}/six`)).body, 'hello GET /six');
    t.equal((await viaProxy(p.port, `http://localhost:${c.port}/first-fails`)).body, 'hello GET /first-fails', 'falls through to the next checked address');
  }
});

t.test('the default resolver maps localhost and it is refused', async (t) => {
  const site = await httpServer();
  t.teardown(site.close);
  const p = await proxy(t, { lookup: undefined });
  t.equal((await viaProxy(p.port, `http://localhost:${site.port}/`)).status, 403);
  t.equal(site.seen.length, 0);
});

t.test('a name with one blocked address among several is refused (fail closed)', async (t) => {
  const site = await httpServer();
  t.teardown(site.close);
  const p = await proxy(t, {
    lookup: async () => [{ address: '203.0.113.1', family: 4 }, { address: '127.0.0.1', family: 4 }],
  });
  t.equal((await viaProxy(p.port, `http://mixed.test:${site.port}/`)).status, 403);
  t.equal(site.seen.length, 0);
});

t.test('denied ports are refused on loopback even when private networks are allowed', async (t) => {
  const site = await httpServer();
  t.teardown(site.close);
  const echo = await echoServer();
  t.teardown(echo.close);
  const denied = new Set<number>();
  const p = await proxy(t, { allowPrivateNetwork: true, deniedPorts: () => denied });
  t.equal((await viaProxy(p.port, `http://127.0.0.1:${site.port}/`)).status, 200, 'reachable before the port is denied');
  denied.add(site.port).add(echo.port);
  for (const host of ['127.0.0.1', '127.0.0.9', 'localhost', 'rebind.test', '[::1]', '0.0.0.0']) {
    t.equal((await viaProxy(p.port, `http://${host}:${site.port}/`)).status, 403, `${host} on a denied port`);
  }
  const c = await tunnel(p.port, `127.0.0.1:${echo.port}`);
  t.equal(c.status, 403, 'CONNECT to a denied port');
  c.socket.destroy();
  t.equal(site.seen.length, 1, 'only the request before the port was denied arrived');
  t.equal(echo.connections(), 0);
  t.match(p.blocked[0], { reason: 'port reserved for the daemon and its browsers' });
  t.equal((await viaProxy(p.port, `http://127.0.0.1:${p.port}/`)).status, 403, "the proxy's own port");
});

t.test('CONNECT tunnels to a loopback echo server when allowed', async (t) => {
  const echo = await echoServer();
  t.teardown(echo.close);
  const p = await proxy(t, { allowPrivateNetwork: true });
  for (const target of [`127.0.0.1:${echo.port}`, `localhost:${echo.port}`, `rebind.test:${echo.port}`]) {
    const c = await tunnel(p.port, target);
    t.equal(c.status, 200, `${target} tunnel opened`);
    t.equal(await echoThrough(c.socket, 'ping through the tunnel'), 'ping through the tunnel');
  }
  if (ipv6) {
    const six = await echoServer('::1');
    t.teardown(six.close);
    const c = await tunnel(p.port, `[::1]:${six.port}`);
    t.equal(c.status, 200);
    t.equal(await echoThrough(c.socket, 'six'), 'six');
  }
});

t.test('CONNECT is refused to loopback by default', async (t) => {
  const echo = await echoServer();
  t.teardown(echo.close);
  const p = await proxy(t);
  for (const target of [`127.0.0.1:${echo.port}`, `127.0.0.2:${echo.port}`, `[::1]:${echo.port}`, `[::ffff:7f00:1]:${echo.port}`, `localhost:${echo.port}`, `rebind.test:${echo.port}`, `2130706433:${echo.port}`]) {
    const c = await tunnel(p.port, target);
    t.equal(c.status, 403, `${target} refused`);
    t.match(c.body, /blocked/);
    c.socket.destroy();
  }
  t.equal(echo.connections(), 0, 'nothing reached the echo server');
});

t.test('malformed and unresolvable targets fail closed', async (t) => {
  const site = await httpServer();
  t.teardown(site.close);
  const p = await proxy(t, { allowPrivateNetwork: true });
  const absolute = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    http.get({ host: '127.0.0.1', port: p.port, path: `http://127.0.0.1:${site.port}/`, agent: false }, async (res) => {
      let body = '';
      for await (const chunk of res) body += chunk;
      resolve({ status: res.statusCode!, body });
    }).on('error', reject);
  });
  t.equal(absolute.status, 400, 'a request in absolute form is not carried: plain http comes over SOCKS5');
  t.match(absolute.body, /SOCKS5/);
  const nx = await viaProxy(p.port, 'http://nxdomain.test/');
  t.equal(nx.status, 502, 'a name that does not resolve');
  t.equal(nx.headers['x-browserd-egress'], 'unreachable');
  t.match(p.blocked.at(-1), { host: 'nxdomain.test', reason: 'name did not resolve' });
  t.equal((await viaProxy(p.port, 'http://127.0.0.1:0/')).status, 400, 'port 0');
  const bind = await socksConnect(p.port, '127.0.0.1', site.port, { command: 2 });
  t.equal(bind.reply, 7, 'BIND is not served');
  bind.socket.destroy();
  const auth = await socksConnect(p.port, '127.0.0.1', site.port, { methods: [2] });
  t.equal(auth.method, 0xff, 'a client that insists on a password gets no method');
  auth.socket.destroy();
  t.equal(site.seen.length, 0, 'none of them reached the site');
  for (const target of ['no-port', '127.0.0.1:0', '127.0.0.1:70000', '::1:80']) {
    const c = await tunnel(p.port, target);
    t.equal(c.status, 400, `CONNECT ${target}`);
    c.socket.destroy();
  }
  const c = await tunnel(p.port, 'nxdomain.test:443');
  t.equal(c.status, 502);
  c.socket.destroy();
});

t.test('close() ends open tunnels', async (t) => {
  const echo = await echoServer();
  t.teardown(echo.close);
  const p = await startEgressProxy({ allowPrivateNetwork: true, deniedPorts: () => new Set() });
  const c = await tunnel(p.port, `127.0.0.1:${echo.port}`);
  t.equal(c.status, 200);
  const closed = once(c.socket, 'close');
  await p.close();
  await closed;
  t.pass('tunnel closed with the proxy');
});

t.test('admit: a client the check refuses gets no tunnel and nothing upstream, once per connection; an admitted one passes', async (t) => {
  const site = await httpServer();
  t.teardown(site.close);
  const echo = await echoServer();
  t.teardown(echo.close);
  let admitted = false;
  const asked: number[] = [];
  const p = await proxy(t, {
    allowPrivateNetwork: true,
    admit: (clientPort) => {
      asked.push(clientPort);
      return admitted ? undefined : 'a stranger';
    },
  });
  const refused = await viaProxy(p.port, `http://127.0.0.1:${site.port}/page`);
  t.equal(refused.socksReply, 2, 'a stranger gets no SOCKS tunnel: connection not allowed');
  const c = await tunnel(p.port, `127.0.0.1:${echo.port}`);
  t.equal(c.status, 403, 'CONNECT refused too');
  c.socket.destroy();
  const absolute = await new Promise<number>((resolve, reject) => {
    http.get({ host: '127.0.0.1', port: p.port, path: `http://127.0.0.1:${site.port}/page`, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    }).on('error', reject);
  });
  t.equal(absolute, 403, 'a request in absolute form is refused as a stranger\'s, not answered as malformed');
  t.same(site.seen, [], 'nothing reached the site');
  t.ok(p.blocked.every((b) => /client refused: a stranger/.test(b.reason)) && p.blocked.length === 3, 'each refusal is reported');
  t.same(p.blocked.map((b) => `${b.host}:${b.port}`), [site.port, echo.port, site.port].map((port) => `127.0.0.1:${port}`), 'each report names the target asked for');
  admitted = true;
  const ok = await viaProxy(p.port, `http://127.0.0.1:${site.port}/page`);
  t.equal(ok.status, 200, 'an admitted client is served');
  t.equal(asked.length, 4, 'one check per connection');
});

t.test('ownBrowsersOnly refuses this very process: it is not a browser the daemon launched', async (t) => {
  const site = await httpServer();
  t.teardown(site.close);
  const p = await proxy(t, { allowPrivateNetwork: true, admit: ownBrowsersOnly() });
  const res = await viaProxy(p.port, `http://127.0.0.1:${site.port}/page`);
  t.equal(res.socksReply, 2);
  const c = await tunnel(p.port, `127.0.0.1:${site.port}`);
  t.equal(c.status, 403);
  c.socket.destroy();
  t.match(p.blocked[0]?.reason ?? '', /not one of the daemon's browsers/);
  t.same(site.seen, []);
});
