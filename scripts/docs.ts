/** The content of generated docs, built from the registry and the error table. */
import { allTools } from '../daemon/tools/registry.js';
import { toJsonSchema } from '../daemon/tools/schema.js';
import { ERROR_CODES } from '../protocol/errors.js';
import { VERSION } from '../daemon/main.js';

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });

const toolResult = {
  type: 'object',
  description: 'ok, the tool\'s structured fields, and text: the same words an MCP client sees, page text fenced as untrusted.',
  properties: { ok: { type: 'boolean', const: true }, tool: { type: 'string' }, text: { type: 'string' }, images: { type: 'array', items: { type: 'object', properties: { mimeType: { type: 'string' }, data: { type: 'string', contentEncoding: 'base64' } } } } },
  required: ['ok', 'text'],
  additionalProperties: true,
};

function stdErrors(extra: number[] = []) {
  const out: Record<string, unknown> = { '400': errorResponse('validation_error'), '401': errorResponse('unauthorized'), '503': errorResponse('browser_capacity (with Retry-After) or shutting_down') };
  for (const s of extra) out[String(s)] = errorResponse(Object.entries(ERROR_CODES).filter(([, v]) => v.status === s).map(([k]) => k).join(' | '));
  return out;
}

export function openapiDocument() {
  const paths: Record<string, unknown> = {
    '/health': { get: { summary: 'Liveness', security: [], responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: { ok: { type: 'boolean' }, version: { type: 'string' }, uptimeS: { type: 'integer' }, browsers: { type: 'integer' } }, required: ['ok'] } } } }, '503': { description: 'closing' } } } },
    '/mcp': { post: { summary: 'MCP Streamable HTTP endpoint (JSON-RPC 2.0); protocol 2025-03-26 and later', requestBody: { content: { 'application/json': { schema: { type: 'object' } } } }, responses: { '200': { description: 'JSON-RPC response' }, ...stdErrors([403, 404]) } }, get: { summary: 'MCP server-to-client stream', responses: { '200': { description: 'text/event-stream' } } }, delete: { summary: 'End an MCP session', responses: { '200': { description: 'closed' } } } },
    '/v1/me': { get: { summary: "The caller's user id, policy and limits", responses: { '200': { description: 'me', content: { 'application/json': { schema: { type: 'object', properties: { ok: { type: 'boolean' }, user: { type: 'string' }, policy: { type: 'object' }, limits: { type: 'object' } }, required: ['ok', 'user', 'policy', 'limits'] } } } }, ...stdErrors() } } },
    '/v1/tabs': {
      get: { summary: 'List tabs (as browser_tabs)', responses: { '200': { description: 'tabs', content: { 'application/json': { schema: toolResult } } }, ...stdErrors() } },
      post: { summary: 'Open a tab (as browser_open); the answer carries the tab id', requestBody: { content: { 'application/json': { schema: toJsonSchema(allTools().find((t) => t.name === 'browser_open')!.input) } } }, responses: { '201': { description: 'opened', content: { 'application/json': { schema: toolResult } } }, ...stdErrors([403, 502]) } },
    },
    '/v1/tabs/{id}': { delete: { summary: 'Close a tab (as browser_close_tab)', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { '200': { description: 'closed', content: { 'application/json': { schema: toolResult } } }, ...stdErrors([404]) } } },
    '/v1/tools': { get: { summary: 'Every tool with its input schema', responses: { '200': { description: 'tools' }, ...stdErrors() } } },
    '/v1/audit': { get: { summary: "The caller's own audit entries, newest first", parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500 } }, { name: 'cursor', in: 'query', schema: { type: 'string' } }], responses: { '200': { description: 'entries' }, ...stdErrors() } } },
    '/v1/admin/users': {
      get: { summary: 'List users (admin key)', responses: { '200': { description: 'users' }, ...stdErrors([403]) } },
      post: { summary: 'Create a user (admin key); answers its token once', requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } } } }, responses: { '201': { description: 'created' }, ...stdErrors([403]) } },
    },
    '/v1/admin/audit': { get: { summary: "Every user's audit entries (admin key)", responses: { '200': { description: 'entries' }, ...stdErrors([403]) } } },
  };
  for (const t of allTools()) {
    paths[`/v1/tools/${t.name}`] = {
      post: {
        operationId: t.name,
        summary: t.title,
        description: t.description,
        'x-effect': t.effect,
        requestBody: { required: false, content: { 'application/json': { schema: toJsonSchema(t.input) } } },
        responses: { '200': { description: 'result', content: { 'application/json': { schema: toolResult } } }, ...stdErrors([403, 404, 409, 422, 502, 504]) },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'browserd', version: VERSION, description: 'One real, persistent Chromium per user. Every tool at POST /v1/tools/{name}, through the same dispatch as MCP.' },
    servers: [{ url: 'http://127.0.0.1:8787' }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        ErrorCode: { type: 'string', enum: Object.keys(ERROR_CODES) },
        Error: { type: 'object', properties: { ok: { const: false }, error: { type: 'object', properties: { code: { $ref: '#/components/schemas/ErrorCode' }, message: { type: 'string' }, next: { type: 'string' }, details: { type: 'object' } }, required: ['code', 'message'] } }, required: ['ok', 'error'] },
      },
    },
    paths,
  };
}

export function readmeToolList(): string {
  return allTools()
    .map((t) => `| \`${t.name}\` | ${t.effect} | ${t.description.replace(/\|/g, '\\|')} |`)
    .reduce((acc, line) => `${acc}\n${line}`, '| tool | effect | what it does |\n|---|---|---|');
}

export function readmeErrorTable(): string {
  return Object.entries(ERROR_CODES)
    .map(([code, v]) => `| \`${code}\` | ${v.status} | ${v.summary} |`)
    .reduce((acc, line) => `${acc}\n${line}`, '| code | HTTP | meaning |\n|---|---|---|');
}

export function replaceBetween(text: string, marker: string, content: string): string {
  const start = `<!-- generated:${marker} -->`;
  const end = `<!-- /generated:${marker} -->`;
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  if (i < 0 || j < 0) throw new Error(`README.md lacks the ${start} … ${end} markers`);
  return `${text.slice(0, i + start.length)}\n${content}\n${text.slice(j)}`;
}
