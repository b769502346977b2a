/**
 * What the daemon's routes, the MCP gateway, the live view and the CDP proxy ask of an HTTP server: the small
 * part of uWebSockets.js's API they use. Two servers give it (uws.ts, the fast path where uWS's native build
 * loads; node.ts, node:http and ws everywhere else), so nothing above this folder knows which one serves.
 *
 * The rules are uWS's, because the stricter of the two sets them: a request is read before its handler returns
 * (headers, url, parameters), the body comes through onData, a response that goes away calls onAborted and must
 * not be written again, and a write that returns false waits for onWritable.
 */


/** A body part or a message: text, or any view on bytes. */
export type Chunk = string | ArrayBuffer | Uint8Array;

export interface HttpRequest {
  /** Each header as sent (names lower-case), repeats included, in order. */
  forEach(cb: (name: string, value: string) => void): void;
  /** A header's value ('' when absent); the name is lower-case. */
  getHeader(name: string): string;
  /** The method in lower case (uWS's convention). */
  getMethod(): string;
  /** The method as the client wrote it. */
  getCaseSensitiveMethod(): string;
  /** The path, without the query. */
  getUrl(): string;
  /** The query without its '?' ('' or undefined when there is none). */
  getQuery(): string | undefined;
  /** The route pattern's nth `:name` part. */
  getParameter(index: number): string | undefined;
}

export interface HttpResponse {
  writeStatus(line: string): HttpResponse;
  writeHeader(name: string, value: string): HttpResponse;
  /** False when the client is behind: wait for onWritable before writing more. */
  write(chunk: Chunk): boolean;
  end(chunk?: Chunk, closeConnection?: boolean): HttpResponse;
  /** Runs writes together (uWS sends them in one syscall); call it for writes outside the handler. */
  cork(cb: () => void): HttpResponse;
  onAborted(cb: () => void): HttpResponse;
  onData(cb: (chunk: ArrayBuffer, isLast: boolean) => void): void;
  onWritable(cb: (offset: number) => boolean): HttpResponse;
  /** Cuts the connection at once (a half-sent body must not look complete). */
  close(): HttpResponse;
  getRemoteAddressAsText(): ArrayBuffer;
  /** Completes a WebSocket upgrade from inside a behaviour's upgrade(); the last argument is what it was given. */
  upgrade<T>(userData: T, key: string, protocol: string, extensions: string, context: unknown): void;
}

export interface WebSocket<T> {
  getUserData(): T;
  /** Sends one message; a client too far behind (maxBackpressure) misses it, or is cut off when the behaviour says so. */
  send(message: Chunk, isBinary?: boolean): unknown;
  end(code?: number, reason?: string): void;
  getBufferedAmount(): number;
  cork(cb: () => void): WebSocket<T>;
}

export interface WebSocketBehavior<T> {
  /** Largest message a client may send; a larger one closes the socket. */
  maxPayloadLength?: number;
  /** Seconds without traffic before the socket is closed (pings keep a quiet one open when sent automatically). */
  idleTimeout?: number;
  sendPingsAutomatically?: boolean;
  /** Bytes queued for a slow client before messages are dropped (or the socket closed, with closeOnBackpressureLimit). */
  maxBackpressure?: number;
  closeOnBackpressureLimit?: number | boolean;
  upgrade(res: HttpResponse, req: HttpRequest, context: unknown): void;
  open(ws: WebSocket<T>): void;
  message(ws: WebSocket<T>, message: ArrayBuffer, isBinary: boolean): void;
  close(ws: WebSocket<T>, code: number, message: ArrayBuffer): void;
}

/** A request whose method the HTTP parser cannot take (FOO, a lower-case get): the answer the app gives it. */
export type UnknownMethodAnswer = (method: string, path: string) => { statusLine: string; headers: Record<string, string>; body: string };

export interface HttpApp {
  /** Which server this is, and why it was picked (for the start line and `browserd doctor`). */
  readonly kind: 'uws' | 'node';
  /** Every request no WebSocket route took. The pattern is uWS's ('/*'). */
  any(pattern: string, handler: (res: HttpResponse, req: HttpRequest) => void): void;
  /** Upgrades on a pattern such as '/live/:token/ws' or '/cdp/*'; a plain request there goes to any(). */
  ws<T>(pattern: string, behavior: WebSocketBehavior<T>): void;
  /** Where the server can, it answers a method its parser refuses; uWS's parser closes the connection instead. */
  unknownMethod(answer: UnknownMethodAnswer): void;
  /** Listens on this one address only (no second process may share the port). */
  listen(host: string, port: number): Promise<Listening>;
}

export interface Listening {
  port: number;
  /** Stops accepting connections; requests already open finish. */
  close(): void;
}
