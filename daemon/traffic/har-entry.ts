/**
 * One finished exchange as a HAR 1.2 entry, redacted: the only place HAR entries are made, so nothing reaches
 * a HAR file without passing the traffic redactor. Pure (no I/O): what it is given in, an entry out.
 */
import { cutUtf8 } from './cut.js';
import { headerValue } from './headers.js';
import type { Exchange, ExchangeMessage, ExchangeResponse } from '../browser/traffic-types.js';
import { REDACTED, type TrafficRedactor } from './redact.js';

export type HarBodies = 'text' | 'none' | 'all';

export interface HarEntryOptions {
  bodies: HarBodies;
  /** Longest body (and message) kept, in bytes; longer ones are cut and marked. */
  maxBodyBytes: number;
}

/** Most WebSocket frames or EventSource messages kept per entry; later ones are counted, not kept. */
export const MAX_MESSAGES = 1000;

export interface HarNameValue { name: string; value: string }
export interface HarCookie extends HarNameValue { path?: string; domain?: string; expires?: string; httpOnly?: boolean; secure?: boolean; sameSite?: string }
export interface HarTimings { blocked: number; dns: number; connect: number; ssl: number; send: number; wait: number; receive: number }

export interface HarEntry {
  pageref?: string;
  startedDateTime: string;
  time: number;
  request: {
    method: string; url: string; httpVersion: string; headers: HarNameValue[]; queryString: HarNameValue[]; cookies: HarCookie[];
    headersSize: number; bodySize: number;
    postData?: { mimeType: string; text: string; params?: HarNameValue[]; comment?: string; _truncated?: boolean };
  };
  response: {
    status: number; statusText: string; httpVersion: string; headers: HarNameValue[]; cookies: HarCookie[];
    content: { size: number; mimeType: string; text?: string; encoding?: string; comment?: string; _truncated?: boolean };
    redirectURL: string; headersSize: number; bodySize: number; _error?: string;
  };
  cache: Record<string, never>;
  timings: HarTimings;
  serverIPAddress?: string;
  _resourceType: string;
  _webSocketMessages?: { type: 'send' | 'receive'; time: number; opcode: number; data: string }[];
  _eventSourceMessages?: { type: string; time: number; eventId: string; data: string }[];
  /** The exchange had not ended when the HAR was written (a stream or WebSocket still open). */
  _open?: true;
  comment?: string;
}

const ms = (n: number) => Math.round(n * 1000) / 1000;

/** Chromium's protocol names (h2, http/1.1, h3) as HAR writes them. */
export function httpVersion(protocol: string | undefined): string {
  if (!protocol) return 'HTTP/1.1';
  const p = protocol.toLowerCase();
  if (p === 'h2') return 'HTTP/2';
  if (p === 'h3' || p.startsWith('h3-')) return 'HTTP/3';
  if (p.startsWith('http/')) return p.toUpperCase();
  return protocol;
}

function headerList(h: Record<string, string>): HarNameValue[] {
  // Chromium joins repeated headers with a line break (Set-Cookie above all): HAR lists each one.
  return Object.entries(h).flatMap(([name, value]) => value.split('\n').map((v) => ({ name, value: v })));
}

/** A Cookie request header as HAR cookies: names kept, every value hidden. */
export function requestCookies(cookieHeader: string | undefined): HarCookie[] {
  if (!cookieHeader) return [];
  return cookieHeader.split(/;\s*/).filter(Boolean).map((pair) => {
    const i = pair.indexOf('=');
    return { name: (i < 0 ? pair : pair.slice(0, i)).trim(), value: REDACTED };
  });
}

/** Set-Cookie lines as HAR cookies: names and attributes kept, values hidden. */
export function responseCookies(setCookie: string | undefined): HarCookie[] {
  if (!setCookie) return [];
  return setCookie.split('\n').filter((l) => l.trim()).map((line) => {
    const [first, ...attrs] = line.split(';');
    const i = first!.indexOf('=');
    const c: HarCookie = { name: (i < 0 ? first! : first!.slice(0, i)).trim(), value: REDACTED };
    for (const a of attrs) {
      const j = a.indexOf('=');
      const key = (j < 0 ? a : a.slice(0, j)).trim().toLowerCase();
      const val = j < 0 ? '' : a.slice(j + 1).trim();
      if (key === 'path') c.path = val;
      else if (key === 'domain') c.domain = val;
      else if (key === 'expires') {
        const d = new Date(val);
        if (!Number.isNaN(d.getTime())) c.expires = d.toISOString();
      } else if (key === 'httponly') c.httpOnly = true;
      else if (key === 'secure') c.secure = true;
      else if (key === 'samesite') c.sameSite = val;
    }
    return c;
  });
}

