/** The content of generated docs, built from the registry and the error table. */
import { ROUTES, TOOLS } from '../daemon/main.js';
import { outputJsonSchema } from '../daemon/call/output.js';
import type { ToolDef } from '../daemon/call/define.js';
import { toJsonSchema } from '../daemon/call/schema.js';
import { ERROR_CODES } from '../protocol/errors.js';
import { VERSION } from '../daemon/main.js';
import { readFileSync } from 'node:fs';
import { PATH_TOOL, routeKey, type RouteSpec } from '../daemon/server/routes.js';
import { pathParamNames } from '../daemon/server/route-input.js';
import { WEBHOOK_EVENTS } from '../protocol/webhook-events.js';
import { BrowserSettingsPatch } from '../daemon/settings/browser-settings.js';
import { sharedDescription, withSharedDescriptions } from '../protocol/shared-params.js';
import { tableCell } from './markdown.js';

/** Every key is present in answers (defaults filled). */
const BROWSER_SETTINGS_SCHEMA = { ...toJsonSchema(BrowserSettingsPatch), required: ['profile_enabled', 'profile', 'block_ads', 'max_browsers', 'signup'] };
const AD_BLOCKING_SCHEMA = {
  type: 'object',
  description: 'block_ads in force: off (no site listed), loading (requests pass until the lists are ready), ready (lists, source cache or parsed, loadMs), or unavailable (reason, next: e.g. install webext-ublock-origin-chromium)',
  properties: { state: { type: 'string', enum: ['off', 'loading', 'ready', 'unavailable'] }, note: { type: 'string' }, lists: { type: 'array', items: { type: 'string' } }, source: { type: 'string', enum: ['cache', 'parsed'] }, loadMs: { type: 'integer' }, reason: { type: 'string' }, next: { type: 'string' } },
  required: ['state'],
};

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });

const toolResult = {
  type: 'object',
  description: 'ok, the tool\'s structured fields, and text: the same words an MCP client sees, page text fenced as untrusted.',
  properties: {
    ok: { type: 'boolean', const: true },
    tool: { type: 'string' },
    text: { type: 'string' },
    images: { type: 'array', items: { type: 'object', properties: { mimeType: { type: 'string' }, data: { type: 'string', contentEncoding: 'base64' } }, required: ['mimeType', 'data'] } },
    resources: { type: 'array', items: { type: 'object', properties: { uri: { type: 'string' }, mimeType: { type: 'string' }, data: { type: 'string', contentEncoding: 'base64' } }, required: ['uri', 'mimeType', 'data'] } },
  },
  required: ['ok', 'text'],
  additionalProperties: true,
};

/** The package's SPDX licence, if it declares one. */
const PACKAGE_LICENSE: string | undefined = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).license;

