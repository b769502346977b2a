/**
 * The two ways browser_api_call sends one request. Page mode: fetch() inside the tab's page, so the page's
 * origin rules and cookies apply and a read tab's write guard still stands. Server mode: the daemon's guarded
 * HTTP client (every hop vetted by the private-network guard and the host policy), with a Cookie header the
 * daemon looks up itself for each hop's address: from the live profile, or from a saved session.
 */
import { BrowserdError } from '../../protocol/errors.js';
import { CdpError } from '../cdp/connection.js';
import type { Tab } from '../browser/tab.js';
import type { SavedCookie } from '../../storage/saved-sessions.js';
import { guardedFetch, type FetchGuard } from '../fetch/guarded-fetch.js';
import type { ApiRequest } from './api-call-request.js';

export interface ApiResponse {
  url: string;
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The body was longer than the bound and was cut there. */
  cut: boolean;
}

export type Sender = (req: ApiRequest) => Promise<ApiResponse>;

/** Bytes of one response kept: a page of an API list, not a download. */
export const MAX_RESPONSE_CHARS = 5 * 1024 * 1024;
const PAGE_TIMEOUT_MS = 30_000;

/** fetch() in the page's own world; the expression gets the request as JSON and returns plain data. */
export function pageSender(tab: Tab): Sender {
  return async (req) => {
    const init = { method: req.method, headers: req.headers, body: req.body, credentials: 'include', redirect: 'follow', cache: 'no-store' };
    const expression = `(async () => {
      const r = await fetch(${JSON.stringify(req.url)}, ${JSON.stringify(init)});
      const text = await r.text();
      const headers = {};
      r.headers.forEach((v, k) => { headers[k] = v; });
      return { url: r.url, status: r.status, headers, body: text.slice(0, ${MAX_RESPONSE_CHARS}), cut: text.length > ${MAX_RESPONSE_CHARS} };
    })()`;
    let r;
    try {
      r = await tab.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true, timeout: PAGE_TIMEOUT_MS }, undefined, PAGE_TIMEOUT_MS + 1000);
    } catch (e) {
      if (e instanceof CdpError && e.kind === 'timeout') throw new BrowserdError('timeout', `${req.method} ${req.url} did not answer within ${PAGE_TIMEOUT_MS} ms in ${tab.id}`, { next: 'Try again later, or use mode "server".' });
      throw e;
    }
    if (r.exceptionDetails) {
      // The page's world runs the fetch, so the page chose what was thrown (it can replace fetch): its page text.
      const msg = r.exceptionDetails.exception?.description?.split('\n')[0] ?? r.exceptionDetails.text;
      throw new BrowserdError('action_failed', `the page's fetch of ${req.url} failed; what it threw is the page text of this error`, {
        next: `The page's origin (${tab.url}) may not reach it (CORS), or the site is down; mode "server" sends from the daemon instead.`,
        pageText: msg,
      });
    }
    return pageAnswer(r.result.value, req.url);
  };
}

/**
 * The page's answer as data of the shape we asked for. The page can replace fetch and Response, so every field
 * is checked: a status that is not a number would otherwise reach our own lines.
 */
function pageAnswer(v: unknown, url: string): ApiResponse {
  const o = (v && typeof v === 'object' ? v : {}) as Record<string, unknown>;
  const headers = o.headers && typeof o.headers === 'object' ? Object.entries(o.headers as Record<string, unknown>).filter(([, h]) => typeof h === 'string') : [];
  if (!Number.isInteger(o.status) || (o.status as number) < 0 || (o.status as number) > 999 || typeof o.body !== 'string') {
    throw new BrowserdError('action_failed', `the page's fetch of ${url} did not answer a response`, { next: 'The page replaces fetch; use mode "server" to send from the daemon.' });
  }
  return { url: typeof o.url === 'string' ? o.url : url, status: o.status as number, headers: Object.fromEntries(headers) as Record<string, string>, body: o.body, cut: o.cut === true };
}

/** The guarded fetch, with `cookies(url)` asked for each vetted hop. */
export function serverSender(guard: FetchGuard, cookies: (url: URL) => Promise<string | undefined>, signal: AbortSignal): Sender {
  return async (req) => {
    const res = await guardedFetch(req.url, {
      guard,
      method: req.method,
      headers: req.headers,
      body: req.body !== undefined ? Buffer.from(req.body) : undefined,
      cookiesFor: cookies,
      maxBytes: MAX_RESPONSE_CHARS * 4,
      signal,
      tooLarge: (url, max) => new BrowserdError('action_failed', `${url} answered with more than ${max} bytes`, { next: 'Ask for smaller pages (a limit parameter), or fewer items.' }),
    });
    const text = res.body.toString('utf8');
    return { url: res.url, status: res.status, headers: res.headers, body: text.slice(0, MAX_RESPONSE_CHARS), cut: text.length > MAX_RESPONSE_CHARS };
  };
}

/** A cookie as both CDP and saved sessions describe it. */
export type JarCookie = Pick<SavedCookie, 'name' | 'value' | 'domain' | 'path' | 'secure' | 'expires'> & { partitionKey?: unknown };

/**
 * The Cookie header a browser would send to `url` from these cookies (RFC 6265 5.4): domain (a leading dot
 * for the domain and its sub-domains, else that host only), path prefix, Secure only over https, not
 * expired; partitioned cookies belong to one embedding site, so they are left out. Longer paths first.
 */
export function cookieHeaderFor(cookies: readonly JarCookie[], url: URL, now = Date.now() / 1000): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const path = url.pathname || '/';
  const fits = cookies.filter((c) => {
    if (c.partitionKey) return false;
    if (c.expires !== undefined && c.expires > 0 && c.expires < now) return false;
    if (c.secure && url.protocol !== 'https:') return false;
    const d = c.domain.toLowerCase().replace(/^\[|\]$/g, '');
    const domainOk = d.startsWith('.') ? host === d.slice(1) || host.endsWith(d) : host === d;
    if (!domainOk) return false;
    const p = c.path || '/';
    return path === p || (path.startsWith(p) && (p.endsWith('/') || path[p.length] === '/'));
  });
  if (!fits.length) return undefined;
  return fits
    .sort((a, b) => (b.path || '/').length - (a.path || '/').length)
    .map((c) => `${c.name}=${c.value}`)
    .join('; ');
}
