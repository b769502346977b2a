/**
 * One example request per endpoint, shared by the HAR, curl, Python and TypeScript exports. Every secret is an
 * environment placeholder, never a value: the map's examples have been redacted once already, but an export is
 * a file that leaves the daemon, so auth, cookies, secret-looking names, dependency targets and anything the
 * redactor hid are replaced again here by name (API_TOKEN, COOKIE_SID, CSRF_TOKEN ...).
 */
import type { ApiDependency, ApiEndpoint, ApiMap, ApiParam, JsonSchema } from '../../../protocol/api-map.js';
import { SECRET_PARAM } from '../../call/redact.js';
import { CREDENTIAL_HEADER, REDACTED, SECRET_KEY, trafficRedactor } from '../redact.js';

/** How a placeholder is written into the request: `$API_TOKEN` in a HAR, a sentinel the snippet writers rewrite. */
export type Placeholder = (env: string) => string;

export interface EnvUse {
  env: string;
  /** Where the value goes and where to get it, for the comment above a snippet. */
  why: string;
}

export interface NameValue {
  name: string;
  value: string;
}

export interface ExampleRequest {
  method: string;
  /** Full URL with the path filled and the query string. */
  url: string;
  /** Origin-relative path with the path parameters filled. */
  path: string;
  query: NameValue[];
  headers: NameValue[];
  cookies: NameValue[];
  body?: { mimeType: string; text: string };
  env: EnvUse[];
}

/** Environment-variable style name: X-CSRF-Token -> X_CSRF_TOKEN. */
export function envName(s: string): string {
  return s.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').toUpperCase() || 'VALUE';
}

/** Headers a client sets itself or that only describe the recording browser: never part of an example. */
const CLIENT_HEADER = /^(host|content-length|content-type|cookie|connection|accept-encoding|user-agent|origin|referer|upgrade|te|trailer|transfer-encoding|keep-alive|priority|pragma|cache-control|sec-.*|:.*)$/i;

const redactor = trafficRedactor([]);

/** The env name of each header/query API key in the map: API_KEY when the map has one, else API_KEY_<NAME>. */
export function apiKeyEnv(map: Pick<ApiMap, 'endpoints'>): (name: string) => string {
  const names = new Set<string>();
  for (const e of map.endpoints) for (const a of e.auth) if (a.kind === 'header' || a.kind === 'query') names.add(a.name.toLowerCase());
  return (name) => (names.size <= 1 ? 'API_KEY' : `API_KEY_${envName(name)}`);
}

export function dependencyEnv(d: ApiDependency): string {
  return /csrf|xsrf/i.test(d.target.name) ? 'CSRF_TOKEN' : envName(d.target.name);
}

export function dependencyWhy(d: ApiDependency, env: string): string {
  const where = d.source.in === 'body' ? `body ${d.source.path}` : `${d.source.in} ${d.source.path}`;
  return `$${env} (${d.target.in} ${d.target.name}) comes from the response of "${d.source.endpoint}", ${where}`;
}

/** A query, header or path parameter whose value is a secret by its name or by being auth. */
export function isSecretParam(p: Pick<ApiParam, 'name' | 'in'>, ep: Pick<ApiEndpoint, 'auth'>): boolean {
  if (p.in === 'cookie') return true;
  if (ep.auth.some((a) => a.name.toLowerCase() === p.name.toLowerCase() && (a.kind === p.in || (p.in === 'header' && (a.kind === 'bearer' || a.kind === 'basic'))))) return true;
  if (p.in === 'header') return CREDENTIAL_HEADER.test(p.name);
  return SECRET_PARAM.test(p.name) || SECRET_KEY.test(p.name);
}

/** An example a reader may see: none when it is the redactor's mark. */
export function safeExample(p: ApiParam, ep: ApiEndpoint): string | undefined {
  if (p.example === undefined || isSecretParam(p, ep)) return undefined;
  const v = redactor.text(p.example);
  return v.includes(REDACTED) ? undefined : v;
}

