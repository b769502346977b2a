/**
 * A tab's traffic, seen passively on the raw CDP Network domain of the tab's session and of every frame and
 * worker session it adopts: requests with the headers really sent (ExtraInfo), responses, redirects, bodies
 * (fetched at loading end, only when a sink wants them), failures, WebSocket frames and EventSource messages.
 * It never pauses or changes a request (no Fetch): the write guard alone decides what goes out.
 *
 * With no sink subscribed it keeps nothing, so a tab nobody records costs a map lookup per event.
 */
import type { CdpConnection, Disposable, DisposableStore } from '../cdp/connection.js';
import type { Protocol } from 'devtools-protocol';
import type { Exchange, ExchangeMessage, ExchangeResponse, TrafficSink } from './traffic-types.js';

/** In-flight exchanges kept at most per tab: a page that opens requests without end cannot grow memory without end. */
const MAX_OPEN = 2000;

type Headers = Record<string, string>;

const lowerType = (t: string | undefined) => (t ?? 'Other').toLowerCase();

function plainHeaders(h: Record<string, unknown> | undefined): Headers {
  const out: Headers = {};
  for (const [k, v] of Object.entries(h ?? {})) out[k] = String(v);
  return out;
}

/** The first item queued under `key` (wrapped: an item may be null), dropping the key once its queue is empty. */
function takeFirst<T>(queues: Map<string, T[]>, key: string): { item: T } | undefined {
  const queue = queues.get(key);
  if (!queue?.length) return undefined;
  const item = queue.shift()!;
  if (!queue.length) queues.delete(key);
  return { item };
}

/** Queues `item` under `key`; a new key only while fewer than MAX_OPEN keys wait, so waiting cannot grow without end. */
function enqueue<T>(queues: Map<string, T[]>, key: string, item: T) {
  const queue = queues.get(key);
  if (queue) queue.push(item);
  else if (queues.size < MAX_OPEN) queues.set(key, [item]);
}

export class TrafficRecorder {
  private sinks: TrafficSink[] = [];
  /** By Chromium request id: the current hop of each request in flight. */
  private open = new Map<string, Exchange>();
  /** Redirect hops seen per request id, for unique exchange ids. */
  private hops = new Map<string, number>();
  /**
   * The headers really sent (requestWillBeSentExtraInfo) come before or after their requestWillBeSent, and
   * after the response too; a redirect chain sends one of each per hop, under one request id. So they are
   * matched in order per request id: headers that came first wait for their hop, a hop that came first waits
   * for its headers (null: a hop not kept, whose headers are dropped when they come).
   */
  private headersWaiting = new Map<string, Headers[]>();
  private hopsWaiting = new Map<string, (Exchange | null)[]>();
  /** ExtraInfo that came before its response event, by request id. */
  private earlyResponseHeaders = new Map<string, { headers: Headers; statusCode?: number }>();

  constructor(private conn: CdpConnection) {}

  get active(): boolean {
    return this.sinks.length > 0;
  }

  /** Starts feeding a sink; dispose to stop. */
  subscribe(sink: TrafficSink): Disposable {
    this.sinks.push(sink);
    return {
      dispose: () => {
        this.sinks = this.sinks.filter((s) => s !== sink);
        if (!this.sinks.length) this.clear();
      },
    };
  }

  /** Exchanges still open (a WebSocket, a stream, a slow response), for a sink that stops meanwhile. */
  openExchanges(): Exchange[] {
    return [...this.open.values()];
  }

  private clear() {
    this.open.clear();
    this.hops.clear();
    this.headersWaiting.clear();
    this.hopsWaiting.clear();
    this.earlyResponseHeaders.clear();
  }

