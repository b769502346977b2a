/**
 * OpenAPI 3.1 export of an API map. The map's schemas are JSON Schema, OpenAPI 3.1's own dialect, so they go
 * in as they are. OpenAPI has one operation per path and method, so endpoints that share both (GraphQL
 * operations on POST /graphql, one path on two origins) become one operation that lists them in extensions
 * (`x-graphql-operations`, operation `servers`). Auth is by scheme only: securitySchemes name the header,
 * cookie or parameter, and examples are dropped wherever a secret could sit.
 */
import type { ApiAuth, ApiEndpoint, ApiMap, ApiParam, JsonSchema } from '../../../protocol/api-map.js';
import { trafficRedactor } from '../redact.js';
import { dependencyEnv, httpOrigin, isSecretParam, paginationNote, safeExample } from './export-request.js';

const redactor = trafficRedactor([]);

/** OpenAPI ignores these as header parameters (they are content negotiation or security schemes). */
const RESERVED_HEADER = /^(accept|content-type|authorization|cookie)$/i;

/** Component keys allow [A-Za-z0-9._-]. */
const componentKey = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '_');

export function securitySchemeName(a: ApiAuth): string {
  if (a.kind === 'bearer') return 'bearerAuth';
  if (a.kind === 'basic') return 'basicAuth';
  return componentKey(`${a.kind}_${a.name}`);
}

function securityScheme(a: ApiAuth): Record<string, unknown> {
  if (a.kind === 'bearer') return { type: 'http', scheme: 'bearer', description: `Bearer token in ${a.name}.` };
  if (a.kind === 'basic') return { type: 'http', scheme: 'basic' };
  return { type: 'apiKey', in: a.kind === 'query' ? 'query' : a.kind, name: a.name };
}

/** A JSON example as data when it parses, redacted either way. */
function exampleValue(text: string | undefined, contentType: string | undefined): unknown {
  if (text === undefined) return undefined;
  const redacted = redactor.body(text, contentType);
  try {
    return JSON.parse(redacted);
  } catch {
    return redacted;
  }
}

function cleanSchema(schema: JsonSchema | undefined): JsonSchema {
  if (!schema) return {};
  // A schema's own $schema (genson may name draft-07) would switch the dialect inside an OpenAPI document.
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

function parameter(p: ApiParam, ep: ApiEndpoint): Record<string, unknown> {
  const ex = safeExample(p, ep);
  return {
    name: p.name,
    in: p.in,
    required: p.in === 'path' ? true : p.required,
    schema: cleanSchema(p.schema),
    ...(ex !== undefined ? { example: ex } : {}),
  };
}

function operationOf(group: ApiEndpoint[], opId: string, ids: Map<string, string>, multiOrigin: boolean): Record<string, unknown> {
  const primary = group.find((e) => e.kind === 'http') ?? group[0]!;
  const op: Record<string, unknown> = { operationId: opId };
  const kinds = group.map((e) => e.id);
  op.summary = group.length === 1 ? primary.id : `${primary.method.toUpperCase()} ${primary.path} (${group.length} endpoints)`;
  const notes = [group.some((e) => e.write) ? 'Writes: changes data on the site.' : 'Read only.'];
  const pages = paginationNote(primary);
  if (pages) notes.push(`Pagination: ${pages}.`);
  notes.push(`Seen ${group.reduce((n, e) => n + e.seen, 0)} times in recorded traffic.`);
  op.description = notes.join(' ');

  // Parameters: union over the group by (in, name); secrets by scheme only, template names always declared.
  const params = new Map<string, Record<string, unknown>>();
  for (const ep of group) {
    for (const p of ep.params) {
      if (p.in === 'header' && RESERVED_HEADER.test(p.name)) continue;
      if (p.in !== 'path' && ep.auth.some((a) => a.name.toLowerCase() === p.name.toLowerCase())) continue;
      const key = `${p.in}:${p.name}`;
      if (params.has(key)) continue;
      const param = parameter(p, ep);
      if (isSecretParam(p, ep)) delete param.example;
      if (ep !== primary && p.in !== 'path') param.required = false;
      params.set(key, param);
    }
  }
  for (const name of [...primary.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!)) {
    if (!params.has(`path:${name}`)) params.set(`path:${name}`, { name, in: 'path', required: true, schema: { type: 'string' } });
  }
  for (const [key, p] of params) if (key.startsWith('path:') && !primary.path.includes(`{${p.name as string}}`)) params.delete(key);
  const sorted = [...params.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, p]) => p);
  if (sorted.length) op.parameters = sorted;

  const bodies = group.filter((e) => e.requestBody);
  if (bodies.length) {
    const content: Record<string, Record<string, unknown>> = {};
    for (const ep of bodies) {
      const b = ep.requestBody!;
      const media = (content[b.contentType] ??= { schemas: [] as JsonSchema[], examples: {} as Record<string, unknown> });
      (media.schemas as JsonSchema[]).push(cleanSchema(b.schema));
      const ex = exampleValue(b.example, b.contentType);
      if (ex !== undefined) (media.examples as Record<string, unknown>)[componentKey(ep.operation?.name ?? ids.get(ep.id)!)] = { summary: ep.id, value: ex };
    }
    op.requestBody = {
      required: true,
      content: Object.fromEntries(Object.entries(content).sort(([a], [b]) => a.localeCompare(b)).map(([type, m]) => {
        const schemas = m.schemas as JsonSchema[];
        const examples = m.examples as Record<string, unknown>;
        return [type, { schema: schemas.length === 1 ? schemas[0] : { oneOf: schemas }, ...(Object.keys(examples).length ? { examples } : {}) }];
      })),
    };
  }

  const responses: Record<string, { description: string; content?: Record<string, Record<string, unknown>> }> = {};
  for (const ep of group) {
    for (const r of [...ep.responses].sort((a, b) => a.status - b.status)) {
      const res = (responses[String(r.status)] ??= { description: `HTTP ${r.status} as seen.` });
      if (!r.contentType && !r.schema) continue;
      const type = r.contentType ?? 'application/json';
      res.content ??= {};
      if (res.content[type]) continue;
      const ex = exampleValue(r.example, r.contentType);
      res.content[type] = { schema: cleanSchema(r.schema), ...(ex !== undefined ? { example: ex } : {}) };
    }
  }
  for (const ep of group) {
    if (ep.kind === 'websocket' && !responses['101']) responses['101'] = { description: 'Switching Protocols: the WebSocket opens (see x-websocket).' };
    if (ep.kind === 'eventsource' && !responses['200']) responses['200'] = { description: 'An event stream (see x-eventsource).', content: { 'text/event-stream': { schema: { type: 'string' } } } };
  }
  op.responses = Object.keys(responses).length ? Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b))) : { default: { description: 'No response was recorded.' } };

  const auth = new Map<string, ApiAuth>();
  for (const ep of group) for (const a of ep.auth) auth.set(securitySchemeName(a), a);
  if (auth.size) op.security = [Object.fromEntries([...auth.keys()].sort().map((k) => [k, []]))];
  if (multiOrigin) op.servers = [...new Set(group.map((e) => httpOrigin(e.origin)))].sort().map((url) => ({ url }));

  const graphql = group.filter((e) => e.kind === 'graphql');
  if (graphql.length) {
    op['x-graphql-operations'] = graphql.map((e) => ({ endpoint: e.id, type: e.operation?.type ?? 'query', name: e.operation?.name ?? '', write: e.write }));
  }
  for (const ep of group) {
    const messages = (ep.messages ?? []).map((m) => ({ direction: m.direction, count: m.count, ...(m.schema ? { schema: cleanSchema(m.schema) } : {}), ...(m.example !== undefined ? { example: redactor.message(m.example) } : {}) }));
    if (ep.kind === 'websocket') op['x-websocket'] = { url: `${ep.origin.replace(/^http/i, 'ws')}${ep.path}`, messages };
    if (ep.kind === 'eventsource') op['x-eventsource'] = { url: `${httpOrigin(ep.origin)}${ep.path}`, messages };
  }
  if (primary.pagination) op['x-pagination'] = primary.pagination;
  const deps = group.flatMap((e) => e.dependencies);
  if (deps.length) op['x-dependencies'] = deps.map((d) => ({ ...d, env: dependencyEnv(d), sourceOperationId: ids.get(d.source.endpoint) ?? null }));
  op['x-browserd-endpoints'] = kinds;
  return op;
}

