/**
 * TypeScript export: interfaces for request bodies, responses and messages (json-schema-to-typescript from the
 * map's schemas) and one typed fetch helper per HTTP endpoint (path, query, body), reading secrets from
 * process.env. Everything recorded from a site is written as a JSON string literal or a sanitised comment,
 * so no recorded text can become code.
 */
import type { ApiEndpoint, ApiMap, ApiParam, JsonSchema } from '../../../protocol/api-map.js';
import { trafficRedactor } from '../redact.js';
import { dependencyEnv, exampleRequest, headerLines, httpOrigin, isSecretParam } from './export-request.js';

const redactor = trafficRedactor([]);
const lit = (s: string) => JSON.stringify(s);
/** Text for a comment: no line breaks, no comment end. */
const commentText = (s: string) => s.replace(/[\r\n\u2028\u2029]+/g, ' ').replace(/\*\//g, '* /');

function pascal(s: string): string {
  const p = s.replace(/[{}]/g, '').split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
  return /^[A-Za-z]/.test(p) ? p : `Api${p}`;
}

function stripForTypes(schema: JsonSchema): JsonSchema {
  // Titles would name nested interfaces after page text and collide across endpoints; $schema is noise here.
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(([k]) => k !== 'title' && k !== '$schema' && k !== '$id').map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(schema) as JsonSchema;
}

async function typeOf(schema: JsonSchema | undefined, name: string, out: string[]): Promise<string | undefined> {
  if (!schema || !Object.keys(schema).length) return undefined;
  // Loaded with the first TypeScript export, not with the daemon.
  const { compile } = await import('json-schema-to-typescript');
  const ts = await compile(stripForTypes(structuredClone(schema)) as never, name, { bannerComment: '', additionalProperties: false, format: false, strictIndexSignatures: true, declareExternallyReferenced: true });
  out.push(ts.trim());
  return name;
}

function paramType(p: ApiParam): string {
  const t = Array.isArray(p.schema.type) ? (p.schema.type as string[]).find((x) => x !== 'null') : p.schema.type;
  if (t === 'integer' || t === 'number') return 'number';
  if (t === 'boolean') return 'boolean';
  return 'string';
}

const isJson = (ct: string | undefined) => /json/i.test(ct ?? '');

const RUNTIME = `/** A secret from the environment; never written into this file. */
function env(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(\`Set \${name} in the environment\`);
  return value;
}

function withQuery(url: URL, query: Record<string, string | number | boolean | undefined>): URL {
  for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
  return url;
}

async function send(method: string, url: URL, headers: Record<string, string>, body: unknown, json: boolean): Promise<unknown> {
  const init: RequestInit = { method, headers };
  if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body);
  const res = await fetch(url, init);
  if (!res.ok) throw new Error(\`\${method} \${url.pathname}: HTTP \${res.status}\`);
  return json ? res.json() : res.text();
}`;

async function endpointCode(map: ApiMap, ep: ApiEndpoint, fn: string, types: string[]): Promise<string> {
  const base = pascal(fn);
  const req = exampleRequest(map, ep, (e) => `\u0000${e}\u0000`);
  const doc = ['/**', ...headerLines(ep, req).map((l) => ` * ${commentText(l)}`), ' */'].join('\n');
  const ok = [...ep.responses].sort((a, b) => a.status - b.status).find((r) => r.status < 300 && r.schema);
  if (ep.kind === 'websocket' || ep.kind === 'eventsource') {
    const lines = [doc, `export const ${fn}Url = ${lit(`${ep.kind === 'websocket' ? ep.origin.replace(/^http/i, 'ws') : httpOrigin(ep.origin)}${ep.path}`)};`];
    for (const dir of ['send', 'receive'] as const) {
      const m = (ep.messages ?? []).find((x) => x.direction === dir && x.schema);
      if (m) await typeOf(m.schema, `${base}${dir === 'send' ? 'Sent' : 'Received'}Message`, types);
    }
    return lines.join('\n');
  }
  const reqType = ep.requestBody && isJson(ep.requestBody.contentType) ? await typeOf(ep.requestBody.schema, `${base}Request`, types) : undefined;
  const resType = ok && isJson(ok.contentType ?? 'application/json') ? await typeOf(ok.schema, `${base}Response`, types) : undefined;
  const returns = resType ?? (ok && !isJson(ok.contentType) ? 'string' : 'unknown');

  // Parameters the caller gives: path (required), query and plain headers; secrets come from env instead.
  const pathNames = [...ep.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const depTargets = new Set(ep.dependencies.map((d) => `${d.target.in}:${d.target.name}`));
  const given = ep.params.filter((p) => p.in !== 'cookie' && p.in !== 'path' && !isSecretParam(p, ep) && !depTargets.has(`${p.in}:${p.name}`) && (p.in === 'query' || !/^(accept|content-type|content-length|host|user-agent|origin|referer|sec-.*|accept-.*|connection)$/i.test(p.name)));
  const fields = [
    ...pathNames.filter((n) => !depTargets.has(`path:${n}`)).map((n) => `  ${lit(n)}: string | number;`),
    ...given.sort((a, b) => a.name.localeCompare(b.name)).map((p) => `  ${lit(p.name)}${p.required ? '' : '?'}: ${paramType(p)};`),
  ];
  const paramsType = `${base}Params`;
  // No parameters, no argument: a helper without them is called with its body (or nothing) alone.
  const out = fields.length ? [`export interface ${paramsType} {\n${fields.join('\n')}\n}`] : [];
  const allOptional = !fields.some((f) => !f.includes('?:'));

  const tmpl = (v: string) => {
    // A value with env placeholders becomes a template literal; plain values stay JSON strings.
    if (!v.includes('\u0000')) return lit(v);
    const whole = /^\u0000([A-Z0-9_]+)\u0000$/.exec(v);
    if (whole) return `env(${lit(whole[1]!)})`;
    return `\`${v.split(/\u0000([A-Z0-9_]+)\u0000/).map((part, i) => (i % 2 ? `\${env(${lit(part)})}` : part.replace(/[`\\$]/g, (c) => `\\${c}`))).join('')}\``;
  };
  const pathExpr = `\`${ep.path.split(/\{([^}]+)\}/).map((part, i) => {
    if (i % 2 === 0) return part.replace(/[`\\$]/g, (c) => `\\${c}`);
    const dep = ep.dependencies.find((d) => d.target.in === 'path' && d.target.name === part);
    return dep ? `\${encodeURIComponent(env(${lit(dependencyEnv(dep))}))}` : `\${encodeURIComponent(String(params[${lit(part)}]))}`;
  }).join('')}\``;
  const headers = req.headers.filter((h) => h.value.includes('\u0000') || h.name.toLowerCase() === 'content-type' || h.name.toLowerCase() === 'accept').map((h) => `    ${lit(h.name)}: ${tmpl(h.value)},`);
  if (req.cookies.length) headers.push(`    Cookie: ${tmpl(req.cookies.map((c) => `${c.name}=${c.value}`).join('; '))},`);
  for (const p of given.filter((x) => x.in === 'header')) headers.push(`    ...(params[${lit(p.name)}] !== undefined ? { ${lit(p.name)}: String(params[${lit(p.name)}]) } : {}),`);
  const query = [
    ...req.query.filter((q) => q.value.includes('\u0000')).map((q) => `    ${lit(q.name)}: ${tmpl(q.value)},`),
    ...given.filter((p) => p.in === 'query').map((p) => `    ${lit(p.name)}: params[${lit(p.name)}],`),
  ];
  const bodyDeps = ep.dependencies.filter((d) => d.target.in === 'body');
  let bodyArg = '';
  let bodyExpr = 'undefined';
  const gqlQuery = (() => {
    if (ep.kind !== 'graphql' || !ep.requestBody?.example) return undefined;
    try {
      const b = JSON.parse(redactor.body(ep.requestBody.example, ep.requestBody.contentType)) as { query?: unknown };
      return typeof b.query === 'string' ? b.query : undefined;
    } catch {
      return undefined;
    }
  })();
  if (ep.requestBody) {
    const bodyType = reqType ?? (isJson(ep.requestBody.contentType) ? 'unknown' : 'string');
    if (gqlQuery !== undefined) {
      const hasVars = Boolean((ep.requestBody.schema.properties as Record<string, unknown> | undefined)?.variables);
      bodyArg = `variables: ${hasVars && reqType ? `${reqType}['variables']` : 'Record<string, unknown>'}${hasVars ? '' : ' = {}'}`;
      bodyExpr = `{ operationName: ${lit(ep.operation?.name ?? '')}, query: ${lit(gqlQuery)}, variables }`;
    } else {
      bodyArg = `body: ${bodyType}`;
      bodyExpr = 'body';
    }
    if (bodyDeps.length && isJson(ep.requestBody.contentType)) {
      const sets = bodyDeps.map((d) => {
        const e = dependencyEnv(d);
        const key = d.target.name.replace(/^\//, '');
        return `${lit(key)}: env(${lit(e)})`;
      });
      bodyExpr = `{ ...(${bodyExpr} as object), ${sets.join(', ')} }`;
    }
  }
  out.push(`${doc}
export async function ${fn}(${[fields.length ? `params: ${paramsType}${allOptional && !bodyArg ? ' = {}' : ''}` : '', bodyArg].filter(Boolean).join(', ')}): Promise<${returns}> {
  const url = ${query.length ? `withQuery(new URL(${pathExpr}, ${lit(httpOrigin(ep.origin))}), {\n${query.join('\n')}\n  })` : `new URL(${pathExpr}, ${lit(httpOrigin(ep.origin))})`};
  const headers: Record<string, string> = {
${headers.join('\n')}
  };
  return (await send(${lit(ep.method.toUpperCase())}, url, headers, ${bodyExpr}, ${returns !== 'string'})) as ${returns};
}`);
  return out.join('\n\n');
}

function functionName(ep: ApiEndpoint, used: Set<string>): string {
  const p = pascal(ep.operation ? `${ep.operation.type} ${ep.operation.name}` : `${ep.method.toLowerCase()} ${ep.path.replace(/\{([^}]+)\}/g, 'by $1')}`);
  let name = p[0]!.toLowerCase() + p.slice(1);
  for (let n = 2; used.has(name); n++) name = `${p[0]!.toLowerCase()}${p.slice(1)}${n}`;
  used.add(name);
  return name;
}

export async function exportTypeScript(map: ApiMap, endpoints: ApiEndpoint[]): Promise<string> {
  const used = new Set<string>();
  const types: string[] = [];
  const code: string[] = [];
  for (const ep of endpoints) code.push(await endpointCode(map, ep, functionName(ep, used), types));
  const head = `/**\n * ${commentText(map.name)} (${map.id}): typed requests learned from recorded traffic by browserd.\n * Secrets are read from process.env; none are in this file.\n */`;
  return `${[head, ...types, RUNTIME, ...code].join('\n\n')}\n`;
}
