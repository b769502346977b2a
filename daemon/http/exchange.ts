/**
 * Small helpers over the HTTP server (transport/types.ts): a request captured synchronously (uWS forbids
 * touching req after the handler returns), body reading with a size cap, abort tracking, and corked writes.
 */
import type { Chunk as RecognizedString, HttpRequest, HttpResponse } from './transport/types.js';
import { randomBytes } from 'node:crypto';
import { BrowserdError, ERROR_CODES } from '../../protocol/errors.js';

export interface Req {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  res: HttpResponse;
  aborted: boolean;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** Names of headers sent more than once (a second Authorization is refused, not silently picked). */
  repeated: string[];
  /** The peer's address as the socket has it (never X-Forwarded-For, which any client can write). */
  remote: string;
  /** This request's id: the client's X-Request-Id when it is a plain token, else a new one; echoed as X-Request-Id. */
  id: string;
  startedAt: number;
  /** What the request log line says beside status and size, filled in as the request is routed and answered. */
  log: { route?: string; user?: string; code?: string };
}

/** What the daemon learns when a response has gone out (or the client went away first). */
export type RequestFinished = (r: Req, status: number, bytes: number, aborted: boolean) => void;

/**
 * Our request ids are 20 decimal digits: letters could spell a short secret by chance (a hex id holds "ada" or
 * "cafe" now and then), which the log scrubber would then hide inside the id; a digit run is taken for a secret
 * only when it is the whole number.
 */
function newRequestId(): string {
  return randomBytes(8).readBigUInt64BE().toString().padStart(20, '0');
}

/** Bytes of a body part as uWS takes it (text, or any ArrayBuffer view). */
const size = (chunk: unknown) => (typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk ? (chunk as ArrayBufferLike).byteLength ?? 0 : 0);

/** A client's own request id, when it is one we can echo and log as it is. */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Largest JSON body: the largest document a call takes inline (15 MB, browser_convert and browser_upload) as
 * base64 (4/3 of it) with room for the rest of the call.
 */
export const MAX_BODY = 21 * 1024 * 1024;

export function captureReq(rawRes: HttpResponse, req: HttpRequest, finished?: RequestFinished): Req {
  const headers: Record<string, string> = {};
  const repeated: string[] = [];
  req.forEach((k, v) => {
    if (k in headers) repeated.push(k);
    headers[k] = v;
  });
  const ac = new AbortController();
  const given = headers['x-request-id'];
  const id = given && CLIENT_REQUEST_ID.test(given) ? given : newRequestId();
  // Every way a handler answers (JSON, streams, the MCP transport, pages) goes through these few calls: watching
  // them here gives one log line per request and the X-Request-Id header without each handler doing it.
  let status = 0;
  let bytes = 0;
  let done = false;
  const finish = (aborted: boolean) => {
    if (done) return;
    done = true;
    finished?.(r, status, bytes, aborted);
  };
  const res = new Proxy(rawRes, {
    get(target, prop) {
      if (prop === 'writeStatus') return (line: string) => {
        status = Number(String(line).slice(0, 3));
        target.writeStatus(line);
        target.writeHeader('X-Request-Id', id);
        return res;
      };
      if (prop === 'write') return (chunk: RecognizedString) => {
        bytes += size(chunk);
        return target.write(chunk);
      };
      if (prop === 'end') return (chunk?: RecognizedString, closeConnection?: boolean) => {
        // An answer with no writeStatus is uWS's implicit 200.
        if (!status) {
          status = 200;
          target.writeHeader('X-Request-Id', id);
        }
        bytes += size(chunk);
        target.end(chunk, closeConnection);
        finish(false);
        return res;
      };
      const v = (target as any)[prop];
      if (typeof v !== 'function') return v;
      // Chained calls (res.writeHeader(...).end()) must come back through here too.
      return (...args: unknown[]) => {
        const out = v.apply(target, args);
        return out === target ? res : out;
      };
    },
  }) as HttpResponse;
  const r: Req = {
    method: req.getCaseSensitiveMethod(),
    path: req.getUrl(),
    query: new URLSearchParams(req.getQuery() ?? ''),
    headers,
    res,
    aborted: false,
    signal: ac.signal,
    repeated,
    // Read now: uWS forbids touching res's socket details once the handler has returned and the request aborted.
    remote: Buffer.from(rawRes.getRemoteAddressAsText()).toString('utf8'),
    id,
    startedAt: Date.now(),
    log: {},
  };
  r.method = r.method.toUpperCase();
  res.onAborted(() => {
    finish(true);
    r.aborted = true;
    ac.abort();
  });
  return r;
}

