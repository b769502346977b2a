/**
 * buildApiMap: a site's API as seen in a HAR, without a model. Pure: the HAR in, an ApiMap out. Raw values are
 * read only to find structure (ids, pagination cursors, dependencies); everything the map KEEPS (examples) has
 * been through the traffic redactor, and credentials are kept by name only.
 */
import { randomBytes } from 'node:crypto';
import type { ApiAuth, ApiEndpoint, ApiMap, ApiMessage, ApiParam, JsonSchema, ParamIn } from '../../../protocol/api-map.js';
import type { TrafficRedactor } from '../redact.js';
import { readHarEntries, parseJson, type ApiEntry } from './har-input.js';
import { idPositions, templateOf } from './template.js';
import { graphqlCall, type GraphqlCall } from './graphql-op.js';
import { AUTH_QUERY, authOf, headerRole, uniqueAuth } from './request-parts.js';
import { paginationOf } from './pagination.js';
import { dependenciesOf } from './dependencies.js';
import { cutExample, mergedSchema, scalarSchema } from './infer.js';

export interface BuildOptions {
  /** Only these hosts (a host, host:port, or a parent domain). Default: every host in the HAR. */
  hosts?: string[];
  /** Keep redacted examples. Default true. */
  examples?: boolean;
  redactor: TrafficRedactor;
  name?: string;
  id?: string;
  now?: Date;
}

export const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function newApiMapId(): string {
  return `api_${randomBytes(8).toString('hex')}`;
}

interface Group {
  kind: ApiEndpoint['kind'];
  method: string;
  origin: string;
  path: string;
  operation?: { type: GraphqlCall['type']; name: string };
  /** Path parameter names and the segment each is read from. */
  pathParams: { name: string; index: number }[];
  entries: ApiEntry[];
}

const FORM = /x-www-form-urlencoded/i;

/** A body as a JSON value for its schema: JSON parsed, a form as an object of its fields. */
function bodyValue(b: { mimeType: string; text: string } | undefined): unknown {
  if (!b) return undefined;
  const json = parseJson(b.text);
  if (json !== undefined) return json;
  if (FORM.test(b.mimeType)) return Object.fromEntries(new URLSearchParams(b.text));
  return undefined;
}