/** Retry-After on the answers that carry it (browser_capacity, and sign-up's 429). */
const retryAfter = { 'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 1 } } };

/** What a route that needs no token can still answer: a Host or Origin it does not serve, or a stopping daemon. */
const openRouteErrors = {
  '403': errorResponse('forbidden: the Host or Origin header names no address this daemon serves'),
  '503': errorResponse('shutting_down'),
};

function stdErrors(extra: number[] = []) {
  const out: Record<string, unknown> = {
    '400': errorResponse('validation_error'),
    '401': errorResponse('unauthorized'),
    '405': { ...errorResponse('method_not_allowed: the method is not served on this path'), headers: { Allow: { description: 'The methods this path takes.', schema: { type: 'string' } } } },
    '503': { ...errorResponse('browser_capacity (with Retry-After) or shutting_down'), headers: retryAfter },
  };
  for (const s of extra) out[String(s)] = errorResponse(Object.entries(ERROR_CODES).filter(([, v]) => v.status === s).map(([k]) => k).join(' | '));
  return out;
}

/**
 * A stable operationId from the method and path: GET /v1/crawls/{id}/items is getV1CrawlsByIdItems. Generated
 * clients name their functions after it.
 */
export function operationIdOf(method: string, path: string): string {
  const words = path.split('/').filter(Boolean).map((seg) => (seg.startsWith('{') ? `by-${seg.slice(1, -1)}` : seg));
  const camel = words.join('-').split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
  return `${method.toLowerCase()}${camel || 'Root'}`;
}

const pathParam = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string' } });

/**
 * A route's parameters from the schemas in its routes.ts row (the ones route-input.ts checks): path ones in
 * path order, then the query. A schema's description is the parameter's; a shared parameter without one gets
 * the shared table's (protocol/shared-params.ts).
 */
function routeParameters(route: RouteSpec): Record<string, unknown>[] | undefined {
  if (!route.params && !route.query) return undefined;
  const one = (name: string, where: 'path' | 'query', s: Record<string, unknown>, required: boolean) => {
    const { description = sharedDescription(name, s, required), ...schema } = s;
    return { name, in: where, required, ...(description ? { description } : {}), schema };
  };
  const pathProps = (route.params ? (toJsonSchema(route.params) as { properties: Record<string, Record<string, unknown>> }).properties : {}) as Record<string, Record<string, unknown>>;
  const query = route.query ? (toJsonSchema(route.query) as { properties: Record<string, Record<string, unknown>> }).properties : {};
  return [
    ...pathParamNames(route.path).map((name) => one(name, 'path', pathProps[name] ?? { type: 'string' }, true)),
    ...Object.entries(query).map(([name, s]) => one(name, 'query', s, false)),
  ];
}
const plainOk = (description: string) => ({ '200': { description, content: { 'application/json': { schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'], additionalProperties: true } } } } });

const crawlRun = { type: 'object', description: 'ok, id, name, state (running | paused | finished | cancelled | failed), counters {queued, done, failed, blocked}, createdAt, updatedAt, finishedAt, note, links {self, items, export}.', properties: { ok: { type: 'boolean' }, id: { type: 'string' }, state: { type: 'string', enum: ['running', 'paused', 'finished', 'cancelled', 'failed'] }, counters: { type: 'object' }, links: { type: 'object' } }, required: ['ok', 'id', 'state', 'counters', 'links'], additionalProperties: true };
const runAnswer = (description: string) => ({ description, content: { 'application/json': { schema: crawlRun } } });

/** The crawl resources: POST /v1/crawls is browser_crawl; the rest read, steer and export runs (parameters from routes.ts). */
function crawlOperations(): Record<string, Record<string, unknown>> {
  const action = (what: string) => ({ responses: { '200': runAnswer(what), ...stdErrors([404]) } });
  return {
    'POST /v1/crawls': { requestBody: { required: true }, responses: { '201': runAnswer('started'), ...stdErrors([403, 501]) } },
    'GET /v1/crawls': { responses: { ...plainOk('crawls (newest first, each as GET /v1/crawls/{id} without spec), and a cursor when there are more'), ...stdErrors() } },
    'GET /v1/crawls/{id}': { responses: { '200': runAnswer('the run, with spec: its parameters with every default filled'), ...stdErrors([404]) } },
    'POST /v1/crawls/{id}/pause': action('paused'),
    'POST /v1/crawls/{id}/resume': action('running again'),
    'POST /v1/crawls/{id}/cancel': action('cancelled; items kept'),
    'DELETE /v1/crawls/{id}': { responses: { ...plainOk('deleted: id, deleted'), ...stdErrors([404]) } },
    'GET /v1/crawls/{id}/items': { responses: { ...plainOk('items: whole items (seq, url, finalUrl, depth, status, httpStatus, via, title, content, metadata, fields, formats, chunks, passages, error, at), and a cursor when there are more'), ...stdErrors([404]) } },
    'GET /v1/crawls/{id}/export': {
      description: 'Streamed as an attachment named <id>.<format>. CSV: a header row, CRLF line ends, columns seq, url, final_url, status, http_status, depth, title, content, error, at, then one per field of the crawl; lists and objects as JSON text; a cell starting with = + - @ gets a leading \' so spreadsheets treat it as text.',
      responses: {
        '200': { description: 'the items', content: { 'application/x-ndjson': { schema: { type: 'string' } }, 'text/csv': { schema: { type: 'string' } }, 'application/json': { schema: { type: 'array', items: { type: 'object' } } } } },
        ...stdErrors([404]),
      },
    },
  };
}

/**
 * A route that runs a REST-only operation (runOperation): its JSON body is the operation's input schema (from
 * the route's body in routes.ts; the path's {id} filled in by the route, when it has one), its answer the
 * result's fields.
 */
function operationRoute(name: string, okStatus = 200, errors: number[] = [403, 404, 409, 422, 501, 502, 504]): Record<string, unknown> {
  const op = TOOLS.operations.find((o) => o.name === name);
  if (!op) throw new Error(`scripts/docs.ts: no operation ${name}`);
  return {
    'x-operation': name,
    requestBody: { required: false },
    responses: { [String(okStatus)]: { description: 'result', content: { 'application/json': { schema: toolResultOf(op) } } }, ...stdErrors(errors) },
  };
}

/** Research and tasks: each route runs its operation (daemon/tasks/operations.ts); ids in paths, the rest in the body or query. */
function taskRoutes(): Record<string, Record<string, unknown>> {
  const noBody = (r: Record<string, unknown>) => {
    const { requestBody: _omit, ...rest } = r;
    return rest;
  };
  return {
    'POST /v1/research': { ...operationRoute('research', 201, [403, 422, 501, 502, 504]), description: 'X-Model-Key: the chosen provider\'s key (else the host\'s). The answer: id, research {question, answer, citations [{url, quote, chunk, headingPath, start, end}], sources, warnings, model, usage, createdAt}.' },
    'GET /v1/research/{id}': noBody(operationRoute('research_get', 200, [404])),
    'POST /v1/tasks': { ...operationRoute('task_start', 201, [403, 501]), description: 'X-Model-Key: the chosen provider\'s key, kept in memory only while the task lives (after a restart the host key is used, else the task fails with not_configured). The answer: id, task {id, state, goal, model, step, usage, calls, handoff, result, error, ...}.' },
    'GET /v1/tasks': noBody(operationRoute('task_list', 200, [])),
    'GET /v1/tasks/{id}': noBody(operationRoute('task_get', 200, [404])),
    'POST /v1/tasks/{id}/cancel': noBody(operationRoute('task_cancel', 200, [404])),
    'DELETE /v1/tasks/{id}': noBody(operationRoute('task_delete', 200, [404])),
  };
}

/** Model steps on a tab: each route runs its operation (daemon/model-features/act-operations.ts); {id} is the tab, the rest in the body. */
function actRoutes(): Record<string, Record<string, unknown>> {
  const key = 'X-Model-Key: the chosen provider\'s key (else the host\'s); sent only to that provider.';
  return {
    'POST /v1/tabs/{id}/observe': { ...operationRoute('tab_observe', 200, [404, 422, 501, 502, 504]), description: `${key} The answer: candidates [{description, ref, element {role, name, nth}, tool, args}], warnings (dropped candidates), model, usage.` },
    'POST /v1/tabs/{id}/act': {
      ...operationRoute('tab_act', 200, [403, 404, 409, 422, 501, 502, 504]),
      description: `${key} The answer: cached (true when replayed from the action cache: no model request), steps [{tool, args, element}], results (each step's tool result), blocked, needsApproval, warnings, model, usage. The cache key is the action text, the page's host and its structure (role and name of every element with a ref); a cached step finds its element again by role, name and position.`,
    },
    'POST /v1/tabs/{id}/validate': { ...operationRoute('tab_validate', 200, [404, 422, 501, 502, 504]), description: `${key} The answer: pass (only with a quote found on the page), modelPass, quote, citation {chunk, quote, url, headingPath, start, end}, reason, warnings, model, usage.` },
  };
}

/** Learned extractors: each route is one REST-only operation; {id} is ext_ and 16 hex digits. */
function extractorOperations(): Record<string, Record<string, unknown>> {
  const result = (description: string, name: string) => ({ description, content: { 'application/json': { schema: toolResultOf(TOOLS.operations.find((o) => o.name === name)!) } } });
  return {
    'POST /v1/extractors': { ...operationRoute('extractor_learn', 201), requestBody: { required: true } },
    'GET /v1/extractors': { 'x-operation': 'extractor_list', responses: { '200': result('extractors: every extractor of the caller (id, name, version, model, learnedOn, schema, prompt, fields, createdAt, updatedAt)', 'extractor_list'), ...stdErrors() } },
    'GET /v1/extractors/{id}': { 'x-operation': 'extractor_get', responses: { '200': result('extractor', 'extractor_get'), ...stdErrors([404]) } },
    'DELETE /v1/extractors/{id}': { 'x-operation': 'extractor_delete', responses: { '200': result('deleted: the id', 'extractor_delete'), ...stdErrors([404]) } },
    'POST /v1/extractors/{id}/run': operationRoute('extractor_run'),
  };
}

/** Model extraction (the tool browser_extract_ai) and questions (the REST-only operation ask). */
function modelOperations(): Record<string, Record<string, unknown>> {
  const extract = TOOLS.tools.find((t) => t.name === 'browser_extract_ai')!;
  return {
    'POST /v1/extract': {
      description: 'Header X-Model-Key: your key for the model\'s provider (else the server\'s). With urls, results holds one {url, ok, data, citations, warnings, usage, error} per address.',
      requestBody: { required: true },
      responses: { '200': { description: 'data, citations (field, chunk, quote, url, headingPath, start, end), warnings, usage, model (or results with urls)', content: { 'application/json': { schema: toolResultOf(extract) } } }, ...stdErrors([403, 404, 422, 501, 502, 504]) },
    },
    'POST /v1/ask': { ...operationRoute('ask'), description: 'Header X-Model-Key: your key for the model\'s provider (else the server\'s). Answers answer, citations (chunk, quote, url, headingPath, start, end), warnings, usage, model.' },
  };
}

/** What a route answers, beyond its summary in the route table; keyed by `METHOD /path`. */
/** The webhook routes, with full schemas: client/ generates its types from them. */
function webhookDetails(): Record<string, Record<string, unknown>> {
  const events = { type: 'array', items: { type: 'string', enum: [...WEBHOOK_EVENTS] } };
  const receiver = { id: { type: 'string', pattern: '^wh_[0-9a-f]{16}$' }, url: { type: 'string' }, events, createdAt: { type: 'string', format: 'date-time' } };
  const json = (schema: unknown) => ({ 'application/json': { schema } });
  const attempt = { type: 'object', properties: { at: { type: 'string', format: 'date-time' }, status: { type: 'integer' }, error: { type: 'string' }, ms: { type: 'integer' } }, required: ['at', 'ms'] };
  const delivery = {
    type: 'object',
    properties: {
      id: { type: 'string', description: 'the webhook-id header: the same on every attempt' },
      type: { type: 'string', enum: [...WEBHOOK_EVENTS] },
      state: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
      attempts: { type: 'integer' },
      createdAt: { type: 'string', format: 'date-time' },
      nextAttemptAt: { type: 'string', format: 'date-time' },
      finishedAt: { type: 'string', format: 'date-time' },
      lastStatus: { type: 'integer' },
      lastError: { type: 'string' },
      history: { type: 'array', items: attempt, description: 'the latest 20 attempts, oldest first' },
    },
    required: ['id', 'type', 'state', 'attempts', 'createdAt', 'history'],
  };
  return {
    'POST /v1/webhooks': {
      description: 'The URL must be http(s) and pass the private-network guard (a loopback, private or link-local receiver is `blocked` unless the admin allows it). Each event is POSTed as `{type, timestamp, data}` signed with Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature); only a 2xx counts, redirects are never followed, and failures are retried for 24 h.',
      requestBody: { required: true },
      responses: { '201': { description: 'registered; `secret` is shown this once', content: json({ type: 'object', properties: { ok: { type: 'boolean' }, ...receiver, secret: { type: 'string', pattern: '^whsec_' } }, required: ['ok', 'id', 'url', 'events', 'createdAt', 'secret'] }) }, ...stdErrors([403]) },
    },
    'GET /v1/webhooks': {
      responses: { '200': { description: 'receivers, oldest first; never a secret', content: json({ type: 'object', properties: { ok: { type: 'boolean' }, webhooks: { type: 'array', items: { type: 'object', properties: { ...receiver, pending: { type: 'integer' } }, required: ['id', 'url', 'events', 'createdAt', 'pending'] } } }, required: ['ok', 'webhooks'] }) }, ...stdErrors() },
    },
    'DELETE /v1/webhooks/{id}': {
      responses: { '200': { description: 'deleted', content: json({ type: 'object', properties: { ok: { type: 'boolean' }, id: { type: 'string' }, deleted: { type: 'boolean' } }, required: ['ok', 'id', 'deleted'] }) }, ...stdErrors([404]) },
    },
    'GET /v1/webhooks/{id}/deliveries': {
      responses: { '200': { description: 'deliveries, newest first', content: json({ type: 'object', properties: { ok: { type: 'boolean' }, id: { type: 'string' }, deliveries: { type: 'array', items: delivery } }, required: ['ok', 'id', 'deliveries'] }) }, ...stdErrors([404]) },
    },
  };
}

function operationDetails(): Record<string, Record<string, unknown>> {
  return {
    'GET /health': { security: [], responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: { ok: { type: 'boolean' }, version: { type: 'string' }, uptimeS: { type: 'integer' }, browsers: { type: 'integer' } }, required: ['ok'] } } } }, '503': { description: 'closing' } } },
    'POST /mcp': { requestBody: { content: { 'application/json': { schema: { type: 'object' } } } }, responses: { '200': { description: 'JSON-RPC response' }, ...stdErrors([403, 404]) } },
    'GET /mcp': { responses: { '200': { description: 'text/event-stream' }, ...stdErrors([404]) } },
    'DELETE /mcp': { responses: { '200': { description: 'closed' }, ...stdErrors([404]) } },
    'GET /v1/models': { responses: { '200': { description: 'the model ids a call may choose', content: { 'application/json': { schema: { type: 'object', properties: { ok: { type: 'boolean' }, models: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, provider: { type: 'string', enum: ['openai', 'anthropic', 'gemini'] }, default: { type: 'boolean' } }, required: ['id', 'provider', 'default'] } } }, required: ['ok', 'models'] } } } }, ...stdErrors() } },
    'GET /v1/usage': {
      responses: { '200': { description: 'model tokens per day and model, as the providers reported them', content: { 'application/json': { schema: { type: 'object', properties: { ok: { type: 'boolean' }, models: { type: 'array', items: { type: 'object', properties: { day: { type: 'string' }, model: { type: 'string' }, requests: { type: 'integer' }, inputTokens: { type: 'integer' }, outputTokens: { type: 'integer' } } } }, totals: { type: 'object' }, cdpSessionMinutes: { type: 'integer' } }, required: ['ok', 'models', 'totals'] } } } }, ...stdErrors() },
    },
    'GET /v1/me': { responses: { '200': { description: 'me', content: { 'application/json': { schema: { type: 'object', properties: { ok: { type: 'boolean' }, user: { type: 'string' }, policy: { type: 'object' }, limits: { type: 'object' } }, required: ['ok', 'user', 'policy', 'limits'] } } } }, ...stdErrors() } },
    'GET /v1/tabs': { responses: { '200': { description: 'tabs', content: { 'application/json': { schema: toolResultOf(toolNamed('browser_tabs')) } } }, ...stdErrors() } },
    'POST /v1/tabs': { responses: { '201': { description: 'opened', content: { 'application/json': { schema: toolResultOf(toolNamed('browser_open')) } } }, ...stdErrors([403, 502]) } },
    'DELETE /v1/tabs/{id}': { responses: { '200': { description: 'closed', content: { 'application/json': { schema: toolResultOf(toolNamed('browser_close_tab')) } } }, ...stdErrors([404]) } },
    'GET /v1/tabs/{id}/har': {
      description: 'Streamed from the recording\'s file, entry by entry. Every value is redacted as it was recorded (credential headers, cookie values, secret query parameters and JSON keys, CSRF values, the caller\'s vault values); names are kept. While recording, exchanges still open (a stream, a WebSocket) come last, marked _open. 404 when the tab never recorded, its recording was deleted, the tab is closed, or it is another user\'s tab.',
      responses: { '200': { description: 'a HAR 1.2 document: log.version, creator, pages, entries (with _resourceType, _webSocketMessages, _eventSourceMessages)', content: { 'application/json': { schema: { type: 'object', properties: { log: { type: 'object' } }, required: ['log'] } } } }, ...stdErrors([404]) },
    },
    'GET /v1/tools': { responses: { '200': { description: 'tools' }, ...stdErrors() } },
    'GET /v1/profiles': { responses: { ...plainOk('profiles: name, running, tab count'), ...stdErrors() } },
    'GET /v1/files': { responses: { ...plainOk('files: name, size, mimeType, modifiedAt, url'), ...stdErrors() } },
    'GET /v1/files/{name}': { responses: { '200': { description: 'the file, as an attachment', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } }, ...stdErrors([404]) } },
    'DELETE /v1/files/{name}': { responses: { ...plainOk('deleted: name, deleted'), ...stdErrors([404]) } },
    'GET /v1/audit': { responses: { ...plainOk('entries, and a cursor when there are more'), ...stdErrors() } },
    'POST /v1/inbox/sms/{inbox}': { parameters: [pathParam('inbox')], description: "Authorization: Bearer <the SMS inbox's secret> (not a user token). A wrong secret and an unknown inbox both answer 401 and store nothing. Body at most 16 KB.", requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { text: { type: 'string' }, from: { type: 'string' }, receivedAt: { type: 'string', description: 'ISO time or epoch milliseconds' } }, required: ['text'] } }, 'application/x-www-form-urlencoded': { schema: { type: 'object', properties: { Body: { type: 'string' }, From: { type: 'string' } }, required: ['Body'] } } } }, responses: { '202': { description: 'stored; waiting browser_fill_otp calls look at it at once', content: { 'application/json': { schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } } } }, ...stdErrors([501]) } },
    'GET /handoff/{token}': { security: [], parameters: [pathParam('token')], responses: { '200': { description: 'the "Your turn" page', content: { 'text/html': { schema: { type: 'string' } } } }, '404': { description: 'unknown token (plain page)' }, '410': { description: 'the hand-off is over (plain page)' } } },
    'POST /handoff/{token}/done': { security: [], parameters: [pathParam('token')], responses: { '200': { description: 'resolved; a thank-you page', content: { 'text/html': { schema: { type: 'string' } } } }, '403': { description: 'posted from another site' }, '404': { description: 'unknown token (plain page)' }, '410': { description: 'the hand-off is over (plain page)' } } },
    'POST /v1/convert': {
      requestBody: {
        required: true,
        content: {
          'multipart/form-data': {
            schema: {
              type: 'object',
              required: ['file'],
              properties: {
                file: { type: 'string', format: 'binary', description: 'The document, at most 15 MB; its file name gives the type.' },
                converter: { type: 'string', enum: ['auto', 'builtin', 'markitdown', 'docling'] },
                format: { type: 'string', enum: ['markdown', 'text'] },
                maxChars: { type: 'integer', minimum: 1, maximum: 200000 },
                store: { type: 'boolean' },
              },
            },
          },
        },
      },
      responses: { ...plainOk('conversion: source, kind, converter, chars, truncated, title, parts; file when stored; text with the fenced document'), ...stdErrors([404, 501, 502, 504]) },
    },
    'GET /dl/{token}': { security: [], parameters: [pathParam('token')], responses: { '200': { description: 'the shared file, streamed as an attachment (nosniff, no-store, no-referrer)', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } }, '404': errorResponse('not_found: the link expired, was altered, or its file was deleted or now holds other bytes (one answer for all, no file bytes)') } },
    'GET /live/{token}': { security: [], parameters: [pathParam('token')], responses: { '200': { description: 'the viewer page (HTML, no-store, frame-ancestors self)', content: { 'text/html': { schema: { type: 'string' } } } }, '403': errorResponse('forbidden: a Host this daemon does not answer to'), '404': errorResponse('not_found: the link is unknown or expired') } },
    ...crawlOperations(),
    ...taskRoutes(),
    ...extractorOperations(),
    ...modelOperations(),
    ...actRoutes(),
    ...webhookDetails(),
    'GET /v1/caches': { responses: { ...plainOk('caches: name, entries, bytes, updatedAt'), ...stdErrors() } },
    'DELETE /v1/caches/{name}': { responses: { ...plainOk('deleted: name, deleted'), ...stdErrors([404]) } },
    'GET /v1/vault': { responses: { ...plainOk('entries: name, kind, loginUrl, field names, inbox kind and where (imapHost, or the SMS forwardUrl); never a value'), ...stdErrors([501]) } },
    'PUT /v1/vault/{name}': { requestBody: { required: true }, responses: { ...plainOk('entry (as GET /v1/vault lists it); for an SMS inbox also forwardUrl and secret'), ...stdErrors([501]) } },
    'DELETE /v1/vault/{name}': { responses: { ...plainOk('deleted'), ...stdErrors([404, 501]) } },
    'DELETE /v1/vault/{name}/fields/{field}': { responses: { ...plainOk('deleted'), ...stdErrors([404, 501]) } },
    'GET /v1/admin/users': { responses: { '200': { description: 'users' }, ...stdErrors([403]) } },
    'POST /v1/admin/users': { requestBody: { required: true }, responses: { '201': { description: 'created' }, ...stdErrors([403]) } },
    'GET /v1/browser/settings': { description: 'Settings apply to documents loaded after a change: reload a page to see one.', responses: { '200': { description: 'settings in force', content: { 'application/json': { schema: { type: 'object', properties: { ok: { type: 'boolean' }, settings: BROWSER_SETTINGS_SCHEMA, adBlocking: AD_BLOCKING_SCHEMA, identity: { type: ['object', 'null'], description: "The caller's persistent identity (drawn once, kept across restarts), with the profile's overrides applied; its enabled field says where it applies" } }, required: ['ok', 'settings'] } } } }, ...stdErrors() } },
    'GET /v1/admin/browser-settings': { responses: { '200': { description: 'settings in force', content: { 'application/json': { schema: { type: 'object', properties: { ok: { type: 'boolean' }, settings: BROWSER_SETTINGS_SCHEMA, adBlocking: AD_BLOCKING_SCHEMA }, required: ['ok', 'settings'] } } } }, ...stdErrors([403]) } },
    'PATCH /v1/admin/browser-settings': { description: 'Only the keys sent change; the whole patch is checked first, and any problem (an unknown key, a wrong type, a bad host pattern) changes nothing.', requestBody: { required: true }, responses: { '200': { description: 'settings now in force', content: { 'application/json': { schema: { type: 'object', properties: { ok: { type: 'boolean' }, settings: BROWSER_SETTINGS_SCHEMA }, required: ['ok', 'settings'] } } } }, ...stdErrors([403]) } },
    'GET /v1/admin/audit': { responses: { '200': { description: 'entries' }, ...stdErrors([403]) } },
    'GET /v1/admin/fleet/host': { responses: { ...plainOk('vaultKey (a fingerprint, null when the vault is locked), users, maxBrowsers'), ...stdErrors([403]) } },
    'POST /v1/admin/users/{name}/hold': { responses: { ...plainOk('user, held: true; answered once everything of theirs has stopped'), ...stdErrors([403, 404]) } },
    'POST /v1/admin/users/{name}/release': { responses: { ...plainOk('user, held: false'), ...stdErrors([403, 404]) } },
    'GET /v1/admin/users/{name}/archive': { responses: { '200': { description: 'the user whole: length-prefixed msgpack frames (head, rows, files, end)', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } }, ...stdErrors([403, 404]) } },
    'POST /v1/admin/users/import': { requestBody: { required: true, content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } }, responses: { ...plainOk('user, rows, files, bytes'), ...stdErrors([403]) } },
    'DELETE /v1/admin/users/{name}': { description: 'Only a user held for a move (POST .../hold) can be removed.', responses: { ...plainOk('user, removed: true, rows'), ...stdErrors([403, 404]) } },
    'GET /': { security: [], responses: { '200': htmlPage('the home page; the sign-up form only when signup is on'), ...openRouteErrors } },
    'POST /signup': {
      security: [],
      description: 'Counted per client address (the socket peer; IPv6 per /64), every attempt while sign-up is on. A form post answers an HTML page, a JSON post JSON.',
      requestBody: { content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } }, 'application/json': { schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } } } },
      responses: {
        '201': { description: 'created: the token, shown once', content: { 'application/json': { schema: { type: 'object', properties: { ok: { type: 'boolean' }, user: { type: 'string' }, token: { type: 'string' }, mcpUrl: { type: 'string' }, guide: { type: 'string' } }, required: ['ok', 'user', 'token', 'mcpUrl'] } }, 'text/html': { schema: { type: 'string' } } } },
        '400': errorResponse('validation_error: the name is malformed or taken'),
        '403': errorResponse('forbidden: sign-up is off'),
        '429': errorResponse('rate_limited, with Retry-After'),
      },
    },
    'GET /install.md': { security: [], responses: { '200': { description: "the guide, with the daemon's public URL (or listen address) filled in", content: { 'text/markdown': { schema: { type: 'string' } } } }, ...openRouteErrors } },
    ...consolePages(),
  };
}