export function readBody(r: Req, max = MAX_BODY): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    r.res.onData((ab, isLast) => {
      if (size < 0) return;
      // uWS reuses the ArrayBuffer after the callback: copy it.
      const chunk = Buffer.from(ab.slice(0));
      size += chunk.length;
      if (size > max) {
        size = -1;
        reject(new BrowserdError('payload_too_large', `request body larger than ${max} bytes`, { next: `Send at most ${max} bytes; put a large document at a URL or in your files.`, details: { maxBytes: max } }));
        return;
      }
      chunks.push(chunk);
      if (isLast) resolve(Buffer.concat(chunks));
    });
  });
}

/** Deeper than any tool's arguments need; deep enough bodies would overflow the stack of whatever walks them. */
export const MAX_JSON_DEPTH = 64;

/** The deepest nesting of arrays and objects in JSON text, counted without parsing (strings skipped). */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93) depth--;
  }
  return max;
}

export class TooDeepError extends BrowserdError {
  constructor() {
    super('validation_error', `the JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`, { next: `Send arguments nested at most ${MAX_JSON_DEPTH} levels deep.` });
  }
}

/** JSON.parse with the depth bounded first, so nothing downstream (validation, redaction, audit) recurses without end. */
export function parseJsonBounded(text: string): unknown {
  if (jsonDepth(text) > MAX_JSON_DEPTH) throw new TooDeepError();
  try {
    return JSON.parse(text);
  } catch {
    throw new BrowserdError('validation_error', 'the request body is not valid JSON', { next: 'Send a JSON object with Content-Type: application/json.' });
  }
}

export async function readJson(r: Req, max = MAX_BODY): Promise<unknown> {
  const buf = await readBody(r, Math.min(max, MAX_BODY));
  if (!buf.length) return {};
  return parseJsonBounded(buf.toString('utf8'));
}

/** Largest HTML form body (console and sign-up forms are a few fields of text). */
export const MAX_FORM_BODY = 256 * 1024;

/**
 * Reads an HTML form post (application/x-www-form-urlencoded). Like readBody, call it before the handler's
 * first await: uWS hands the body only to a reader attached while the request is being handled.
 */
export async function readForm(r: Req, max = MAX_FORM_BODY): Promise<URLSearchParams> {
  const type = (r.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const body = readBody(r, max);
  if (type !== 'application/x-www-form-urlencoded') {
    body.catch(() => undefined);
    throw new BrowserdError('validation_error', 'this page takes a form post (application/x-www-form-urlencoded)', { next: 'Submit the form on the page.' });
  }
  return new URLSearchParams((await body).toString('utf8'));
}

/** The cookies of a request by name (the first of a repeated name wins; values are not decoded). */
export function cookies(r: Req): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (r.headers['cookie'] ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    const name = part.slice(0, i).trim();
    if (name && !out.has(name)) out.set(name, part.slice(i + 1).trim());
  }
  return out;
}

