/**
 * A tab's routes (browser_route): rules that answer (mock) or stop (block, fail) the tab's requests instead of
 * the network. The write guard asks `match` for each paused request only after its own verdict let the request
 * through, so a route can answer or stop a request but never send one the guard refused.
 *
 * Routes live with the Tab object in memory: gone when the tab closes or the browser restarts. The URL rule
 * (`urlMatcher`, daemon/browser/url-pattern.ts) is the one capture and HAR recording use too, so a pattern means the same everywhere.
 */
import { BrowserdError } from '../../protocol/errors.js';
import { urlMatcher } from './url-pattern.js';

export const ROUTE_KINDS = ['mock', 'block', 'fail'] as const;
export type RouteKind = (typeof ROUTE_KINDS)[number];

/** CDP Network.ResourceType values, lower-cased (what callers write and what browser_network shows). */
export const ROUTE_RESOURCE_TYPES = [
  'document', 'stylesheet', 'image', 'media', 'font', 'script', 'texttrack', 'xhr', 'fetch', 'prefetch', 'eventsource',
  'websocket', 'manifest', 'signedexchange', 'ping', 'cspviolationreport', 'preflight', 'other',
] as const;
export type RouteResourceType = (typeof ROUTE_RESOURCE_TYPES)[number];

/** CDP Network.ErrorReason: what the page sees a failed request fail with. */
export const ROUTE_ERROR_REASONS = [
  'Failed', 'Aborted', 'TimedOut', 'AccessDenied', 'ConnectionClosed', 'ConnectionReset', 'ConnectionRefused', 'ConnectionAborted',
  'ConnectionFailed', 'NameNotResolved', 'InternetDisconnected', 'AddressUnreachable', 'BlockedByClient', 'BlockedByResponse',
] as const;
export type RouteErrorReason = (typeof ROUTE_ERROR_REASONS)[number];

export const MAX_ROUTES_PER_TAB = 50;
export const MAX_MOCK_BODY_BYTES = 1024 * 1024;
export const MAX_MOCK_HEADERS = 50;

/** What a caller asks for (browser_route add). */
export interface RouteSpec {
  urlPattern: string;
  kind: RouteKind;
  methods?: string[];
  resourceTypes?: RouteResourceType[];
  status?: number;
  body?: string;
  contentType?: string;
  headers?: Record<string, string>;
  errorReason?: RouteErrorReason;
}

/** A route as listed: no body (it may be a mebibyte), its size instead, and how many requests it answered. */
export interface RouteView {
  id: string;
  urlPattern: string;
  kind: RouteKind;
  methods?: string[];
  resourceTypes?: RouteResourceType[];
  status?: number;
  contentType?: string;
  headers?: Record<string, string>;
  bodyBytes?: number;
  errorReason?: RouteErrorReason;
  hits: number;
}

/** What the write guard does with a request a route matched. */
export type RouteAnswer =
  | { kind: 'mock'; id: string; status: number; headers: { name: string; value: string }[]; bodyBase64: string }
  | { kind: 'block'; id: string }
  | { kind: 'fail'; id: string; errorReason: RouteErrorReason };

interface Route {
  view: RouteView;
  matchesUrl: (url: string) => boolean;
  methods?: Set<string>;
  types?: Set<string>;
  answer: RouteAnswer;
}

// ------------------------------------------------------------------ checking a route before it is added

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const METHOD = /^[A-Za-z]{1,20}$/;

function bad(param: string, message: string, next: string): never {
  throw new BrowserdError('validation_error', `"${param}" ${message}`, { next, details: { parameter: param } });
}

/**
 * Every rule of a route a schema cannot say: the parameters that belong to another kind, header names and
 * values Chromium would refuse (a refused fulfil would leave the request hanging), Set-Cookie, the body's size
 * in bytes. Throws validation_error naming the parameter; a route that passes is one the guard can send.
 */