  /** Follows one session's Network events (the tab's own, an adopted frame's or worker's). */
  listen(session: string, d: DisposableStore) {
    const c = this.conn;
    d.add(c.on('Network.requestWillBeSent', session, (p) => {
      if (!this.active) return;
      const previous = this.open.get(p.requestId);
      if (previous && p.redirectResponse) {
        previous.response = this.response(p.redirectResponse, previous.id);
        previous.redirectUrl = p.request.url;
        previous.finished = { encodedDataLength: p.redirectResponse.encodedDataLength ?? 0, timestamp: p.timestamp };
        this.emit(previous, p.requestId);
      }
      if (this.open.size >= MAX_OPEN) return this.hopHeaders(p.requestId, null);
      const hop = previous && p.redirectResponse ? (this.hops.get(p.requestId) ?? 0) + 1 : 0;
      this.hops.set(p.requestId, hop);
      const ex: Exchange = {
        id: hop ? `${p.requestId}:${hop}` : p.requestId,
        session,
        frameId: p.frameId,
        resourceType: lowerType(p.type),
        request: {
          url: p.request.url + (p.request.urlFragment ?? ''),
          method: p.request.method,
          headers: plainHeaders(p.request.headers),
          ...(p.request.postData !== undefined ? { postData: p.request.postData } : {}),
          startedAt: Math.round((p.wallTime ?? Date.now() / 1000) * 1000),
          timestamp: p.timestamp,
        },
      };
      this.hopHeaders(p.requestId, ex);
      this.open.set(p.requestId, ex);
      if (p.request.hasPostData && p.request.postData === undefined) {
        void c.sendMayFail('Network.getRequestPostData', { requestId: p.requestId }, session).then((r) => {
          if (r) ex.request.postData = r.postData;
        });
      }
    }));
    d.add(c.on('Network.requestWillBeSentExtraInfo', session, (p) => {
      if (!this.active) return;
      const headers = plainHeaders(p.headers);
      const hop = takeFirst(this.hopsWaiting, p.requestId);
      if (!hop) enqueue(this.headersWaiting, p.requestId, headers);
      else if (hop.item) hop.item.request.headers = headers;
    }));
    d.add(c.on('Network.responseReceived', session, (p) => {
      const ex = this.open.get(p.requestId);
      if (!ex) return;
      ex.response = this.response(p.response, p.requestId);
      ex.resourceType = lowerType(p.type);
    }));
    d.add(c.on('Network.responseReceivedExtraInfo', session, (p) => {
      if (!this.active) return;
      const ex = this.open.get(p.requestId);
      const headers = plainHeaders(p.headers);
      if (ex?.response) ex.response.headers = headers;
      else this.earlyResponseHeaders.set(p.requestId, { headers, statusCode: p.statusCode });
    }));
    d.add(c.on('Network.loadingFinished', session, (p) => {
      const ex = this.open.get(p.requestId);
      if (!ex) return;
      ex.finished = { encodedDataLength: p.encodedDataLength, timestamp: p.timestamp };
      if (!this.sinks.some((s) => s.wantsBody?.(ex))) return this.emit(ex, p.requestId);
      void c.sendMayFail('Network.getResponseBody', { requestId: p.requestId }, session).then((r) => {
        if (r) ex.body = { text: r.body, base64: r.base64Encoded };
        this.emit(ex, p.requestId);
      });
    }));
    d.add(c.on('Network.loadingFailed', session, (p) => {
      const ex = this.open.get(p.requestId);
      if (!ex) return;
      ex.failed = { errorText: p.errorText, ...(p.blockedReason ? { blockedReason: p.blockedReason } : {}), ...(p.canceled ? { canceled: true } : {}) };
      ex.finished = { encodedDataLength: 0, timestamp: p.timestamp };
      this.emit(ex, p.requestId);
    }));
    // WebSockets: a handshake, frames both ways, a close.
    d.add(c.on('Network.webSocketCreated', session, (p) => {
      if (!this.active || this.open.size >= MAX_OPEN) return;
      this.open.set(p.requestId, {
        id: p.requestId, session, resourceType: 'websocket', messages: [],
        request: { url: p.url, method: 'GET', headers: {}, startedAt: Date.now(), timestamp: 0 },
      });
    }));
    d.add(c.on('Network.webSocketWillSendHandshakeRequest', session, (p) => {
      const ex = this.open.get(p.requestId);
      if (!ex) return;
      ex.request.headers = plainHeaders(p.request.headers);
      ex.request.startedAt = Math.round(p.wallTime * 1000);
      ex.request.timestamp = p.timestamp;
    }));
    d.add(c.on('Network.webSocketHandshakeResponseReceived', session, (p) => {
      const ex = this.open.get(p.requestId);
      if (!ex) return;
      ex.response = { status: p.response.status, statusText: p.response.statusText, headers: plainHeaders(p.response.headers), mimeType: '', fromCache: false };
    }));
    const frame = (type: ExchangeMessage['type']) => (p: { requestId: string; timestamp: number; response: { opcode: number; payloadData: string } }) => {
      const ex = this.open.get(p.requestId);
      if (!ex) return;
      (ex.messages ??= []).push({ type, time: this.wallSeconds(ex, p.timestamp), opcode: p.response.opcode, data: p.response.payloadData });
    };
    d.add(c.on('Network.webSocketFrameSent', session, frame('send')));
    d.add(c.on('Network.webSocketFrameReceived', session, frame('receive')));
    d.add(c.on('Network.webSocketClosed', session, (p) => {
      const ex = this.open.get(p.requestId);
      if (!ex) return;
      ex.finished = { encodedDataLength: 0, timestamp: p.timestamp };
      this.emit(ex, p.requestId);
    }));
    d.add(c.on('Network.eventSourceMessageReceived', session, (p) => {
      const ex = this.open.get(p.requestId);
      if (!ex) return;
      (ex.messages ??= []).push({ type: 'receive', time: this.wallSeconds(ex, p.timestamp), data: p.data, eventName: p.eventName, eventId: p.eventId });
    }));
  }