/** operationId from an endpoint id: letters, digits and underscores, camel-free and unique. */
function operationIds(groups: ApiEndpoint[][]): { byGroup: string[]; byEndpoint: Map<string, string> } {
  const used = new Set<string>();
  const byEndpoint = new Map<string, string>();
  const byGroup = groups.map((g) => {
    const e = g[0]!;
    const src = g.length === 1 ? e.id : `${e.method} ${e.path}`;
    let base = src.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '') || 'operation';
    if (/^[0-9]/.test(base)) base = `op_${base}`;
    let id = base;
    for (let n = 2; used.has(id); n++) id = `${base}_${n}`;
    used.add(id);
    for (const ep of g) byEndpoint.set(ep.id, id);
    return id;
  });
  return { byGroup, byEndpoint };
}

export function exportOpenApi(map: ApiMap, endpoints: ApiEndpoint[]): string {
  const origins = [...new Set(endpoints.map((e) => httpOrigin(e.origin)))].sort();
  const byKey = new Map<string, ApiEndpoint[]>();
  for (const ep of endpoints) {
    const method = ep.kind === 'websocket' || ep.kind === 'eventsource' ? 'get' : ep.method.toLowerCase();
    const key = `${ep.path}\u0000${method}`;
    byKey.set(key, [...(byKey.get(key) ?? []), ep]);
  }
  const keys = [...byKey.keys()].sort();
  const groups = keys.map((k) => byKey.get(k)!);
  const ids = operationIds(groups);
  const paths: Record<string, Record<string, unknown>> = {};
  keys.forEach((key, i) => {
    const [path, method] = key.split('\u0000') as [string, string];
    (paths[path] ??= {})[method] = operationOf(groups[i]!, ids.byGroup[i]!, ids.byEndpoint, origins.length > 1);
  });
  const schemes = new Map<string, Record<string, unknown>>();
  for (const ep of endpoints) for (const a of ep.auth) schemes.set(securitySchemeName(a), securityScheme(a));
  const doc = {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: map.name,
      version: map.updatedAt,
      description: `Learned by browserd from ${map.entries} recorded requests (map ${map.id}) covering ${map.hosts.join(', ') || 'no hosts'}. Schemas and examples are as seen, with secrets removed.`,
    },
    servers: origins.map((url) => ({ url })),
    paths,
    ...(schemes.size ? { components: { securitySchemes: Object.fromEntries([...schemes.entries()].sort(([a], [b]) => a.localeCompare(b))) } } : {}),
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}