export function checkRouteSpec(spec: RouteSpec): void {
  if (typeof spec.urlPattern !== 'string' || !spec.urlPattern) bad('urlPattern', 'is required with action "add"', 'Pass urlPattern: "*" for every request, a glob such as "**/api/*", or a substring of the URL.');
  if (!(ROUTE_KINDS as readonly string[]).includes(spec.kind)) bad('kind', 'is required with action "add": mock, block or fail', 'Pass kind "mock" to answer, "block" or "fail" to stop requests.');
  if (spec.kind !== 'mock') {
    for (const p of ['status', 'body', 'contentType', 'headers'] as const) {
      if (spec[p] !== undefined) bad(p, `belongs to kind "mock", not "${spec.kind}"`, `Drop "${p}", or use kind "mock".`);
    }
  }
  if (spec.kind !== 'fail' && spec.errorReason !== undefined) bad('errorReason', `belongs to kind "fail", not "${spec.kind}"`, 'Drop "errorReason", or use kind "fail" (block always fails with BlockedByClient).');
  if (spec.errorReason !== undefined && !(ROUTE_ERROR_REASONS as readonly string[]).includes(spec.errorReason)) {
    bad('errorReason', `must be one of ${ROUTE_ERROR_REASONS.join(', ')}`, 'Pick a CDP Network.ErrorReason from the list, or leave it out for Failed.');
  }
  for (const m of spec.methods ?? []) if (!METHOD.test(m)) bad('methods', `holds "${m.slice(0, 40)}", which is not an HTTP method`, 'Pass method names such as ["GET", "POST"].');
  for (const t of spec.resourceTypes ?? []) {
    if (!(ROUTE_RESOURCE_TYPES as readonly string[]).includes(t)) bad('resourceTypes', `holds "${String(t).slice(0, 40)}"; types are ${ROUTE_RESOURCE_TYPES.join(', ')}`, 'Use lower-case CDP resource types, e.g. ["xhr", "fetch"].');
  }
  if (spec.status !== undefined && !(Number.isInteger(spec.status) && spec.status >= 100 && spec.status <= 599)) bad('status', 'must be a whole number from 100 to 599', 'Pass an HTTP status such as 200 or 404.');
  if (spec.body !== undefined && Buffer.byteLength(spec.body, 'utf8') > MAX_MOCK_BODY_BYTES) {
    bad('body', `is ${Buffer.byteLength(spec.body, 'utf8')} bytes; a mock body holds at most ${MAX_MOCK_BODY_BYTES} bytes (1 MiB)`, 'Send a smaller body.');
  }
  if (spec.contentType !== undefined && /[\r\n\0]/.test(spec.contentType)) bad('contentType', 'may not hold line breaks or NUL', 'Pass a media type such as "application/json".');
  const headers = Object.entries(spec.headers ?? {});
  if (headers.length > MAX_MOCK_HEADERS) bad('headers', `has ${headers.length} headers; at most ${MAX_MOCK_HEADERS}`, 'Send fewer headers.');
  for (const [name, value] of headers) {
    if (!HEADER_NAME.test(name)) bad('headers', `has "${name.slice(0, 60)}", which is not a header name`, 'Header names are letters, digits and - _ . ! # $ % & \' * + ^ ` | ~.');
    if (name.toLowerCase() === 'set-cookie') bad('headers', 'may not set cookies (Set-Cookie)', 'Drop Set-Cookie: a mock answers requests, it does not change the browser\'s cookies.');
    if (typeof value !== 'string' || /[\r\n\0]/.test(value)) bad('headers', `value of "${name.slice(0, 60)}" must be a string without line breaks or NUL`, 'Pass header values as one-line strings.');
    if (spec.contentType !== undefined && name.toLowerCase() === 'content-type') bad('headers', 'has Content-Type and contentType is given too', 'Give the type once: contentType, or a Content-Type header.');
  }
}

// ------------------------------------------------------------------ one tab's routes

export class TabRoutes {
  private routes: Route[] = [];
  private nextId = 1;
  /** A mock of this tab answered a request: its body (script, HTML) may be running in one of the tab's pages. */
  private mockAnswered = false;
  /**
   * Told of each request a mock answers, with the address of the tab's page then: the body may run as that page's
   * code or as a new document of the request's origin, and write either's storage (daemon/secrets/site-storage.ts).
   */
  onMock?: (requestUrl: string, pageUrl: string) => void;

  /**
   * Whether the tab's pages may run code the agent wrote: a mock route is in place, or one answered a request
   * while the tab lived. No vault value is filled then (daemon/secrets/secret-documents.ts).
   */
  get writesResponses(): boolean {
    return this.mockAnswered || this.routes.some((r) => r.answer.kind === 'mock');
  }

