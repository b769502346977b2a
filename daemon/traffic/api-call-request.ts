/**
 * browser_api_call's first half, pure: which endpoint of a map the caller means, and the request it becomes
 * (URL with path and query filled, headers, JSON or GraphQL body). Nothing here sends anything, so every bad
 * input is refused before a byte leaves the daemon or the browser.
 */
import { BrowserdError } from '../../protocol/errors.js';
import type { ApiEndpoint, ApiMap } from '../../protocol/api-map.js';
import { CREDENTIAL_HEADER } from './redact.js';

export type ParamValue = string | number | boolean | (string | number | boolean)[];

export interface ApiRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** JSON text, for methods that carry a body. */
  body?: string;
}

/**
 * Caller headers naming a credential: Cookie, Authorization, a token, a key, a secret, a session, CSRF. Those
 * values come only from the browser, a saved session or the map's dependencies, never from the caller.
 */
const REFUSED_HEADER = (name: string) => CREDENTIAL_HEADER.test(name) || /key/i.test(name);
/** Headers the transport sets itself; a caller's value would make the request lie about its own framing. */
const TRANSPORT_HEADER = /^(host|content-length|connection|transfer-encoding|te|upgrade|keep-alive|expect)$/i;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * The caller's extra headers, checked: a credential header is a refusal (`refused`, the call is not for
 * this), a malformed one a validation_error; either names the first header at fault.
 */
export function checkCallerHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!HEADER_NAME.test(name)) throw new BrowserdError('validation_error', `headers: ${JSON.stringify(name.slice(0, 80))} is not a header name`, { next: 'Give header names of letters, digits and dashes.' });
    if (REFUSED_HEADER(name)) {
      throw new BrowserdError('refused', `headers.${name} is refused: credentials and CSRF values are never taken from the caller`, {
        next: "Leave it out: page mode uses the page's cookies, server mode the profile's or a saved session's, and CSRF values come from the map's dependencies.",
      });
    }
    if (TRANSPORT_HEADER.test(name)) throw new BrowserdError('validation_error', `headers.${name} is set by the transport, not by the caller`, { next: `Leave ${name} out.` });
    if (/[\r\n\0]/.test(value)) throw new BrowserdError('validation_error', `headers.${name} holds a line break`, { next: 'Give a one-line value.' });
    out[name] = value;
  }
  return out;
}

/** True for requests that change something: POST, PUT, PATCH, DELETE, and GraphQL mutations. */
/** Said in an error whose endpoint id goes in its page text: the id holds a path the recorded site used. */
export const ID_NOTE = '(its id is the page text of this error)';

/** An endpoint named in an error's page text (never in the message: its id and path are the site's words). */
export const endpointText = (e: ApiEndpoint): string => `endpoint: ${e.id}`;

export function isWrite(e: ApiEndpoint): boolean {
  if (e.write || e.operation?.type === 'mutation') return true;
  // A GraphQL query travels as a POST and reads; only its operation type says it writes.
  return e.kind !== 'graphql' && !['GET', 'HEAD', 'OPTIONS'].includes(e.method.toUpperCase());
}

/** The endpoint, and path values taken from a "METHOD /items/42" the caller gave. */
export interface ResolvedEndpoint {
  endpoint: ApiEndpoint;
  pathValues: Record<string, string>;
  queryValues: Record<string, string>;
}

/**
 * An endpoint by its id ("GET /items/{id}"), by a concrete "METHOD /path[?query]" matched to a template (the
 * template with the fewest placeholders wins), or by a GraphQL operation name.
 */