function htmlPage(description: string) {
  return { description, content: { 'text/html': { schema: { type: 'string' } } } };
}

/**
 * The admin console's routes, marked as HTML pages for a person (x-html-page): their contents are not part of
 * the REST contract, and they authenticate by the console's session cookie, not a bearer token.
 */
function consolePages(): Record<string, Record<string, unknown>> {
  const rows = ROUTES.filter((r) => r.path === '/admin' || r.path.startsWith('/admin/'));
  return Object.fromEntries(
    rows.map((r) => [
      routeKey(r),
      {
        security: [],
        tags: ['admin console'],
        'x-html-page': true,
        description: 'An admin console page (HTML). Not part of the REST contract; programs use /v1/admin/* with the admin key.',
        ...(r.path.includes('{name}') ? { parameters: [pathParam('name')] } : {}),
        responses: { '200': htmlPage('the page'), '401': htmlPage('the login form: no console session'), '403': htmlPage('a post from elsewhere, or without the form\'s CSRF token: nothing changed') },
      },
    ]),
  );
}

function toolOperation(t: (typeof TOOLS.tools)[number]) {
  return {
    operationId: t.name,
    summary: t.title,
    description: t.description,
    'x-effect': t.effect,
    // The shared parameters' descriptions, which tools/list leaves to the MCP server's instructions.
    requestBody: { required: false, content: { 'application/json': { schema: withSharedDescriptions(toJsonSchema(t.input)) } } },
    responses: { '200': { description: 'result', content: { 'application/json': { schema: toolResultOf(t) } } }, ...stdErrors([403, 404, 409, 413, 422, 502, 504]) },
  };
}

