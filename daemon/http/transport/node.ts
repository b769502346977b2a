/**
 * The portable server: node:http for requests and ws for WebSockets, giving the same small API as uWS (types.ts)
 * on any Node. It keeps uWS's rules where the daemon relies on them (a response that goes away is aborted once;
 * a write past backpressure waits for onWritable; an upgrade is decided before the socket is handed over) and
 * answers what uWS's parser drops: a request with a method the parser cannot take gets an HTTP answer instead of
 * a closed connection.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, WebSocket as WsSocket } from 'ws';
import type { Chunk, HttpApp, HttpRequest, HttpResponse, Listening, UnknownMethodAnswer, WebSocket, WebSocketBehavior } from './types.js';
import { matchPattern } from './pattern.js';

const toBuffer = (c: Chunk | undefined): Buffer | string => (c === undefined ? '' : typeof c === 'string' ? c : c instanceof ArrayBuffer ? Buffer.from(c) : Buffer.from(c.buffer, c.byteOffset, c.byteLength));
const toArrayBuffer = (b: Buffer): ArrayBuffer => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
/** A v4 client of a dual-stack socket shows as ::ffff:a.b.c.d; the daemon keys rate limits by the v4 form. */
const plainAddress = (a: string | undefined) => (a ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');

/** A whole HTTP/1.1 answer as bytes, for a socket node:http has handed over (an upgrade, a request it could not parse); the connection closes after it. */
function closingAnswer(statusLine: string, headers: [string, string][], body: Buffer): Buffer {
  const head = [`HTTP/1.1 ${statusLine}`, ...headers.map(([k, v]) => `${k}: ${v}`), `Content-Length: ${body.length}`, 'Connection: close', '', ''].join('\r\n');
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

class NodeRequest implements HttpRequest {
  constructor(
    private readonly req: IncomingMessage,
    private readonly path: string,
    private readonly query: string | undefined,
    private readonly params: string[],
  ) {}
  forEach(cb: (name: string, value: string) => void) {
    const raw = this.req.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) cb(raw[i]!.toLowerCase(), raw[i + 1]!);
  }
  getHeader(name: string) {
    // The first of a repeated header, as uWS gives it (node would join some and drop others).
    const raw = this.req.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) return raw[i + 1]!;
    return '';
  }
  getMethod() {
    return (this.req.method ?? '').toLowerCase();
  }
  getCaseSensitiveMethod() {
    return this.req.method ?? '';
  }
  getUrl() {
    return this.path;
  }
  getQuery() {
    return this.query;
  }
  getParameter(index: number) {
    return this.params[index];
  }
}

function splitUrl(url: string | undefined): { path: string; query: string | undefined } {
  const u = url ?? '/';
  const q = u.indexOf('?');
  return q < 0 ? { path: u, query: undefined } : { path: u.slice(0, q), query: u.slice(q + 1) };
}

/** A response over node:http's ServerResponse. */
class NodeResponse implements HttpResponse {
  private abortHandlers: (() => void)[] = [];
  private aborted = false;
  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
  ) {
    // Closed before our end(): the client went away (uWS's onAborted). After end() it is the normal close.
    res.on('close', () => {
      if (res.writableEnded || this.aborted) return;
      this.aborted = true;
      for (const h of this.abortHandlers.splice(0)) h();
    });
  }
  writeStatus(line: string) {
    this.res.statusCode = Number(line.slice(0, 3));
    const text = line.slice(4).trim();
    if (text) this.res.statusMessage = text;
    return this;
  }
  writeHeader(name: string, value: string) {
    if (!this.res.headersSent) this.res.appendHeader(name, value);
    return this;
  }
  write(chunk: Chunk) {
    if (this.aborted) return true;
    return this.res.write(toBuffer(chunk));
  }
  end(chunk?: Chunk, closeConnection?: boolean) {
    if (this.aborted || this.res.writableEnded) return this;
    if (closeConnection && !this.res.headersSent) this.res.setHeader('Connection', 'close');
    this.res.end(toBuffer(chunk));
    return this;
  }
  // No res.cork() here: on Node 24 a ServerResponse corked around its first write never emits 'drain' once
  // that write fills the socket, so a streamed body past backpressure would wait for ever. Node already sends
  // the head with the first chunk, which is what corking bought us.
  cork(cb: () => void) {
    cb();
    return this;
  }
  onAborted(cb: () => void) {
    this.abortHandlers.push(cb);
    return this;
  }
  onData(cb: (chunk: ArrayBuffer, isLast: boolean) => void) {
    this.req.on('data', (b: Buffer) => cb(toArrayBuffer(b), false));
    this.req.on('end', () => cb(new ArrayBuffer(0), true));
  }
  onWritable(cb: (offset: number) => boolean) {
    this.res.on('drain', () => cb(0));
    return this;
  }
  close() {
    this.res.destroy();
    return this;
  }
  getRemoteAddressAsText() {
    return toArrayBuffer(Buffer.from(plainAddress(this.req.socket.remoteAddress)));
  }
  upgrade(): void {
    throw new Error('upgrade() is only for a WebSocket route');
  }
}

