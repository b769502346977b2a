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

/** One request through the proxy in absolute form, as Chromium sends plain http:// requests. */
function viaProxy(proxyPort: number, url: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: proxyPort, path: url, method: opts.method ?? 'GET', headers: opts.headers, agent: false });
    req.on('response', async (res) => {
      let body = '';
      for await (const chunk of res) body += chunk;
      resolve({ status: res.statusCode!, headers: res.headers, body });
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

t.test('allowed: plain HTTP is forwarded to loopback with hop-by-hop headers handled', async (t) => {
  const site = await httpServer();
  t.teardown(site.close);
  const p = await proxy(t, { allowPrivateNetwork: true });
  const res = await viaProxy(p.port, `http://127.0.0.1:${site.port}/page?q=1`, {
    method: 'POST',
    headers: {
      'Proxy-Connection': 'keep-alive',
      'Proxy-Authorization': 'Basic c2VjcmV0',
      Connection: 'x-drop-me',
      'X-Drop-Me': 'hop',
      'X-Kept': 'end-to-end',
      Host: `127.0.0.1:${site.port}`,
    },
    body: 'payload',
  });
  t.equal(res.status, 200);
  t.equal(res.body, 'hello POST /page?q=1');
  const seen = site.seen.at(-1)!;
  t.equal(seen.url, '/page?q=1', 'origin-form path upstream');
  t.equal(seen.body, 'payload', 'body forwarded');
  t.equal(seen.headers['x-kept'], 'end-to-end');
  t.equal(seen.headers['proxy-authorization'], undefined, 'Proxy-Authorization never reaches the origin');
  t.equal(seen.headers['proxy-connection'], undefined);
  t.equal(seen.headers['x-drop-me'], undefined, 'headers named by Connection are dropped');
  t.equal(seen.headers.host, `127.0.0.1:${site.port}`);
  t.same(p.blocked, []);
});

t.test('allowed: Host is kept when a name is connected through its checked address', async (t) => {
  const site = await httpServer();
  t.teardown(site.close);
  const p = await proxy(t, { allowPrivateNetwork: true });
  const res = await viaProxy(p.port, `http://rebind.test:${site.port}/x`, { headers: { Host: `rebind.test:${site.port}` } });
  t.equal(res.status, 200);
  t.equal(site.seen.at(-1)!.headers.host, `rebind.test:${site.port}`);
});

t.test('allowed: responses pass as they are (redirects not followed, hop-by-hop stripped, streaming)', async (t) => {
  const site = await httpServer();
  t.teardown(site.close);
  const p = await proxy(t, { allowPrivateNetwork: true });
  const redirect = await viaProxy(p.port, `http://127.0.0.1:${site.port}/redirect`);
  t.equal(redirect.status, 302);
  t.equal(redirect.headers.location, 'http://127.0.0.1:1/elsewhere');
  t.equal(site.seen.length, 1, 'the proxy did not follow the redirect');
  const hop = await viaProxy(p.port, `http://127.0.0.1:${site.port}/hop`);
  t.equal(hop.headers['x-secret'], undefined);
  t.equal(hop.headers['x-kept'], 'yes');
  t.equal(hop.body, 'hop');
  const chunked = await viaProxy(p.port, `http://127.0.0.1:${site.port}/chunked`);
  t.equal(chunked.body, 'part1-part2');
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
  }
  t.equal(site.seen.length, 0, 'nothing reached the loopback server');
  t.equal(p.blocked.length, urls.length, 'onBlocked heard every refusal');
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
  const p = await proxy(t, { allowPrivateNetwork: true });
  t.equal((await viaProxy(p.port, '/origin-form')).status, 400, 'origin-form is not a proxy request');
  t.equal((await viaProxy(p.port, 'http://nxdomain.test/')).status, 502, 'a name that does not resolve');
  t.match(p.blocked.at(-1), { host: 'nxdomain.test', reason: 'name did not resolve' });
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

t.test('admit: a client the check refuses gets 403 and nothing upstream, once per connection; an admitted one passes', async (t) => {
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
  t.equal(refused.status, 403);
  const c = await tunnel(p.port, `127.0.0.1:${echo.port}`);
  t.equal(c.status, 403, 'CONNECT refused too');
  c.socket.destroy();
  t.same(site.seen, [], 'nothing reached the site');
  t.ok(p.blocked.every((b) => /client refused: a stranger/.test(b.reason)) && p.blocked.length === 2, 'each refusal is reported');
  admitted = true;
  const ok = await viaProxy(p.port, `http://127.0.0.1:${site.port}/page`);
  t.equal(ok.status, 200, 'an admitted client is served');
  t.equal(asked.length, 3, 'one check per connection');
});

t.test('ownBrowsersOnly refuses this very process: it is not a browser the daemon launched', async (t) => {
  const site = await httpServer();
  t.teardown(site.close);
  const p = await proxy(t, { allowPrivateNetwork: true, admit: ownBrowsersOnly() });
  const res = await viaProxy(p.port, `http://127.0.0.1:${site.port}/page`);
  t.equal(res.status, 403);
  t.match(p.blocked[0]?.reason ?? '', /not one of the daemon's browsers/);
  t.same(site.seen, []);
});

/** Several plain requests over ONE client connection, as a browser sends them through its proxy. */
async function overOneConnection(proxyPort: number, urls: string[]) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const out: string[] = [];
  for (const url of urls) {
    out.push(
      await new Promise<string>((resolve, reject) => {
        http.get({ host: '127.0.0.1', port: proxyPort, path: url, agent }, async (res) => {
          let body = '';
          for await (const chunk of res) body += chunk;
          resolve(body);
        }).on('error', reject);
      }),
    );
  }
  agent.destroy();
  return out;
}

t.test('plain requests on one browser connection reuse one upstream connection; other connections and addresses get their own', async (t) => {
  const a = await httpServer();
  const b = await httpServer();
  const conns = { a: 0, b: 0 };
  a.server.on('connection', () => conns.a++);
  b.server.on('connection', () => conns.b++);
  t.teardown(() => Promise.all([a.close(), b.close()]));
  const p = await proxy(t, { allowPrivateNetwork: true });
  const got = await overOneConnection(p.port, [`http://127.0.0.1:${a.port}/1`, `http://127.0.0.1:${a.port}/2`, `http://rebind.test:${a.port}/3`, `http://127.0.0.1:${b.port}/4`, `http://127.0.0.1:${a.port}/5`]);
  t.same(got, ['hello GET /1', 'hello GET /2', 'hello GET /3', 'hello GET /4', 'hello GET /5']);
  t.equal(conns.a, 1, 'one upstream connection served every request to a, by address or by a name vetted to it');
  t.equal(conns.b, 1);
  await overOneConnection(p.port, [`http://127.0.0.1:${a.port}/6`]);
  t.equal(conns.a, 2, 'another browser connection does not borrow the first one\'s upstream socket');
});

t.test('a kept upstream connection is never used for a target that is refused now', async (t) => {
  const a = await httpServer();
  let conns = 0;
  a.server.on('connection', () => conns++);
  t.teardown(() => a.close());
  const denied = new Set<number>();
  const p = await proxy(t, { allowPrivateNetwork: true, deniedPorts: () => denied });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const bodies: string[] = [];
  for (const path of ['/before', '/after']) {
    if (path === '/after') denied.add(a.port);
    else denied.delete(a.port);
    bodies.push(await new Promise<string>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port: p.port, path: `http://127.0.0.1:${a.port}${path}`, agent }, async (res) => {
        let body = '';
        for await (const chunk of res) body += chunk;
        resolve(`${res.statusCode} ${body}`);
      }).on('error', reject);
    }));
  }
  agent.destroy();
  t.match(bodies[0], /^200 hello GET \/before/);
  t.match(bodies[1], /^403 browserd: blocked/);
  t.notOk(a.seen.some((s) => s.url === '/after'), 'the refused request never reached the server over the kept connection');
  t.equal(conns, 1);
});