const toolNamed = (name: string) => TOOLS.tools.find((t) => t.name === name)!;

/**
 * The answer of one tool: the common part and, where the tool declares one, its output schema (the MCP
 * outputSchema). Fields marked x-page-text are page text: as-is here, fenced in MCP structuredContent.
 */
function toolResultOf(t: ToolDef<any>) {
  const own = outputJsonSchema(t);
  return own ? { allOf: [toolResult, own] } : toolResult;
}

/** The schema a route's body is checked against (routes.ts `body`: its own, or its tool's or operation's), as JSON Schema. */
function dispatchBodySchema(route: RouteSpec): object | undefined {
  const b = route.body;
  if (!b || 'handler' in b || ('tool' in b && b.tool === PATH_TOOL)) return undefined;
  if ('schema' in b) return withSharedDescriptions(toJsonSchema(b.schema));
  const def = 'tool' in b ? TOOLS.tools.find((t) => t.name === b.tool) : TOOLS.operations.find((o) => o.name === b.operation);
  if (!def) throw new Error(`routes.ts: ${routeKey(route)} names a body schema that does not exist`);
  return withSharedDescriptions(toJsonSchema(def.input));
}

/** The OpenAPI paths, from the one route table: `/v1/tools/{name}` is written out once per tool. */
export function openapiPaths(): Record<string, Record<string, unknown>> {
  const details = operationDetails();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) {
    if (route.path === '/v1/tools/{name}') {
      for (const t of TOOLS.tools) paths[`/v1/tools/${t.name}`] = { post: toolOperation(t) };
      continue;
    }
    const detail = details[routeKey(route)];
    if (!detail) throw new Error(`scripts/docs.ts has no details for ${routeKey(route)}`);
    if (detail.parameters && (route.params || route.query)) throw new Error(`scripts/docs.ts: ${routeKey(route)} takes its parameters from routes.ts; write none here`);
    const parameters = routeParameters(route);
    const op: Record<string, unknown> = { operationId: operationIdOf(route.method, route.path), summary: route.summary, ...detail, ...(parameters ? { parameters } : {}) };
    const body = dispatchBodySchema(route);
    if (body) {
      const given = (detail.requestBody ?? {}) as { content?: Record<string, unknown> };
      if (given.content?.['application/json']) throw new Error(`scripts/docs.ts: ${routeKey(route)} takes its JSON body schema from routes.ts; write none here`);
      op.requestBody = { ...given, content: { 'application/json': { schema: body }, ...given.content } };
    }
    // Every body a route reads has a size limit: past it, 413.
    if (route.method !== 'GET' && route.method !== 'DELETE') (op.responses as Record<string, unknown>)['413'] ??= errorResponse('payload_too_large');
    (paths[route.path] ??= {})[route.method.toLowerCase()] = op;
  }
  const ids = Object.values(paths).flatMap((ops) => Object.values(ops).map((o) => (o as { operationId?: string }).operationId));
  const repeated = ids.filter((id, i) => ids.indexOf(id) !== i);
  if (repeated.length) throw new Error(`operationIds must be unique: ${repeated.join(', ')}`);
  return paths;
}