  /** A new hop takes the first headers waiting for its request id, or waits for them (see headersWaiting). */
  private hopHeaders(requestId: string, ex: Exchange | null) {
    const headers = takeFirst(this.headersWaiting, requestId);
    if (!headers) enqueue(this.hopsWaiting, requestId, ex);
    else if (ex) ex.request.headers = headers.item;
  }

  /** A monotonic Chromium timestamp as wall-clock seconds, anchored at the exchange's start. */
  private wallSeconds(ex: Exchange, timestamp: number): number {
    return ex.request.timestamp ? ex.request.startedAt / 1000 + (timestamp - ex.request.timestamp) : Date.now() / 1000;
  }

  private response(r: Protocol.Network.Response, requestId: string): ExchangeResponse {
    const early = this.earlyResponseHeaders.get(requestId);
    this.earlyResponseHeaders.delete(requestId);
    return {
      status: r.status,
      statusText: r.statusText,
      headers: early?.headers ?? plainHeaders(r.headers),
      mimeType: r.mimeType,
      ...(r.protocol ? { httpVersion: r.protocol } : {}),
      ...(r.remoteIPAddress ? { remoteIPAddress: r.remoteIPAddress } : {}),
      fromCache: !!(r.fromDiskCache || r.fromPrefetchCache || r.fromServiceWorker),
      ...(r.timing ? { timing: r.timing } : {}),
    };
  }

  private emit(ex: Exchange, requestId: string) {
    if (this.open.get(requestId) === ex) this.open.delete(requestId);
    // The request is over, unless this was a redirect's hop (its next hop, or that hop's headers, are to come).
    if (ex.redirectUrl === undefined) {
      this.hops.delete(requestId);
      this.hopsWaiting.delete(requestId);
      this.headersWaiting.delete(requestId);
    }
    for (const s of this.sinks) {
      try {
        s.done(ex);
      } catch {
        // A sink's failure is its own; the others and the page go on.
      }
    }
  }
}
