/**
 * The private-network guard, enforced where the connection is made.
 *
 * Why a proxy and not a URL check: Chromium resolves names itself, so a check before navigation misses DNS
 * rebinding, redirects, window.open, iframes and every sub-resource. Instead every browser is started with
 * this proxy as its --proxy-server (`egressProxySwitch`) and `--proxy-bypass-list=<-loopback>` (the entry stops
 * Chromium's implicit "loopback goes direct" rule), so all of its traffic arrives here. For each connection
 * we resolve the name ourselves, check EVERY address it resolves to, and connect to the address we checked:
 * a second lookup could answer differently (rebinding), so there is none. Anything we cannot vet is refused.
 *
 * Why our own and not a proxy library: the libraries we looked at resolve and connect by host name inside
 * their own code, with no hook to hand them a pre-checked address; node:http + node:net do the job in a page.
 *
 * Only the daemon's own browsers may use it (`admit`, see peer-process.ts): a loopback port is open to every
 * local process, and without that check any of them could borrow the daemon's network reach (an allowed
 * target, or private networks when allowed).
 *
 * Redirects are not followed here: the response goes back to the browser as it is, and a next hop to another
 * host or port opens a tunnel of its own, checked again.
 *
 * One port, two protocols, told apart by the first byte: https:// and ws(s):// arrive as HTTP CONNECT; plain
 * http:// arrives over SOCKS5 (`egressProxySwitch`). Both are tunnels: after the check the bytes go through
 * untouched and Chromium keeps the connection for its next requests to that host, as it would its own. (Plain
 * http as an HTTP proxy request would mean parsing and sending every request again here, on the daemon's main
 * thread: a page of many API calls over http loaded measurably slower that way.)
 */
import http from 'node:http';
import net from 'node:net';
import { promises as dns } from 'node:dns';
import { vetTarget, VetRefusal } from './vet.js';
import { readSocksConnect, socksReply, SocksHandshakeError, SocksReply, SOCKS_VERSION } from './socks5.js';

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

// `verbatim` keeps the resolver's own order rather than whatever default some library set for the process.
const defaultLookup = async (host: string): Promise<ResolvedAddress[]> => dns.lookup(host, { all: true, verbatim: true });

/**
 * Chromium's proxy rules for the proxy on `port`: plain http:// over SOCKS5, everything else (https://, and
 * WebSockets, which Chromium sends to the https proxy) over HTTP CONNECT.
 */
export function egressProxyRules(port: number): string {
  return `http=socks5://127.0.0.1:${port};https=http://127.0.0.1:${port}`;
}

/** The --proxy-server switch of a browser using the proxy: the admission check looks for exactly this. */
export function egressProxySwitch(port: number): string {
  return `--proxy-server=${egressProxyRules(port)}`;
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
        // A timer of its own, not socket.setTimeout: that idle timer would stay armed on the relayed socket and
        // end a kept tunnel that is only quiet.
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

  /** Relays bytes both ways between a client and its checked upstream connection, until either side ends. */
  function relay(client: net.Socket, upstream: net.Socket, head: Buffer) {
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    if (head.length) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
    client.resume();
  }

  /**
   * The guard's own answers inside a SOCKS tunnel that goes nowhere. SOCKS carries only plain http:// here, so
   * a refusal is told the way a site would tell it, as an HTTP response marked with EGRESS_HEADER; a SOCKS
   * failure code would reach the page as Chromium's generic proxy error, indistinguishable from a broken proxy.
   */
  const tunnelAnswers = new WeakMap<net.Socket, { status: number; text: string }>();
  const answers = http.createServer((req, res) => {
    const answer = tunnelAnswers.get(req.socket) ?? { status: 502, text: 'browserd: no route\n' };
    res.writeHead(answer.status, {
      'content-type': 'text/plain; charset=utf-8',
      'content-length': Buffer.byteLength(answer.text),
      connection: 'close',
      // Marks the proxy's own answers, so a tab can tell "the guard refused" from a site's own 403/502.
      [EGRESS_HEADER]: answer.status === 403 ? 'blocked' : 'unreachable',
    });
    res.end(answer.text);
  });
  function answerInTunnel(client: net.Socket, rest: Buffer, status: number, text: string) {
    tunnelAnswers.set(client, { status, text });
    client.write(socksReply(SocksReply.succeeded));
    if (rest.length) client.unshift(rest);
    answers.emit('connection', client);
    client.resume();
  }

  // Plain http:// arrives as a SOCKS5 CONNECT; after the check the bytes are relayed untouched.
  async function onSocks(client: net.Socket, first: Buffer) {
    let request;
    try {
      request = await readSocksConnect(client, first);
    } catch (e) {
      if (!(e instanceof SocksHandshakeError)) throw e;
      if (e.reply === undefined) client.destroy();
      else client.end(socksReply(e.reply));
      return;
    }
    const { host, port, rest } = request;
    // A stranger gets no tunnel at all, not even one that answers.
    if (refuseStranger(client, host, port, () => client.end(socksReply(SocksReply.notAllowed)))) return;
    const addresses = await vetOrRefuse(client, host, port, (status, text) => answerInTunnel(client, rest, status, text));
    if (!addresses) return;
    let upstream: net.Socket;
    try {
      upstream = await connect(addresses, port);
    } catch {
      return answerInTunnel(client, rest, 502, `browserd: could not reach ${host}:${port}\n`);
    }
    if (client.destroyed) return void upstream.destroy();
    client.write(socksReply(SocksReply.succeeded));
    relay(client, upstream, rest);
  }

  // https:// and ws(s):// arrive as "CONNECT host:port"; after the check the bytes are relayed untouched.
  async function onConnect(req: http.IncomingMessage, client: net.Socket, head: Buffer) {
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
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    relay(client, upstream, head);
  }

  // Requests in absolute form ("GET http://host/path"): our browsers send plain http over SOCKS instead.
  function onRequest(req: http.IncomingMessage, res: http.ServerResponse) {
    const reply = (status: number, text: string) => {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text), connection: 'close' });
      res.end(text);
    };
    // A stranger's refusal is reported with the target its request line names, when it names one.
    const target = URL.canParse(req.url ?? '') ? new URL(req.url!) : undefined;
    const host = target?.hostname.replace(/^\[|\]$/g, '') ?? '';
    const port = target ? Number(target.port || 80) : 0;
    if (refuseStranger(req.socket, host, port, reply)) return;
    reply(400, 'browserd egress proxy: plain http:// goes through SOCKS5 on this port, other schemes through CONNECT\n');
  }

  const server = http.createServer();
  server.on('request', onRequest);
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

  // The listening socket: the first byte says which protocol the client speaks (an HTTP method is a letter).
  const front = net.createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.once('data', (first: Buffer) => {
      socket.pause();
      if (first[0] === SOCKS_VERSION) return void onSocks(socket, first).catch(() => socket.destroy());
      socket.unshift(first);
      server.emit('connection', socket);
      socket.resume();
    });
  });

  await new Promise<void>((resolve, reject) => {
    front.once('error', reject);
    // Loopback only: the proxy is for this host's browsers, never for the network.
    front.listen(0, '127.0.0.1', () => {
      front.off('error', reject);
      resolve();
    });
  });
  ownPort = (front.address() as net.AddressInfo).port;

  return {
    port: ownPort,
    close: () =>
      new Promise<void>((resolve) => {
        front.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}