t.test('a kept connection the server closed as it was reused: a GET goes again on a new connection; a POST is not repeated', async (t) => {
  // A server that answers the first request of each connection (keep-alive) and drops the connection on the
  // second one, as a server whose keep-alive timeout ends just when the request comes.
  let connections = 0;
  const seen: string[] = [];
  const server = net.createServer((s) => {
    connections++;
    let served = 0;
    let buf = '';
    s.on('data', (d) => {
      buf += d;
      while (buf.includes('\r\n\r\n')) {
        const head = buf.slice(0, buf.indexOf('\r\n\r\n'));
        buf = buf.slice(buf.indexOf('\r\n\r\n') + 4);
        const line = head.split('\r\n')[0]!;
        seen.push(line);
        if (served++ >= 1) return void s.destroy();
        s.write(`HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok`);
      }
    });
    s.on('error', () => undefined);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => new Promise((r) => server.close(r)));
  const port = (server.address() as net.AddressInfo).port;
  const p = await proxy(t, { allowPrivateNetwork: true });
  const got = await overOneConnection(p.port, [`http://127.0.0.1:${port}/first`, `http://127.0.0.1:${port}/second`]);
  t.same(got, ['ok', 'ok'], 'the GET on the dropped connection was answered from a new one');
  t.equal(connections, 2);
  t.same(seen, ['GET /first HTTP/1.1', 'GET /second HTTP/1.1', 'GET /second HTTP/1.1']);

  // A POST is never sent twice: the site may have acted on it before the connection dropped.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const post = (path: string) =>
    new Promise<number>((resolve, reject) => {
      const rq = http.request({ host: '127.0.0.1', port: p.port, path: `http://127.0.0.1:${port}${path}`, method: 'POST', agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      rq.on('error', reject);
      rq.end('x=1');
    });
  seen.length = 0;
  t.equal(await post('/p1'), 200);
  t.equal(await post('/p2'), 502, 'the dropped POST is reported, not repeated');
  // (This little server does not read bodies, so a request line may follow the previous body's bytes.)
  t.same(seen.map((l) => l.slice(l.indexOf('POST'))), ['POST /p1 HTTP/1.1', 'POST /p2 HTTP/1.1']);
  agent.destroy();
});
