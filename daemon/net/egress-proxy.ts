/**
 * The private-network guard, enforced where the connection is made.
 *
 * Why a proxy and not a URL check: Chromium resolves names itself, so a check before navigation misses DNS
 * rebinding, redirects, window.open, iframes and every sub-resource. Instead every browser is started with
 * `--proxy-server=http://127.0.0.1:PORT --proxy-bypass-list=<-loopback>` (the `<-loopback>` entry stops
 * Chromium's implicit "loopback goes direct" rule), so all of its traffic arrives here. For each request we
 * resolve the name ourselves, check EVERY address it resolves to, and connect to the address we checked:
 * a second lookup could answer differently (rebinding), so there is none. Anything we cannot vet is refused.
 *
 * Why our own and not a proxy library: the libraries we looked at resolve and connect by host name inside
 * their own code, with no hook to hand them a pre-checked address; node:http + node:net do the job in a page.
 *
 * Only the daemon's own browsers may use it (`admit`, see peer-process.ts): a loopback port is open to every
 * local process, and without that check any of them could borrow the daemon's network reach (an allowed
 * target, or private networks when allowed).
 *
 * Redirects are not followed here: the response goes back to the browser as it is, and the browser's next
 * hop comes through the proxy again and is checked again.
 *
 * Plain http:// requests reuse upstream connections, kept per browser connection to the proxy (one keep-alive
 * agent each, gone when that connection closes): a new TCP connection per request was most of an act tab's
 * cost on a page of many API calls. Every request is still vetted first, and a kept connection is only ever
 * to an address that was vetted when it was made; one browser connection's upstream sockets never serve
 * another's.
 */
import http from 'node:http';
import net from 'node:net';
import { promises as dns } from 'node:dns';
import { vetTarget, VetRefusal } from './vet.js';

export interface ResolvedAddress {
  address: string;
  family: number;
}

export interface BlockedInfo {
  host: string;
  port: number;
  /** The address that was refused, or undefined when the name did not resolve or the request was malformed. */
  address?: string;
  reason: string;
  /** The browser process that asked, when it was one the daemon admitted (so a log line can name its user). */
  browserPid?: number;
}

export interface EgressProxyOptions {
  /** BROWSERD_ALLOW_PRIVATE_NETWORK=1: loopback, private and link-local ranges become reachable. */
  allowPrivateNetwork: boolean;
  /**
   * Ports no page may reach on this machine even when private networks are allowed: the daemon's own listen
   * port (browsers have no CDP port: they speak CDP over a pipe). A function, so the set can change while the
   * proxy runs.
   */
  deniedPorts: () => Set<number>;
  onBlocked?(info: BlockedInfo): void;
  /**
   * Exact address:port pairs the admin allows although they are private (BROWSERD_ALLOW_TARGETS, e.g. an
   * intranet app "10.0.0.5:443" or "[::1]:3000"). Never overrides the denied ports.
   */
  allowTargets?: ReadonlySet<string>;
  /** Name resolution; injectable so tests can map a name to loopback without DNS. Default: dns.lookup all. */
  lookup?: (host: string) => Promise<ResolvedAddress[]>;
  /** Milliseconds to wait for the upstream TCP connection. */
  connectTimeoutMs?: number;
  /**
   * Decides once per client connection whether it may use the proxy at all: given the client's port and the
   * proxy's own, returns
   * undefined or the admitted browser's pid to admit, or the reason to refuse. The daemon admits only its own
   * browsers; unit tests of the address rules admit everyone.
   */
  admit?: (clientPort: number, proxyPort: number) => string | undefined | { pid: number };
}

/** Header on the proxy's own answers to plain http requests: `blocked` or `unreachable`. */
export const EGRESS_HEADER = 'x-browserd-egress';

export interface EgressProxy {
  port: number;
  close(): Promise<void>;
}

/** An idle kept upstream connection is closed after this long (Chromium keeps its own idle ones about as long). */
const IDLE_UPSTREAM_MS = 30_000;

// `verbatim` keeps the resolver's own order rather than whatever default some library set for the process.
const defaultLookup = async (host: string): Promise<ResolvedAddress[]> => dns.lookup(host, { all: true, verbatim: true });

// Hop-by-hop headers (RFC 9110 7.6.1) plus the proxy-only ones: they describe this hop, not the next one.
// Proxy-Authorization in particular must never reach the origin.
const HOP_BY_HOP = new Set([
  'connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate',
  'te', 'trailer', 'transfer-encoding', 'upgrade',
]);

/** Raw headers without hop-by-hop ones and without any header the Connection header names. */
function endToEndHeaders(raw: string[]): string[] {
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === 'connection') {
      for (const token of raw[i + 1]!.split(',')) named.add(token.trim().toLowerCase());
    }
  }
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!HOP_BY_HOP.has(name) && !named.has(name)) out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly info: BlockedInfo,
  ) {
    super(info.reason);
  }
}