function mostCommon(values: string[]): string | undefined {
  const n = new Map<string, number>();
  for (const v of values) n.set(v, (n.get(v) ?? 0) + 1);
  return [...n.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
}

const baseType = (mime: string) => mime.split(';')[0]!.trim().toLowerCase();

export function buildApiMap(har: unknown, opts: BuildOptions): ApiMap {
  const r = opts.redactor;
  const examples = opts.examples !== false;
  const { entries, read } = readHarEntries(har, opts.hosts);
  // A query value goes through the redactor the way it is sent: as part of a URL.
  const queryExample = (name: string, value: string) => {
    const u = new URL(r.url(`http://x/?${new URLSearchParams([[name, value]])}`));
    return u.searchParams.get(name) ?? '';
  };

  const ids = idPositions(entries);
  const groups = new Map<string, Group>();
  for (const e of entries) {
    const { path, params } = templateOf(e, ids.get(e)!);
    const gql = graphqlCall(e);
    const origin = e.url.origin;
    const key = gql ? `graphql ${gql.type} ${gql.name} ${origin}${e.url.pathname}` : `${e.kind} ${e.method} ${origin}${path}`;
    let g = groups.get(key);
    if (!g) {
      g = gql
        ? { kind: 'graphql', method: e.method, origin, path: e.url.pathname, operation: { type: gql.type, name: gql.name }, pathParams: [], entries: [] }
        : { kind: e.kind, method: e.kind === 'http' ? e.method : 'GET', origin, path, pathParams: params, entries: [] };
      groups.set(key, g);
    }
    g.entries.push(e);
  }

  // Ids are short ("GET /items/{id}"); where two origins share one, the origin makes them unique.
  const baseId = (g: Group) =>
    g.kind === 'graphql' ? `graphql ${g.operation!.type} ${g.operation!.name}` : g.kind === 'websocket' ? `WS ${g.path}` : g.kind === 'eventsource' ? `SSE ${g.path}` : `${g.method} ${g.path}`;
  const counts = new Map<string, number>();
  for (const g of groups.values()) counts.set(baseId(g), (counts.get(baseId(g)) ?? 0) + 1);
  const idOf = new Map<Group, string>();
  for (const g of groups.values()) {
    const b = baseId(g);
    idOf.set(g, counts.get(b)! > 1 ? (g.kind === 'graphql' ? `${b} (${new URL(g.origin).host})` : b.replace(' /', ` ${g.origin}/`)) : b);
  }
  const endpointOf = new Map<ApiEntry, string>();
  for (const g of groups.values()) for (const e of g.entries) endpointOf.set(e, idOf.get(g)!);
  const deps = dependenciesOf(entries, endpointOf);

  const endpoints: ApiEndpoint[] = [];
  for (const g of groups.values()) {
    const id = idOf.get(g)!;
    const n = g.entries.length;
    const params: ApiParam[] = [];
    const addParam = (name: string, where: ParamIn, values: string[], present: number, example: (v: string) => string) => {
      const p: ApiParam = { name, in: where, schema: scalarSchema(values), required: present === n };
      if (examples && values.length) p.example = cutExample(example(values[0]!));
      params.push(p);
    };
    for (const pp of g.pathParams) addParam(pp.name, 'path', g.entries.map((e) => e.segments[pp.index]!), n, (v) => r.text(v));
    const queryNames = [...new Set(g.entries.flatMap((e) => e.query.map(([q]) => q)))].filter((q) => !AUTH_QUERY.test(q));
    for (const q of queryNames) {
      const values = g.entries.flatMap((e) => e.url.searchParams.getAll(q));
      addParam(q, 'query', values, g.entries.filter((e) => e.url.searchParams.has(q)).length, (v) => queryExample(q, v));
    }
    const headerNames = new Map<string, string>();
    for (const e of g.entries) for (const [h] of e.headers) if (headerRole(h) === 'param' && !headerNames.has(h.toLowerCase())) headerNames.set(h.toLowerCase(), h);
    for (const [lower, h] of headerNames) {
      const values = g.entries.flatMap((e) => e.headers.filter(([x]) => x.toLowerCase() === lower).map(([, v]) => v));
      addParam(h, 'header', values, g.entries.filter((e) => e.headers.some(([x]) => x.toLowerCase() === lower)).length, (v) => r.header(h, v));
    }

    const ep: ApiEndpoint = {
      id,
      kind: g.kind,
      method: g.method,
      origin: g.origin,
      path: g.path,
      ...(g.operation ? { operation: g.operation } : {}),
      write: WRITE_METHODS.has(g.method) && g.kind === 'http' ? true : g.operation?.type === 'mutation',
      params,
      responses: [],
      auth: uniqueAuth(g.entries.flatMap(authOf) as ApiAuth[]),
      dependencies: deps.get(id) ?? [],
      seen: n,
    };
    if (g.kind === 'graphql' && g.method !== 'GET') ep.write = g.operation!.type === 'mutation';

    const withBody = g.entries.filter((e) => e.requestBody && g.kind !== 'websocket');
    if (withBody.length && g.method !== 'GET') {
      const contentType = mostCommon(withBody.map((e) => baseType(e.requestBody!.mimeType))) ?? '';
      const schema = mergedSchema(withBody.map((e) => bodyValue(e.requestBody)));
      ep.requestBody = { contentType, schema: schema ?? { type: 'string' } };
      if (examples) ep.requestBody.example = cutExample(r.body(withBody[0]!.requestBody!.text, withBody[0]!.requestBody!.mimeType));
    }

    const byStatus = new Map<number, ApiEntry[]>();
    for (const e of g.entries) byStatus.set(e.status, [...(byStatus.get(e.status) ?? []), e]);
    for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
      const bodies = list.filter((e) => e.responseBody);
      const resp: ApiEndpoint['responses'][number] = { status };
      const contentType = mostCommon(bodies.map((e) => baseType(e.responseBody!.mimeType)).filter(Boolean));
      if (contentType) resp.contentType = contentType;
      const schema = g.kind === 'eventsource' ? undefined : mergedSchema(bodies.map((e) => parseJson(e.responseBody!.text)));
      if (schema) resp.schema = schema;
      const first = bodies.find((e) => parseJson(e.responseBody!.text) !== undefined) ?? bodies[0];
      if (examples && first && g.kind !== 'eventsource') resp.example = cutExample(r.body(first.responseBody!.text, first.responseBody!.mimeType));
      ep.responses.push(resp);
    }

    if (g.kind === 'http') {
      const pagination = paginationOf(g.entries);
      if (pagination) ep.pagination = pagination;
    }

    if (g.kind === 'websocket' || g.kind === 'eventsource') {
      const messages: ApiMessage[] = [];
      for (const direction of ['send', 'receive'] as const) {
        const list = g.entries.flatMap((e) => e.messages.filter((m) => m.direction === direction));
        if (!list.length) continue;
        const m: ApiMessage = { direction, count: list.length };
        const schema = mergedSchema(list.map((x) => parseJson(x.data)));
        if (schema) m.schema = schema as JsonSchema;
        if (examples) m.example = cutExample(r.message(list[0]!.data));
        messages.push(m);
      }
      ep.messages = messages;
    }
    endpoints.push(ep);
  }
  endpoints.sort((a, b) => a.origin.localeCompare(b.origin) || a.path.localeCompare(b.path) || a.id.localeCompare(b.id));

  const now = (opts.now ?? new Date()).toISOString();
  const hosts = opts.hosts?.length ? [...new Set(opts.hosts.map((h) => h.toLowerCase()))] : [...new Set(endpoints.map((e) => new URL(e.origin).host))].sort();
  return {
    id: opts.id ?? newApiMapId(),
    name: opts.name ?? (hosts.length ? `API of ${hosts.join(', ')}`.slice(0, 200) : 'API map'),
    hosts,
    endpoints,
    createdAt: now,
    updatedAt: now,
    entries: read,
  };
}