/** What an upgrade handler holds: the request's raw socket, and the route that will take it. */
interface UpgradeContext {
  req: IncomingMessage;
  socket: Duplex;
  head: Buffer;
  route: WsRoute;
}

/**
 * A response written straight to the socket of an upgrade request (node hands those over without a
 * ServerResponse): a refusal is a whole HTTP answer and the connection closes; upgrade() completes the handshake.
 */
class SocketResponse implements HttpResponse {
  private status = '200 OK';
  private headers: [string, string][] = [];
  private body: Buffer[] = [];
  private done = false;
  constructor(private readonly ctx: Omit<UpgradeContext, 'route'> & { route?: WsRoute }) {}
  writeStatus(line: string) {
    this.status = line;
    return this;
  }
  writeHeader(name: string, value: string) {
    this.headers.push([name, value]);
    return this;
  }
  write(chunk: Chunk) {
    this.body.push(Buffer.from(toBuffer(chunk)));
    return true;
  }
  end(chunk?: Chunk) {
    if (this.done) return this;
    this.done = true;
    if (chunk !== undefined) this.body.push(Buffer.from(toBuffer(chunk)));
    const { socket } = this.ctx;
    if (socket.writable) socket.end(closingAnswer(this.status, this.headers, Buffer.concat(this.body)));
    else socket.destroy();
    return this;
  }
  cork(cb: () => void) {
    cb();
    return this;
  }
  onAborted(cb: () => void) {
    this.ctx.socket.once('close', () => {
      if (!this.done) cb();
    });
    return this;
  }
  onData(cb: (chunk: ArrayBuffer, isLast: boolean) => void) {
    queueMicrotask(() => cb(new ArrayBuffer(0), true));
  }
  onWritable() {
    return this;
  }
  close() {
    this.done = true;
    this.ctx.socket.destroy();
    return this;
  }
  getRemoteAddressAsText() {
    return toArrayBuffer(Buffer.from(plainAddress((this.ctx.socket as { remoteAddress?: string }).remoteAddress)));
  }
  upgrade<T>(userData: T, _key: string, _protocol: string, _extensions: string, context: unknown) {
    const ctx = context as UpgradeContext;
    this.done = true;
    ctx.route.wss.handleUpgrade(ctx.req, ctx.socket, ctx.head, (ws) => ctx.route.accept(ws, userData));
  }
}

class NodeWebSocket<T> implements WebSocket<T> {
  constructor(
    private readonly ws: WsSocket,
    private readonly data: T,
    private readonly behavior: WebSocketBehavior<T>,
  ) {}
  getUserData() {
    return this.data;
  }
  send(message: Chunk, isBinary = false) {
    if (this.ws.readyState !== WsSocket.OPEN) return 0;
    const max = this.behavior.maxBackpressure;
    if (max && this.ws.bufferedAmount > max) {
      // uWS drops a message past the limit, or closes the socket when told to.
      if (this.behavior.closeOnBackpressureLimit) this.ws.terminate();
      return 2;
    }
    this.ws.send(toBuffer(message), { binary: isBinary });
    return 1;
  }
  end(code = 1000, reason = '') {
    if (this.ws.readyState === WsSocket.OPEN || this.ws.readyState === WsSocket.CONNECTING) this.ws.close(code, reason);
  }
  getBufferedAmount() {
    return this.ws.bufferedAmount;
  }
  cork(cb: () => void) {
    cb();
    return this;
  }
}