export function resolveEndpoint(map: ApiMap, wanted: string): ResolvedEndpoint {
  const byId = map.endpoints.find((e) => e.id === wanted);
  if (byId) return callable({ endpoint: byId, pathValues: {}, queryValues: {} });
  const gql = map.endpoints.filter((e) => e.kind === 'graphql' && e.operation?.name === wanted);
  if (gql.length) return callable({ endpoint: gql[0]!, pathValues: {}, queryValues: {} });
  const m = /^([A-Za-z]+)\s+(\S+)$/.exec(wanted.trim());
  if (m) {
    const method = m[1]!.toUpperCase();
    let u: URL;
    try {
      u = new URL(m[2]!, 'http://placeholder.invalid');
    } catch {
      throw notFound(map, wanted);
    }
    const absolute = /^https?:\/\//i.test(m[2]!);
    const candidates = map.endpoints
      .filter((e) => e.kind === 'http' && e.method.toUpperCase() === method && (!absolute || e.origin === u.origin))
      .map((e) => ({ e, values: matchTemplate(e.path, u.pathname) }))
      .filter((c): c is { e: ApiEndpoint; values: Record<string, string> } => !!c.values)
      .sort((a, b) => Object.keys(a.values).length - Object.keys(b.values).length);
    if (candidates.length) return callable({ endpoint: candidates[0]!.e, pathValues: candidates[0]!.values, queryValues: Object.fromEntries(u.searchParams) });
  }
  throw notFound(map, wanted);
}

function callable(r: ResolvedEndpoint): ResolvedEndpoint {
  if (r.endpoint.kind === 'websocket' || r.endpoint.kind === 'eventsource') {
    throw new BrowserdError('validation_error', `endpoint: it is a ${r.endpoint.kind} stream, which browser_api_call does not call ${ID_NOTE}`, { next: 'Pick an HTTP or GraphQL endpoint of the map (browser_api_map{action:"get"}).', pageText: endpointText(r.endpoint) });
  }
  return r;
}

function notFound(map: ApiMap, wanted: string): BrowserdError {
  const some = map.endpoints.filter((e) => e.kind === 'http' || e.kind === 'graphql').slice(0, 12).map((e) => e.id);
  // Endpoint ids hold paths the recorded site chose: listed as the error's page text, not in our words.
  return new BrowserdError('not_found', `map ${map.id} has no endpoint ${JSON.stringify(wanted.slice(0, 200))}`, {
    next: some.length ? 'Use one of the endpoint ids in the page text of this error; browser_api_map{action:"get"} lists them all.' : 'This map has no callable endpoint; build it from a HAR with requests in it.',
    ...(some.length ? { pageText: `endpoint ids: ${some.map((s) => JSON.stringify(s)).join(', ')}` } : {}),
  });
}

/** Values of a template's {placeholders} in a concrete path, or undefined when it does not fit. */
function matchTemplate(template: string, path: string): Record<string, string> | undefined {
  const t = template.split('/');
  const p = path.split('/');
  if (t.length !== p.length) return undefined;
  const values: Record<string, string> = {};
  for (let i = 0; i < t.length; i++) {
    const ph = /^\{([^}]+)\}$/.exec(t[i]!);
    if (ph) {
      if (!p[i]) return undefined;
      values[ph[1]!] = decodeURIComponent(p[i]!);
    } else if (t[i] !== p[i]) return undefined;
  }
  return values;
}

const PLACEHOLDER = /\{([^}]+)\}/g;
/** Placeholder names the map builder gives (api-map/template.ts): our words, safe to name in a message. */
const OUR_PLACEHOLDER = /^id\d*$/;

/**
 * The request for an endpoint: path placeholders filled from params (a missing one is a validation_error
 * naming it), other params into the query (GraphQL: into variables), the caller's JSON body.
 */