export function openapiDocument() {
  const paths = openapiPaths();
  return {
    openapi: '3.1.0',
    info: {
      title: 'browserd',
      version: VERSION,
      description: 'One real, persistent Chromium per user. Every tool at POST /v1/tools/{name}, through the same dispatch as MCP.',
      // OpenAPI 3.1 wants a licence's SPDX identifier (or URL); while the package declares none, none is named.
      ...(PACKAGE_LICENSE ? { license: { name: PACKAGE_LICENSE, identifier: PACKAGE_LICENSE } } : {}),
    },
    servers: [{ url: 'http://127.0.0.1:8787' }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        ErrorCode: { type: 'string', enum: Object.keys(ERROR_CODES) },
        Error: { type: 'object', properties: { ok: { const: false }, error: { type: 'object', properties: { code: { $ref: '#/components/schemas/ErrorCode' }, message: { type: 'string' }, next: { type: 'string' }, details: { type: 'object', properties: { pageText: { type: 'string', 'x-page-text': true, description: "The page's own words the error is about (a thrown message, the element covering a target, option texts, a model's words about a page). The message never quotes them; over MCP they are fenced." } } } }, required: ['code', 'message'] } }, required: ['ok', 'error'] },
      },
    },
    paths,
  };
}

/** The error codes, their HTTP status and meaning: written between the errors markers of docs/clients.md. */
export function errorTable(): string {
  return Object.entries(ERROR_CODES)
    .map(([code, v]) => `| \`${code}\` | ${v.status} | ${tableCell(v.summary)} |`)
    .reduce((acc, line) => `${acc}\n${line}`, '| code | HTTP | meaning |\n|---|---|---|');
}

/** The marker pair around a generated part of a hand-written file: `<!-- generated:NAME -->` ... `<!-- /generated:NAME -->`. */
export const markers = (name: string) => ({ start: `<!-- generated:${name} -->`, end: `<!-- /generated:${name} -->` });

/**
 * `text` (the file `file`) with what lies between its `name` markers replaced by `content`. A file without the
 * pair, with either one twice, or with them the wrong way round is an error naming the file and the markers:
 * the generated part must have a place the hand-written text chose for it.
 */
export function replaceBetween(text: string, name: string, content: string, file: string): string {
  const { start, end } = markers(name);
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  const once = (m: string, at: number) => at >= 0 && text.indexOf(m, at + m.length) < 0;
  if (!once(start, i) || !once(end, j) || j < i) {
    throw new Error(`${file} must hold the markers ${start} and then ${end}, each once, around where the generated part goes (found ${start} ${count(text, start)} time(s), ${end} ${count(text, end)} time(s))`);
  }
  return `${text.slice(0, i + start.length)}\n${content}\n${text.slice(j)}`;
}

function count(text: string, m: string): number {
  return text.split(m).length - 1;
}