/** A value that fits a schema, for a body the map has a schema but no example for. */
export function sampleOf(schema: JsonSchema | undefined, depth = 0): unknown {
  if (!schema || depth > 8) return null;
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((t) => t !== 'null') : (schema.type as string | undefined);
  if (type === 'object') {
    const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
    return Object.fromEntries(Object.keys(props).sort().map((k) => [k, sampleOf(props[k], depth + 1)]));
  }
  if (type === 'array') return [sampleOf(schema.items as JsonSchema | undefined, depth + 1)].filter((x) => x !== null);
  if (type === 'integer' || type === 'number') return 0;
  if (type === 'boolean') return false;
  if (type === 'string') return '';
  const alt = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  return alt?.length ? sampleOf(alt[0], depth + 1) : null;
}

/** JSON example body: redacted, every hidden value and every body dependency an env placeholder. */
function jsonBody(value: unknown, deps: ApiDependency[], ph: Placeholder, use: (env: string, why: string) => void): unknown {
  const walk = (v: unknown, key: string, pointer: string): unknown => {
    const dep = deps.find((d) => d.target.in === 'body' && (d.target.name === pointer || d.target.name === key));
    if (dep && (v === null || typeof v !== 'object')) {
      const env = dependencyEnv(dep);
      use(env, dependencyWhy(dep, env));
      return ph(env);
    }
    if (Array.isArray(v)) return v.map((x, i) => walk(x, key, `${pointer}/${i}`));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`)]));
    if (typeof v === 'string' && v.includes(REDACTED)) {
      const env = envName(key || 'secret');
      use(env, `body field "${key}" is a secret: set it yourself`);
      return ph(env);
    }
    return v;
  };
  return walk(value, '', '');
}

/** The endpoint's origin for an HTTP client: ws(s) becomes http(s) (the upgrade request). */
export function httpOrigin(origin: string): string {
  return origin.replace(/^ws(s?):/i, 'http$1:');
}

/** Fill the path template: dependency placeholder, a safe example, else the template's own `{name}`. */
export function filledPath(ep: ApiEndpoint, ph: Placeholder, use: (env: string, why: string) => void): string {
  return ep.path.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const dep = ep.dependencies.find((d) => d.target.in === 'path' && d.target.name === name);
    if (dep) {
      const env = dependencyEnv(dep);
      use(env, dependencyWhy(dep, env));
      return ph(env);
    }
    const p = ep.params.find((x) => x.in === 'path' && x.name === name);
    const ex = p && safeExample(p, ep);
    return ex !== undefined ? encodeURIComponent(ex) : whole;
  });
}

export function exampleRequest(map: Pick<ApiMap, 'endpoints'>, ep: ApiEndpoint, ph: Placeholder): ExampleRequest {
  const env: EnvUse[] = [];
  const use = (name: string, why: string) => {
    if (!env.some((e) => e.env === name && e.why === why)) env.push({ env: name, why });
  };
  const keyEnv = apiKeyEnv(map);
  const headers: NameValue[] = [];
  const cookies: NameValue[] = [];
  const query: NameValue[] = [];

  for (const a of ep.auth) {
    if (a.kind === 'bearer') {
      use('API_TOKEN', `bearer token for the ${a.name} header`);
      headers.push({ name: a.name, value: `Bearer ${ph('API_TOKEN')}` });
    } else if (a.kind === 'basic') {
      use('API_BASIC_AUTH', `base64 of user:password for the ${a.name} header`);
      headers.push({ name: a.name, value: `Basic ${ph('API_BASIC_AUTH')}` });
    } else if (a.kind === 'cookie') {
      const e = `COOKIE_${envName(a.name)}`;
      use(e, `value of the ${a.name} cookie (sign in with the browser and copy it)`);
      cookies.push({ name: a.name, value: ph(e) });
    } else {
      const e = keyEnv(a.name);
      use(e, `API key for the ${a.name} ${a.kind === 'header' ? 'header' : 'query parameter'}`);
      (a.kind === 'header' ? headers : query).push({ name: a.name, value: ph(e) });
    }
  }
  const has = (list: NameValue[], name: string) => list.some((x) => x.name.toLowerCase() === name.toLowerCase());

  for (const d of ep.dependencies) {
    if (d.target.in !== 'header' && d.target.in !== 'query') continue;
    const list = d.target.in === 'header' ? headers : query;
    if (has(list, d.target.name)) continue;
    const e = dependencyEnv(d);
    use(e, dependencyWhy(d, e));
    list.push({ name: d.target.name, value: ph(e) });
  }

  const params = [...ep.params].sort((a, b) => a.in.localeCompare(b.in) || a.name.localeCompare(b.name));
  for (const p of params) {
    if (p.in === 'path') continue;
    if (p.in === 'cookie') {
      if (has(cookies, p.name)) continue;
      const e = `COOKIE_${envName(p.name)}`;
      use(e, `value of the ${p.name} cookie`);
      cookies.push({ name: p.name, value: ph(e) });
      continue;
    }
    const list = p.in === 'header' ? headers : query;
    if (has(list, p.name) || (p.in === 'header' && CLIENT_HEADER.test(p.name))) continue;
    if (isSecretParam(p, ep)) {
      const e = envName(p.name);
      use(e, `secret ${p.in === 'header' ? 'header' : 'query parameter'} ${p.name}`);
      list.push({ name: p.name, value: ph(e) });
      continue;
    }
    const pageStart = ep.pagination?.style === 'page' && ep.pagination.param === p.name ? String(ep.pagination.start) : undefined;
    const value = safeExample(p, ep) ?? pageStart ?? (p.required ? `{${p.name}}` : undefined);
    if (value !== undefined) list.push({ name: p.name, value });
  }

  let body: ExampleRequest['body'];
  if (ep.requestBody) {
    const { contentType, schema, example } = ep.requestBody;
    const isJson = /json/i.test(contentType);
    if (isJson) {
      let value: unknown;
      try {
        value = example !== undefined ? JSON.parse(redactor.body(example, contentType)) : sampleOf(schema);
      } catch {
        value = sampleOf(schema);
      }
      body = { mimeType: contentType, text: JSON.stringify(jsonBody(value, ep.dependencies, ph, use)) };
    } else if (example !== undefined) {
      body = { mimeType: contentType, text: redactor.body(example, contentType).split(REDACTED).join(ph('SECRET')) };
      if (body.text.includes(ph('SECRET'))) use('SECRET', 'a field of the body the recording hid');
    }
    if (body) headers.push({ name: 'Content-Type', value: contentType });
  }
  if (ep.kind === 'eventsource' && !has(headers, 'accept')) headers.push({ name: 'Accept', value: 'text/event-stream' });

  const path = filledPath(ep, ph, use);
  const qs = query.map((q) => `${encodeURIComponent(q.name)}=${encodeURIComponent(q.value)}`).join('&');
  return { method: ep.method.toUpperCase(), url: `${httpOrigin(ep.origin)}${path}${qs ? `?${qs}` : ''}`, path, query, headers, cookies, body, env };
}

/** One line on how the endpoint pages, for comments and descriptions. */
export function paginationNote(ep: ApiEndpoint): string | undefined {
  const p = ep.pagination;
  if (!p) return undefined;
  switch (p.style) {
    case 'page':
      return `pages by page number: query "${p.param}" from ${p.start}`;
    case 'offset':
      return `pages by offset: query "${p.param}"${p.limitParam ? `, size in "${p.limitParam}"` : ''}${p.pageSize ? ` (${p.pageSize} per page)` : ''}`;
    case 'cursor':
      return `pages by cursor: query "${p.param}" takes the response's ${p.from}`;
    case 'next_link':
      return p.from === 'header:link' ? 'pages by the Link rel="next" header' : `pages by the next URL at ${p.from} in the response`;
  }
}

/** Comment lines above one endpoint's snippet: what it is, read or write, pagination, the env it needs. */
export function headerLines(ep: ApiEndpoint, req: ExampleRequest): string[] {
  const lines = [`${ep.id} — ${ep.write ? 'WRITE: changes data on the site' : 'read'}${ep.operation ? ` (GraphQL ${ep.operation.type} ${ep.operation.name})` : ''}`];
  const pages = paginationNote(ep);
  if (pages) lines.push(`Pagination: ${pages}.`);
  for (const e of req.env) lines.push(e.why.startsWith('$') ? e.why : `$${e.env}: ${e.why}`);
  if (/\{[^}]+\}/.test(req.path)) lines.push('Replace each {name} in the path with a value.');
  return lines;
}