export function buildRequest(r: ResolvedEndpoint, params: Record<string, ParamValue>, body: unknown, headers: Record<string, string>): ApiRequest {
  const e = r.endpoint;
  const values: Record<string, ParamValue> = { ...r.queryValues, ...r.pathValues, ...params };
  const used = new Set<string>();
  const path = e.path.replace(PLACEHOLDER, (_m, name: string) => {
    const v = values[name];
    if (v === undefined || v === '' || Array.isArray(v)) {
      // The path is the site's words: the page text of the error. A placeholder the map builder named (id, id2)
      // is ours and named; any other name came with the map and goes with the path.
      const ours = OUR_PLACEHOLDER.test(name);
      throw new BrowserdError('validation_error', `${ours ? `params.${name} is required: it fills {${name}} in` : 'params: a path placeholder of'} the endpoint's path (${ours ? 'the path is' : 'the path and the name are'} the page text of this error)`, {
        next: ours ? `Pass params: {"${name}": ...}, or name the endpoint with a concrete path.` : 'Pass params with a value for that placeholder, or name the endpoint with a concrete path instead of its template.',
        pageText: `${ours ? '' : `placeholder: ${name}\n`}path: ${e.path}`,
      });
    }
    used.add(name);
    return encodeURIComponent(String(v));
  });
  // The parameter a detected pager moves is filled by the pager: the first page goes out without it (the site's
  // own first page), so it is never the caller's to give.
  const pagerParam = e.pagination && 'param' in e.pagination ? e.pagination.param : undefined;
  for (const p of e.params) {
    if (p.required && p.in === 'query' && values[p.name] === undefined && e.kind !== 'graphql' && p.name !== pagerParam) {
      // A value seen in recorded traffic is the site's: the error's page text, not our next step.
      throw new BrowserdError('validation_error', 'params: a query parameter the endpoint requires has no value (its name, the endpoint and any value seen are the page text of this error)', {
        next: 'Pass params with a value for that parameter.',
        pageText: `parameter: ${p.name}\n${endpointText(e)}${p.example !== undefined ? `\nseen: ${JSON.stringify(p.example)}` : ''}`,
      });
    }
  }
  const url = new URL(path, e.origin);
  const out: ApiRequest = { method: e.method.toUpperCase(), url: '', headers: { accept: 'application/json', ...headers } };
  if (e.kind === 'graphql') {
    const variables = Object.fromEntries(Object.entries(values).filter(([k]) => !used.has(k)));
    out.body = JSON.stringify(graphqlBody(e, body, variables));
    out.headers['content-type'] = 'application/json';
    if (out.method === 'GET') throw new BrowserdError('validation_error', `endpoint: it was seen as a GraphQL GET, which browser_api_call does not send ${ID_NOTE}`, { next: 'Use the POST form of the operation.', pageText: endpointText(e) });
  } else {
    for (const [k, v] of Object.entries(values)) {
      if (used.has(k)) continue;
      for (const one of Array.isArray(v) ? v : [v]) url.searchParams.append(k, String(one));
    }
    if (body !== undefined) {
      if (out.method === 'GET' || out.method === 'HEAD') throw new BrowserdError('validation_error', `body: ${e.id} is a ${out.method}, which carries no body`, { next: 'Put the values in params (they go into the query).' });
      out.body = JSON.stringify(body);
      out.headers['content-type'] = e.requestBody?.contentType && /json/i.test(e.requestBody.contentType) ? e.requestBody.contentType : 'application/json';
    }
  }
  out.url = url.href;
  return out;
}

/** {query, variables, operationName}: the query from the caller's body, else the one the map saw. */
function graphqlBody(e: ApiEndpoint, body: unknown, variables: Record<string, ParamValue>): Record<string, unknown> {
  const given = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  let query = typeof given.query === 'string' ? given.query : undefined;
  if (!query && e.requestBody?.example) {
    try {
      const seen = JSON.parse(e.requestBody.example) as { query?: unknown };
      if (typeof seen.query === 'string') query = seen.query;
    } catch {
      // An example that is not JSON holds no query.
    }
  }
  if (!query) throw new BrowserdError('validation_error', `body.query is required: the map holds no query text for ${e.id}`, { next: 'Pass body: {"query": "query Name { ... }"}.' });
  const givenVars = given.variables && typeof given.variables === 'object' ? (given.variables as Record<string, unknown>) : {};
  return { query, variables: { ...givenVars, ...variables }, ...(e.operation?.name ? { operationName: e.operation.name } : {}) };
}