export async function startEgressProxy(opts: EgressProxyOptions): Promise<EgressProxy> {
  const lookup = opts.lookup ?? defaultLookup;
  const connectTimeoutMs = opts.connectTimeoutMs ?? 30_000;
  const sockets = new Set<net.Socket>();
  let ownPort = 0;

  const guard = { allowPrivateNetwork: opts.allowPrivateNetwork, allowTargets: opts.allowTargets, lookup, deniedPorts: () => new Set([...opts.deniedPorts(), ownPort]) };
  /** Resolves and vets a target (vet.ts); returns every address, all of them checked, or throws a Refusal. */
  async function vet(host: string, port: number): Promise<string[]> {
    try {
      return await vetTarget(host, port, guard);
    } catch (e) {
      if (!(e instanceof VetRefusal)) throw e;
      const status = e.kind === 'malformed' ? 400 : e.kind === 'unresolved' ? 502 : 403;
      throw new Refusal(status, { host, port, address: e.address, reason: e.reason });
    }
  }

  /** vet() for a request handler: a refusal is reported and answered with `refuse`, and undefined returned. */
  async function vetOrRefuse(client: net.Socket, host: string, port: number, refuse: (status: number, text: string) => void): Promise<string[] | undefined> {
    try {
      return await vet(host, port);
    } catch (e) {
      if (!(e instanceof Refusal)) throw e;
      report({ ...e.info, browserPid: browserPids.get(client) });
      refuse(e.status, `browserd: blocked ${host}:${port} (${e.info.reason})\n`);
      return undefined;
    }
  }

  /** Connects to the first checked address that answers. Never resolves anything. */
  function connect(addresses: string[], port: number): Promise<net.Socket> {
    return new Promise((resolve, reject) => {
      let i = 0;
      const next = (lastError?: Error) => {
        const address = addresses[i++];
        if (address === undefined) return reject(lastError ?? new Error('no address'));
        const socket = net.connect({ host: address, port });
        sockets.add(socket);
        socket.once('close', () => sockets.delete(socket));
        // A timer of its own, not socket.setTimeout: a 'timeout' listener left on the socket would fire again
        // whenever the keep-alive agent arms the socket's idle timer later, and destroy it mid-request.
        const timer = setTimeout(() => socket.destroy(new Error('connect timeout')), connectTimeoutMs);
        socket.once('error', (err) => {
          clearTimeout(timer);
          socket.destroy();
          next(err);
        });
        socket.once('connect', () => {
          clearTimeout(timer);
          socket.removeAllListeners('error');
          resolve(socket);
        });
      };
      next();
    });
  }

  /**
   * One keep-alive agent per browser connection. The agent pools by `host:port`, and the host it is given is
   * the first vetted address (never a name), so a name that now resolves elsewhere gets other sockets; its
   * connections are made by connect(), so only to vetted addresses.
   */
  const agents = new WeakMap<net.Socket, http.Agent>();
  function agentFor(client: net.Socket): http.Agent {
    let agent = agents.get(client);
    if (!agent) {
      agent = new http.Agent({ keepAlive: true, timeout: IDLE_UPSTREAM_MS, scheduling: 'lifo' });
      agent.createConnection = ((options: { vetted: string[]; port: number }, done: (err: Error | null, s?: net.Socket) => void) => {
        connect(options.vetted, options.port).then((s) => done(null, s), (e: Error) => done(e));
        return undefined;
      }) as unknown as typeof agent.createConnection;
      agents.set(client, agent);
      const a = agent;
      client.once('close', () => a.destroy());
    }
    return agent;
  }

  const admissions = new WeakMap<net.Socket, string | undefined>();
  /** The browser behind each admitted client connection, when admission named it. */
  const browserPids = new WeakMap<net.Socket, number>();
  /** The refusal reason for a client connection, worked out on its first request and kept for the rest. */
  function refusalFor(socket: net.Socket): string | undefined {
    if (!opts.admit) return undefined;
    if (!admissions.has(socket)) {
      let reason: string | undefined;
      try {
        const verdict = socket.remotePort ? opts.admit(socket.remotePort, ownPort) : 'no client port';
        if (typeof verdict === 'object') browserPids.set(socket, verdict.pid);
        else reason = verdict;
      } catch (e) {
        reason = `the client could not be checked: ${(e as Error).message}`;
      }
      admissions.set(socket, reason);
    }
    return admissions.get(socket);
  }

  /** Refuses a client that is not admitted, reporting it; true when refused. */
  function refuseStranger(socket: net.Socket, host: string, port: number, refuse: (status: number, text: string) => void): boolean {
    const reason = refusalFor(socket);
    if (reason === undefined) return false;
    report({ host, port, reason: `client refused: ${reason}` });
    refuse(403, `browserd: this proxy serves only the daemon's browsers (${reason})\n`);
    return true;
  }

  function report(info: BlockedInfo) {
    try {
      opts.onBlocked?.(info);
    } catch {
      // A failing observer must not turn a refusal into a crash.
    }
  }

  // Plain http:// requests arrive in absolute form: "GET http://host:port/path HTTP/1.1".
  async function onRequest(req: http.IncomingMessage, res: http.ServerResponse) {
    const reply = (status: number, text: string) => {
      if (res.headersSent) return void res.destroy();
      // Marks the proxy's own answers, so a tab can tell "the guard refused" from a site's own 403/502.
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text), [EGRESS_HEADER]: status === 403 ? 'blocked' : 'unreachable' });
      res.end(text);
    };
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      return reply(400, 'browserd egress proxy: absolute http:// URL required\n');
    }
    if (target.protocol !== 'http:') return reply(400, `browserd egress proxy: ${target.protocol} is not proxied as a plain request\n`);
    const host = target.hostname.replace(/^\[|\]$/g, '');
    const port = target.port ? Number(target.port) : 80;
    if (refuseStranger(req.socket, host, port, reply)) return;
    const addresses = await vetOrRefuse(req.socket, host, port, reply);
    if (!addresses) return;
    const send = (fresh: boolean) => {
      const upstream = http.request({
        method: req.method,
        path: target.pathname + target.search,
        headers: endToEndHeaders(req.rawHeaders) as unknown as http.OutgoingHttpHeaders,
        // Host stays as the browser sent it (a virtual host), while the socket goes to a checked address.
        setHost: false,
        host: addresses[0],
        port,
        // No agent on a retry: with createConnection and no agent, Node uses exactly this new connection.
        ...(fresh ? { createConnection: (_o: unknown, done: (e: Error | null, s?: net.Socket) => void) => void connect(addresses, port).then((sock) => done(null, sock), done) } : { agent: agentFor(req.socket), vetted: addresses }),
      } as http.RequestOptions);
      upstream.on('response', (up) => {
        res.writeHead(up.statusCode ?? 502, up.statusMessage, endToEndHeaders(up.rawHeaders));
        up.pipe(res);
        up.on('error', () => res.destroy());
      });
      upstream.on('error', () => {
        // A kept connection the server closed just as it was reused (its keep-alive timeout): a GET or HEAD,
        // which carries no body, goes again once on a new connection, as a browser retries its own.
        if (!fresh && upstream.reusedSocket && !res.headersSent && (req.method === 'GET' || req.method === 'HEAD')) return void send(true).end();
        reply(502, `browserd: could not reach ${host}:${port}\n`);
      });
      res.on('close', () => upstream.destroy());
      return upstream;
    };
    req.pipe(send(false));
  }

  // https:// and ws(s):// arrive as "CONNECT host:port"; after the check the bytes are relayed untouched.
  async function onConnect(req: http.IncomingMessage, client: net.Socket, head: Buffer) {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    const m = /^(?:\[([^\]]+)\]|([^:\[\]]+)):(\d{1,5})$/.exec(req.url ?? '');
    const host = m ? (m[1] ?? m[2]!) : '';
    const port = m ? Number(m[3]) : 0;
    const refuse = (status: number, text: string) => {
      const phrase = http.STATUS_CODES[status] ?? 'Error';
      client.end(`HTTP/1.1 ${status} ${phrase}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`);
    };
    if (refuseStranger(client, host, port, refuse)) return;
    const addresses = await vetOrRefuse(client, host, port, refuse);
    if (!addresses) return;
    let upstream: net.Socket;
    try {
      upstream = await connect(addresses, port);
    } catch {
      return refuse(502, `browserd: could not connect to ${req.url}\n`);
    }
    if (client.destroyed) return void upstream.destroy();
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  }

  const server = http.createServer();
  server.on('request', (req, res) => {
    onRequest(req, res).catch(() => res.destroy());
  });
  server.on('connect', (req, socket: net.Socket, head) => {
    onConnect(req, socket, head).catch(() => socket.destroy());
  });
  // Chromium tunnels WebSockets with CONNECT; an Upgrade in absolute form is nothing we need to carry.
  server.on('upgrade', (_req, socket: net.Socket) => {
    socket.end('HTTP/1.1 501 Not Implemented\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
  });
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // Loopback only: the proxy is for this host's browsers, never for the network.
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  ownPort = (server.address() as net.AddressInfo).port;

  return {
    port: ownPort,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
      }),
  };
}