const STATUS_TEXT: Record<number, string> = {
  200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content', 303: 'See Other', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden',
  404: 'Not Found', 405: 'Method Not Allowed', 409: 'Conflict', 413: 'Payload Too Large', 415: 'Unsupported Media Type', 422: 'Unprocessable Entity', 429: 'Too Many Requests', 431: 'Request Header Fields Too Large',
  500: 'Internal Server Error', 501: 'Not Implemented', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout', 507: 'Insufficient Storage',
};

export function statusLine(code: number) {
  return `${code} ${STATUS_TEXT[code] ?? 'Status'}`;
}

export function send(r: Req, status: number, body: string | Buffer, headers: Record<string, string> = {}) {
  if (r.aborted) return;
  r.res.cork(() => {
    r.res.writeStatus(statusLine(status));
    for (const [k, v] of Object.entries(headers)) r.res.writeHeader(k, v);
    r.res.end(body);
  });
}

export function sendJson(r: Req, status: number, obj: unknown, headers: Record<string, string> = {}) {
  send(r, status, JSON.stringify(obj), { 'Content-Type': 'application/json', ...headers });
}

/** An error from the one table; `status` overrides the table's only where HTTP itself names the case (405). */
export function sendError(r: Req, e: BrowserdError, opts: { status?: number; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...opts.headers };
  r.log.code = e.code;
  if (e.retryAfterS) headers['Retry-After'] = String(e.retryAfterS);
  if (e.code === 'unauthorized') headers['WWW-Authenticate'] = 'Bearer';
  sendJson(r, opts.status ?? ERROR_CODES[e.code].status, { ok: false, error: e.toBody() }, headers);
}

export function bearer(r: Req): string | undefined {
  const h = r.headers['authorization'];
  if (!h) return undefined;
  const m = /^Bearer\s+(\S+)$/i.exec(h.trim());
  return m?.[1];
}

/** Bytes gathered before one write: few syscalls, and a bounded amount held while the client is slow. */
export const STREAM_CHUNK_BYTES = 64 * 1024;

/**
 * Streams `source` as the body (chunked): parts are gathered into ~64 KiB writes, and when uWS reports
 * backpressure (write returns false) the next write waits for onWritable, so a slow reader holds at most one
 * chunk here rather than the whole body. A client that goes away stops the iteration (its finally blocks run).
 * The status and headers go out with the first chunk: an error before that throws with nothing sent, so the
 * caller can still answer it; an error after that cuts the connection, so a half body never looks complete.
 */
export async function sendStream(r: Req, status: number, headers: Record<string, string>, source: Iterable<string | Buffer> | AsyncIterable<string | Buffer>): Promise<void> {
  if (r.aborted) return;
  let wake: (() => void) | undefined;
  const resume = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  r.signal.addEventListener('abort', resume, { once: true });
  r.res.onWritable(() => {
    resume();
    return true;
  });
  let started = false;
  let pending: Buffer[] = [];
  let size = 0;
  const flush = async () => {
    if (r.aborted) return;
    const chunk = pending.length === 1 ? pending[0]! : Buffer.concat(pending);
    pending = [];
    size = 0;
    let ok = true;
    r.res.cork(() => {
      if (!started) {
        r.res.writeStatus(statusLine(status));
        for (const [k, v] of Object.entries(headers)) r.res.writeHeader(k, v);
        started = true;
      }
      if (chunk.length) ok = r.res.write(chunk);
    });
    if (!ok && !r.aborted) await new Promise<void>((resolve) => (wake = resolve));
  };
  try {
    for await (const part of source) {
      if (r.aborted) break;
      const buf = typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
      if (!buf.length) continue;
      pending.push(buf);
      size += buf.length;
      if (size >= STREAM_CHUNK_BYTES) await flush();
      if (r.aborted) break;
    }
    if (r.aborted) return;
    await flush();
    if (!r.aborted) r.res.cork(() => r.res.end());
  } catch (e) {
    if (started && !r.aborted) {
      r.aborted = true;
      r.res.close();
    }
    throw e;
  } finally {
    r.signal.removeEventListener('abort', resume);
  }
}
