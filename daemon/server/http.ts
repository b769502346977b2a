/**
 * Small helpers over uWebSockets.js: a request captured synchronously (uWS forbids touching req after the
 * handler returns), body reading with a size cap, abort tracking, and corked writes.
 */
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
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
}

export const MAX_BODY = 16 * 1024 * 1024;

export function captureReq(res: HttpResponse, req: HttpRequest): Req {
  const headers: Record<string, string> = {};
  req.forEach((k, v) => (headers[k] = v));
  const ac = new AbortController();
  const r: Req = {
    method: req.getCaseSensitiveMethod?.() ?? req.getMethod().toUpperCase(),
    path: req.getUrl(),
    query: new URLSearchParams(req.getQuery() ?? ''),
    headers,
    res,
    aborted: false,
    signal: ac.signal,
  };
  r.method = r.method.toUpperCase();
  res.onAborted(() => {
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
        reject(new BrowserdError('validation_error', `request body larger than ${max} bytes`, { next: 'Send less.' }));
        return;
      }
      chunks.push(chunk);
      if (isLast) resolve(Buffer.concat(chunks));
    });
  });
}

export async function readJson(r: Req): Promise<unknown> {
  const buf = await readBody(r);
  if (!buf.length) return {};
  try {
    return JSON.parse(buf.toString('utf8'));
  } catch {
    throw new BrowserdError('validation_error', 'the request body is not valid JSON', { next: 'Send a JSON object with Content-Type: application/json.' });
  }
}

const STATUS_TEXT: Record<number, string> = {
  200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden',
  404: 'Not Found', 405: 'Method Not Allowed', 409: 'Conflict', 413: 'Payload Too Large', 422: 'Unprocessable Entity',
  500: 'Internal Server Error', 501: 'Not Implemented', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout',
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

export function sendError(r: Req, e: BrowserdError) {
  const headers: Record<string, string> = {};
  if (e.retryAfterS) headers['Retry-After'] = String(e.retryAfterS);
  if (e.code === 'unauthorized') headers['WWW-Authenticate'] = 'Bearer';
  sendJson(r, ERROR_CODES[e.code].status, { ok: false, error: e.toBody() }, headers);
}

export function bearer(r: Req): string | undefined {
  const h = r.headers['authorization'];
  if (!h) return undefined;
  const m = /^Bearer\s+(\S+)$/i.exec(h.trim());
  return m?.[1];
}