/** The query of an (already redacted) URL as HAR's queryString, in order, repeats kept. */
export function queryString(url: string): HarNameValue[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

/**
 * A redacted URL as a valid URI: a placeholder put into it ("[secret hidden]") has a space and brackets,
 * which a URI may not carry outside its host. Everything after the host that a URI cannot hold is
 * percent-encoded; a query parsed from it (queryString) reads the placeholder back.
 */
export function asUri(url: string): string {
  const m = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*)(.*)$/is.exec(url);
  if (!m) return url;
  return m[1] + m[2]!.replace(/[^A-Za-z0-9\-._~:/?#@!$&'()*+,;=%]/gu, (c) => encodeURIComponent(c));
}

/**
 * HAR timings from Chromium's ResourceTiming (ms offsets from requestTime). HAR's send, wait and receive are
 * required and never -1; blocked, dns, connect and ssl are -1 where they did not happen or are unknown. ssl is
 * part of connect (HAR 1.2), so `time` adds every phase but ssl.
 */
export function harTimings(ex: Pick<Exchange, 'request' | 'finished'> & { response?: Pick<ExchangeResponse, 'timing'> }): { timings: HarTimings; time: number } {
  const t = ex.response?.timing;
  const endTs = ex.finished?.timestamp;
  if (!t) {
    const total = endTs && ex.request.timestamp ? Math.max(0, (endTs - ex.request.timestamp) * 1000) : 0;
    return { timings: { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: ms(total), receive: 0 }, time: ms(total) };
  }
  const span = (a: number, b: number) => (a >= 0 && b >= 0 ? ms(Math.max(0, b - a)) : -1);
  // Before the request went out: queueing from the start to requestTime, then to the first phase that ran.
  const queued = ex.request.timestamp && t.requestTime >= ex.request.timestamp ? (t.requestTime - ex.request.timestamp) * 1000 : 0;
  const firstPhase = [t.dnsStart, t.connectStart, t.sendStart].find((v) => v >= 0) ?? 0;
  const blocked = ms(queued + firstPhase);
  const dns = span(t.dnsStart, t.dnsEnd);
  const connect = span(t.connectStart, t.connectEnd);
  const ssl = span(t.sslStart, t.sslEnd);
  const send = Math.max(0, span(t.sendStart, t.sendEnd));
  const wait = Math.max(0, span(t.sendEnd, t.receiveHeadersEnd));
  const receive = endTs !== undefined ? ms(Math.max(0, (endTs - t.requestTime) * 1000 - t.receiveHeadersEnd)) : 0;
  const timings = { blocked, dns, connect, ssl, send, wait, receive };
  const time = ms([blocked, dns, connect, send, wait, receive].filter((v) => v > 0).reduce((a, b) => a + b, 0));
  return { timings, time };
}

/** Response types worth fetching as text when only text bodies are kept. */
export function isTextType(mimeType: string | undefined): boolean {
  const m = (mimeType ?? '').toLowerCase();
  return !m || m.startsWith('text/') || /json|xml|javascript|ecmascript|x-www-form-urlencoded|graphql|event-stream/.test(m);
}

function redactedMessage(m: ExchangeMessage, r: TrafficRedactor, max: number): string {
  // Binary WebSocket frames come base64: kept as they are (scrubbed of the user's values), text frames redacted by key.
  const text = m.opcode === 2 ? r.text(m.data) : r.message(m.data);
  return cutUtf8(text, max).text;
}

function postData(ex: Exchange, r: TrafficRedactor, o: HarEntryOptions): HarEntry['request']['postData'] {
  const raw = ex.request.postData;
  if (raw === undefined) return undefined;
  const mimeType = headerValue(ex.request.headers, 'content-type') ?? '';
  if (o.bodies === 'none') return { mimeType, text: '', comment: 'body not recorded (bodies: none)' };
  const redacted = r.body(raw, mimeType);
  const cut = cutUtf8(redacted, o.maxBodyBytes);
  const out: NonNullable<HarEntry['request']['postData']> = { mimeType, text: cut.text };
  if (/^application\/x-www-form-urlencoded/i.test(mimeType)) out.params = [...new URLSearchParams(redacted)].map(([name, value]) => ({ name, value }));
  if (cut.cut) Object.assign(out, { _truncated: true as const, comment: `cut at ${o.maxBodyBytes} of ${cut.bytes} bytes` });
  return out;
}

function content(ex: Exchange, r: TrafficRedactor, o: HarEntryOptions): HarEntry['response']['content'] {
  const mimeType = ex.response?.mimeType || headerValue(ex.response?.headers ?? {}, 'content-type') || 'x-unknown';
  const size = ex.body ? (ex.body.base64 ? Buffer.from(ex.body.text, 'base64').length : Buffer.byteLength(ex.body.text, 'utf8')) : Math.max(0, ex.finished?.encodedDataLength ?? 0);
  const c: HarEntry['response']['content'] = { size, mimeType };
  if (!ex.body || o.bodies === 'none') {
    if (o.bodies === 'none') c.comment = 'body not recorded (bodies: none)';
    return c;
  }
  if (ex.body.base64) {
    if (o.bodies !== 'all') {
      c.comment = 'binary body not recorded (bodies: text)';
      return c;
    }
    // Cut on whole base64 quanta of the decoded bytes, so what is kept still decodes.
    const bytes = Buffer.from(ex.body.text, 'base64');
    const kept = bytes.length > o.maxBodyBytes ? bytes.subarray(0, o.maxBodyBytes) : bytes;
    const encoded = kept.toString('base64');
    // A binary body holding a vault value is left out whole: scrubbing inside base64 would leave a body that
    // no longer decodes, and scrubbing the decoded bytes would change a file nobody can check by eye.
    if (r.text(encoded) !== encoded || [kept.toString('utf8'), kept.toString('latin1')].some((x) => r.text(x) !== x)) {
      c.comment = 'binary body not recorded: it holds a vault value or filled code';
      return c;
    }
    c.text = encoded;
    c.encoding = 'base64';
    if (kept.length < bytes.length) Object.assign(c, { _truncated: true, comment: `cut at ${o.maxBodyBytes} of ${bytes.length} bytes` });
    return c;
  }
  // Redacted whole, then cut: a cut JSON body would no longer parse, and its secrets would then be missed.
  const cut = cutUtf8(r.body(ex.body.text, mimeType), o.maxBodyBytes);
  c.text = cut.text;
  if (cut.cut) Object.assign(c, { _truncated: true, comment: `cut at ${o.maxBodyBytes} of ${cut.bytes} bytes` });
  return c;
}

/** The HAR entry of an exchange, redacted. `open` marks one that had not ended (a stream still running). */
export function harEntry(ex: Exchange, r: TrafficRedactor, o: HarEntryOptions, pageref?: string, open = false): HarEntry {
  const res = ex.response;
  const { timings, time } = harTimings(ex);
  const url = asUri(r.url(ex.request.url));
  const version = httpVersion(res?.httpVersion ?? ex.request.httpVersion);
  const reqHeaders = r.headers(ex.request.headers);
  const resHeaders = r.headers(res?.headers ?? {});
  const location = headerValue(res?.headers ?? {}, 'location');
  const entry: HarEntry = {
    ...(pageref ? { pageref } : {}),
    startedDateTime: new Date(ex.request.startedAt).toISOString(),
    time,
    request: {
      method: ex.request.method,
      url,
      httpVersion: version,
      headers: headerList(reqHeaders),
      queryString: queryString(url),
      cookies: requestCookies(headerValue(ex.request.headers, 'cookie')),
      headersSize: -1,
      bodySize: ex.request.postData !== undefined ? Buffer.byteLength(ex.request.postData, 'utf8') : 0,
    },
    response: {
      status: res?.status ?? 0,
      statusText: res?.statusText ?? '',
      httpVersion: version,
      headers: headerList(resHeaders),
      cookies: responseCookies(headerValue(res?.headers ?? {}, 'set-cookie')),
      content: content(ex, r, o),
      redirectURL: ex.redirectUrl ? asUri(r.url(ex.redirectUrl)) : location ? asUri(r.url(location)) : '',
      headersSize: -1,
      bodySize: ex.finished && !ex.failed ? ex.finished.encodedDataLength : -1,
    },
    cache: {},
    timings,
    _resourceType: ex.resourceType,
  };
  const pd = postData(ex, r, o);
  if (pd) entry.request.postData = pd;
  if (ex.failed) entry.response._error = r.text(ex.failed.blockedReason ? `${ex.failed.errorText} (${ex.failed.blockedReason})` : ex.failed.errorText);
  if (res?.remoteIPAddress) entry.serverIPAddress = res.remoteIPAddress.replace(/^\[|\]$/g, '');
  const messages = ex.messages ?? [];
  const kept = messages.slice(0, MAX_MESSAGES);
  if (ex.resourceType === 'websocket') {
    entry._webSocketMessages = kept.map((m) => ({ type: m.type, time: m.time, opcode: m.opcode ?? 1, data: redactedMessage(m, r, o.maxBodyBytes) }));
  } else if (ex.resourceType === 'eventsource' || messages.some((m) => m.opcode === undefined)) {
    entry._eventSourceMessages = kept.map((m) => ({ type: m.eventName || 'message', time: m.time, eventId: m.eventId ?? '', data: redactedMessage(m, r, o.maxBodyBytes) }));
  }
  if (messages.length > kept.length) entry.comment = `${messages.length - kept.length} later messages not kept (at most ${MAX_MESSAGES})`;
  if (open) entry._open = true;
  return entry;
}