class WsRoute {
  readonly wss: WebSocketServer;
  constructor(
    readonly pattern: string,
    readonly behavior: WebSocketBehavior<unknown>,
  ) {
    // No compression, as uWS by default; the size limit is the behaviour's (a larger message closes the socket).
    this.wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: behavior.maxPayloadLength ?? 16 * 1024 });
  }
  accept(raw: WsSocket, userData: unknown) {
    const b = this.behavior;
    const ws = new NodeWebSocket(raw, userData, b);
    let lastHeard = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const idleMs = (b.idleTimeout ?? 120) * 1000;
    if (idleMs > 0) {
      // uWS closes a socket quiet for idleTimeout; with automatic pings a live client's pong keeps it open.
      timer = setInterval(() => {
        if (Date.now() - lastHeard > idleMs) return raw.terminate();
        if (b.sendPingsAutomatically !== false) raw.ping();
      }, idleMs / 2);
      timer.unref();
    }
    raw.on('pong', () => (lastHeard = Date.now()));
    raw.on('message', (data: Buffer, isBinary: boolean) => {
      lastHeard = Date.now();
      b.message(ws, toArrayBuffer(Buffer.isBuffer(data) ? data : Buffer.concat(data as unknown as Buffer[])), isBinary);
    });
    raw.on('close', (code: number, reason: Buffer) => {
      if (timer) clearInterval(timer);
      b.close(ws, code, toArrayBuffer(reason));
    });
    // A protocol error from the client (a too-large message, a bad frame) closes the socket; the close event follows.
    raw.on('error', () => undefined);
    b.open(ws);
  }
}

export function nodeApp(): HttpApp {
  let anyHandler: ((res: HttpResponse, req: HttpRequest) => void) | undefined;
  const wsRoutes: WsRoute[] = [];
  let unknownMethod: UnknownMethodAnswer | undefined;

  const server = http.createServer({ keepAliveTimeout: 10_000 });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const { path, query } = splitUrl(req.url);
    if (!anyHandler) {
      res.statusCode = 404;
      return void res.end();
    }
    anyHandler(new NodeResponse(req, res), new NodeRequest(req, path, query, []));
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const { path, query } = splitUrl(req.url);
    const isWebSocket = (req.headers.upgrade ?? '').toLowerCase() === 'websocket';
    for (const route of wsRoutes) {
      const params = isWebSocket ? matchPattern(route.pattern, path) : undefined;
      if (!params) continue;
      const ctx: UpgradeContext = { req, socket, head, route };
      return route.behavior.upgrade(new SocketResponse(ctx), new NodeRequest(req, path, query, params), ctx);
    }
    // Not a WebSocket route: answered like any request (a 404 or 405 from the router), then closed.
    if (anyHandler) anyHandler(new SocketResponse({ req, socket, head }), new NodeRequest(req, path, query, []));
    else socket.destroy();
  });
  server.on('clientError', (err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex) => {
    if (!socket.writable) return void socket.destroy();
    if (err.code === 'HPE_INVALID_METHOD' && unknownMethod) {
      const line = /^(\S{1,64}) (\S{1,8192})/.exec(err.rawPacket?.toString('latin1') ?? '');
      const a = unknownMethod(line?.[1] ?? '', splitUrl(line?.[2]).path);
      return void socket.end(closingAnswer(a.statusLine, Object.entries(a.headers), Buffer.from(a.body)));
    }
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request';
    socket.end(closingAnswer(status, [], Buffer.alloc(0)));
  });

  return {
    kind: 'node',
    any: (pattern, handler) => {
      // The daemon routes every request itself (routes.ts): one catch-all is all this server needs to take.
      if (pattern !== '/*') throw new Error(`the node:http server takes only the catch-all pattern, not ${pattern}`);
      anyHandler = handler;
    },
    ws: (pattern, behavior) => void wsRoutes.push(new WsRoute(pattern, behavior as WebSocketBehavior<unknown>)),
    unknownMethod: (answer) => void (unknownMethod = answer),
    listen: (host, port) =>
      new Promise<Listening>((resolve, reject) => {
        const failed = (e: Error) => reject(new Error(`cannot listen on ${host}:${port} (${(e as NodeJS.ErrnoException).code === 'EADDRINUSE' ? 'in use' : e.message})`));
        server.once('error', failed);
        // exclusive: no other process or worker shares this port (node:http never sets SO_REUSEPORT unless asked).
        server.listen({ host, port, exclusive: true }, () => {
          server.off('error', failed);
          const addr = server.address();
          resolve({
            port: typeof addr === 'object' && addr ? addr.port : port,
            close: () => {
              server.close();
              server.closeIdleConnections();
            },
          });
        });
      }),
  };
}