  /** Checks and adds a route; the newest route wins when several match. Throws validation_error at the limit. */
  add(spec: RouteSpec): RouteView {
    checkRouteSpec(spec);
    if (this.routes.length >= MAX_ROUTES_PER_TAB) {
      throw new BrowserdError('validation_error', `a tab holds at most ${MAX_ROUTES_PER_TAB} routes and this one has ${this.routes.length}`, {
        next: 'Remove routes you no longer need (browser_route action "remove"), or use one broader urlPattern.',
        details: { parameter: 'urlPattern' },
      });
    }
    const id = `r${this.nextId++}`;
    const methods = spec.methods?.length ? [...new Set(spec.methods.map((m) => m.toUpperCase()))] : undefined;
    const types = spec.resourceTypes?.length ? [...new Set(spec.resourceTypes)] : undefined;
    const view: RouteView = { id, urlPattern: spec.urlPattern, kind: spec.kind, ...(methods ? { methods } : {}), ...(types ? { resourceTypes: types } : {}), hits: 0 };
    let answer: RouteAnswer;
    if (spec.kind === 'mock') {
      const status = spec.status ?? 200;
      const body = Buffer.from(spec.body ?? '', 'utf8');
      const headers = Object.entries(spec.headers ?? {}).map(([name, value]) => ({ name, value }));
      // A body with no stated type is plain text: the page should not sniff a mock into HTML or script.
      const contentType = spec.contentType ?? headers.find((h) => h.name.toLowerCase() === 'content-type')?.value ?? (spec.body !== undefined ? 'text/plain; charset=utf-8' : undefined);
      if (contentType !== undefined && !headers.some((h) => h.name.toLowerCase() === 'content-type')) headers.push({ name: 'Content-Type', value: contentType });
      Object.assign(view, { status, ...(contentType !== undefined ? { contentType } : {}), ...(spec.headers && Object.keys(spec.headers).length ? { headers: { ...spec.headers } } : {}), bodyBytes: body.length });
      answer = { kind: 'mock', id, status, headers, bodyBase64: body.toString('base64') };
    } else if (spec.kind === 'fail') {
      const errorReason = spec.errorReason ?? 'Failed';
      view.errorReason = errorReason;
      answer = { kind: 'fail', id, errorReason };
    } else {
      answer = { kind: 'block', id };
    }
    // Chromium's interception reports fetch() as XHR (both have no destination), so either name means both.
    const typeSet = types && new Set<string>(types.flatMap((x) => (x === 'xhr' || x === 'fetch' ? ['xhr', 'fetch'] : [x])));
    this.routes.push({ view, matchesUrl: urlMatcher(spec.urlPattern), methods: methods && new Set(methods), types: typeSet, answer });
    return { ...view };
  }

  /** The routes, oldest first (the last one listed wins a tie). */
  list(): RouteView[] {
    return this.routes.map((r) => ({ ...r.view }));
  }

  get size(): number {
    return this.routes.length;
  }

  /** Removes one route by id, or all of them; returns the ids removed. An unknown id is not_found and removes nothing. */
  remove(id?: string): string[] {
    if (id === undefined) {
      const ids = this.routes.map((r) => r.view.id);
      this.routes = [];
      return ids;
    }
    const at = this.routes.findIndex((r) => r.view.id === id);
    if (at < 0) {
      throw new BrowserdError('not_found', `no route ${id} in this tab`, { next: 'List the tab\'s routes with browser_route action "list".', details: { parameter: 'id' } });
    }
    this.routes.splice(at, 1);
    return [id];
  }

  /** The newest route matching a request, counted as a hit; undefined when none does. */
  match(req: { url: string; method: string; resourceType: string }, pageUrl = ''): RouteAnswer | undefined {
    for (let i = this.routes.length - 1; i >= 0; i--) {
      const r = this.routes[i];
      if (r.methods && !r.methods.has(req.method.toUpperCase())) continue;
      if (r.types && !r.types.has(req.resourceType.toLowerCase())) continue;
      if (!r.matchesUrl(req.url)) continue;
      r.view.hits++;
      if (r.answer.kind === 'mock') {
        this.mockAnswered = true;
        this.onMock?.(req.url, pageUrl);
      }
      return r.answer;
    }
    return undefined;
  }
}
