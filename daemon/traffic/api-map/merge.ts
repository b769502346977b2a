/**
 * mergeApiMaps: a map learned from more traffic. Endpoints with the same id become one: parameters united
 * (required only when required on both sides), schemas merged by genson-js, responses by status, auth and
 * dependencies united, message counts added. The first map keeps its id, name, creation time and examples.
 */
import type { ApiEndpoint, ApiMap, ApiMessage, ApiParam } from '../../../protocol/api-map.js';
import { mergeTwo } from './infer.js';
import { uniqueAuth } from './request-parts.js';

function mergeParams(a: ApiParam[], b: ApiParam[]): ApiParam[] {
  const key = (p: ApiParam) => `${p.in} ${p.in === 'header' ? p.name.toLowerCase() : p.name}`;
  const out = new Map<string, ApiParam>();
  for (const p of a) out.set(key(p), { ...p, required: p.required && b.some((q) => key(q) === key(p)) });
  for (const p of b) {
    const had = out.get(key(p));
    if (!had) out.set(key(p), { ...p, required: false });
    else if (JSON.stringify(had.schema) !== JSON.stringify(p.schema)) {
      // integer and number meet at number; anything else disagreeing is a string.
      const types = new Set([had.schema.type, p.schema.type]);
      out.set(key(p), { ...had, schema: types.size === 2 && types.has('integer') && types.has('number') ? { type: 'number' } : { type: 'string' } });
    }
  }
  return [...out.values()];
}

function mergeMessages(a: ApiMessage[] | undefined, b: ApiMessage[] | undefined): ApiMessage[] | undefined {
  if (!a && !b) return undefined;
  const out = new Map<string, ApiMessage>();
  for (const m of [...(a ?? []), ...(b ?? [])]) {
    const had = out.get(m.direction);
    out.set(m.direction, had ? { ...had, count: had.count + m.count, schema: mergeTwo(had.schema, m.schema), ...(had.example ?? m.example ? { example: had.example ?? m.example } : {}) } : { ...m });
  }
  return [...out.values()];
}

export function mergeEndpoints(a: ApiEndpoint, b: ApiEndpoint): ApiEndpoint {
  const responses = new Map(a.responses.map((r) => [r.status, { ...r }]));
  for (const r of b.responses) {
    const had = responses.get(r.status);
    if (!had) responses.set(r.status, { ...r });
    else {
      const schema = mergeTwo(had.schema, r.schema);
      responses.set(r.status, { ...had, contentType: had.contentType ?? r.contentType, ...(schema ? { schema } : {}), ...(had.example ?? r.example ? { example: had.example ?? r.example } : {}) });
    }
  }
  const deps = new Map([...a.dependencies, ...b.dependencies].map((d) => [`${d.target.in} ${d.target.name}`, d]));
  const out: ApiEndpoint = {
    ...a,
    write: a.write || b.write,
    params: mergeParams(a.params, b.params),
    responses: [...responses.values()].sort((x, y) => x.status - y.status),
    auth: uniqueAuth([...a.auth, ...b.auth]),
    dependencies: [...deps.values()],
    seen: a.seen + b.seen,
  };
  const body = a.requestBody ?? b.requestBody;
  if (a.requestBody && b.requestBody) out.requestBody = { ...a.requestBody, schema: mergeTwo(a.requestBody.schema, b.requestBody.schema)!, ...(a.requestBody.example ?? b.requestBody.example ? { example: a.requestBody.example ?? b.requestBody.example } : {}) };
  else if (body) out.requestBody = body;
  const pagination = a.pagination ?? b.pagination;
  if (pagination) out.pagination = pagination;
  const messages = mergeMessages(a.messages, b.messages);
  if (messages) out.messages = messages;
  return out;
}

export function mergeApiMaps(a: ApiMap, b: ApiMap, now = new Date()): ApiMap {
  const byId = new Map(a.endpoints.map((e) => [e.id, e]));
  for (const e of b.endpoints) {
    const had = byId.get(e.id);
    byId.set(e.id, had ? mergeEndpoints(had, e) : e);
  }
  const endpoints = [...byId.values()].sort((x, y) => x.origin.localeCompare(y.origin) || x.path.localeCompare(y.path) || x.id.localeCompare(y.id));
  return {
    ...a,
    hosts: [...new Set([...a.hosts, ...b.hosts])].sort(),
    endpoints,
    updatedAt: now.toISOString(),
    entries: a.entries + b.entries,
  };
}
