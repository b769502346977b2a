/**
 * One request and what became of it, as the tab's traffic recorder hands it to its sinks (capture, HAR,
 * browser_network). Headers are as Chromium reports them, credentials included: every sink redacts (one
 * redactor, daemon/traffic/redact.ts) before anything is kept, shown or written.
 */

export interface ExchangeRequest {
  url: string;
  method: string;
  /** Headers as sent (the ExtraInfo set when it came: it has Cookie and the real order), lower-case names kept as given. */
  headers: Record<string, string>;
  postData?: string;
  /** Wall-clock time the request started, ms since the epoch. */
  startedAt: number;
  /** Chromium's monotonic timestamp (seconds) of the start, for durations. */
  timestamp: number;
  httpVersion?: string;
}

export interface ExchangeResponse {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  mimeType: string;
  httpVersion?: string;
  remoteIPAddress?: string;
  fromCache: boolean;
  /** Chromium's ResourceTiming, when it gave one (ms offsets from requestTime, in seconds). */
  timing?: {
    requestTime: number;
    dnsStart: number; dnsEnd: number; connectStart: number; connectEnd: number; sslStart: number; sslEnd: number;
    sendStart: number; sendEnd: number; receiveHeadersEnd: number;
  };
}

export interface ExchangeMessage {
  /** send or receive (WebSocket), or receive (EventSource). */
  type: 'send' | 'receive';
  /** Seconds since the epoch, as HAR's _webSocketMessages has it. */
  time: number;
  /** WebSocket opcode (1 text, 2 binary); absent for EventSource. */
  opcode?: number;
  data: string;
  /** EventSource only. */
  eventName?: string;
  eventId?: string;
}

export interface Exchange {
  /** Chromium's request id, plus `:N` for the N-th redirect hop of the same id. */
  id: string;
  /** The CDP session it came from (the tab's own, a frame's, a worker's). */
  session: string;
  frameId?: string;
  /** Lower-case CDP resource type: document, xhr, fetch, script, websocket, eventsource, ... */
  resourceType: string;
  request: ExchangeRequest;
  response?: ExchangeResponse;
  /** This hop ended in a redirect to `redirectUrl`. */
  redirectUrl?: string;
  /** Bytes on the wire, and Chromium's timestamp (seconds) when loading ended. */
  finished?: { encodedDataLength: number; timestamp: number };
  failed?: { errorText: string; blockedReason?: string; canceled?: boolean };
  /** The response body, fetched at loading end when a sink asked for it. */
  body?: { text: string; base64: boolean };
  /** WebSocket frames or EventSource messages, in order. */
  messages?: ExchangeMessage[];
}

/** A consumer of a tab's traffic. Sinks are called in the order they subscribed; none may throw. */
export interface TrafficSink {
  /** Whether this exchange's response body should be fetched before `done` (asked at loading end). */
  wantsBody?(ex: Exchange): boolean;
  /** The exchange ended: finished, failed, redirected, or a WebSocket closed. */
  done(ex: Exchange): void;
}
