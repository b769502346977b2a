/**
 * browser_api_map: a site's own API learned from recorded traffic, kept per user. build reads a HAR (given in
 * `har`) into a map, merge adds more traffic to one, list/get show them, export writes one as OpenAPI, HAR,
 * curl, Python or TypeScript into the user's files, delete removes one. No model: daemon/traffic/api-map reads
 * the structure. What a map keeps went through the traffic redactor with the user's vault values, so paths,
 * names and examples came from pages (fenced) but no credential did.
 */
import { exportApiMap } from '../traffic/api-map/export.js';
import { harRecordings } from '../traffic/har-recordings.js';
import { Type } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { params, StringEnum, TabParam } from '../../protocol/params.js';
import { BrowserdError } from '../../protocol/errors.js';
import { API_EXPORT_FORMATS, type ApiEndpoint, type ApiMap } from '../../protocol/api-map.js';
import { buildApiMap, mergeApiMaps } from '../traffic/api-map/index.js';
import { findEndpoints } from '../traffic/api-map/find.js';
import { trafficRedactor } from '../traffic/redact.js';
import { userSecretForms } from '../secrets/user-secrets.js';
import { apiMapStore, MAX_MAPS_PER_USER } from '../../storage/api-maps.js';
import { inline, type ResponseBuilder } from '../call/response.js';
import { scrubList } from '../call/redact.js';
import type { ToolContext } from '../call/context.js';
import { ApiEndpointSchema, ApiEndpointSummarySchema, ApiMapInfoSchema } from '../traffic/api-map/endpoint-schema.js';

const ACTIONS = ['build', 'merge', 'list', 'get', 'export', 'delete'] as const;
/** A HAR given in, as text: generous, since a recording of a busy page is large, but bounded. */
export const MAX_HAR_CHARS = 50 * 1024 * 1024;
/** Exports shown inline (fenced) up to this size; larger ones are only stored. */
const SHOW_EXPORT_CHARS = 20_000;
const fileUrl = (name: string) => `/v1/files/${encodeURIComponent(name)}`;

const bad = (parameter: string, message: string, next: string) => new BrowserdError('validation_error', message, { next, details: { parameter } });

/** The `har` argument as HAR JSON: a string is parsed; either way it must have log.entries. */
function harOf(har: unknown): unknown {
  let v = har;
  if (typeof har === 'string') {
    try {
      v = JSON.parse(har);
    } catch {
      throw bad('har', 'har is not JSON', 'Pass the HAR file\'s JSON (an object with log.entries), as an object or as its text.');
    }
  }
  const log = v && typeof v === 'object' ? (v as { log?: { entries?: unknown } }).log : undefined;
  if (!log || typeof log !== 'object' || !Array.isArray(log.entries)) throw bad('har', 'har has no log.entries list', 'Pass a HAR 1.2 document: {"log": {"entries": [...]}}.');
  return v;
}

/**
 * The tab's HAR recording (browser_har), recording or stopped, as one HAR document. Its entries were redacted
 * as they were recorded, so a map built from it finds dependencies only where values were not secret.
 */
async function recordedHar(ctx: ToolContext, tabId: string | undefined): Promise<unknown> {
  const tab = await ctx.tab(tabId);
  const rec = harRecordings(ctx.env).get(ctx.user.id, tab.id);
  if (!rec || rec.state === 'deleted') {
    throw bad('har', `no har given, and ${tab.id} has no HAR recording`, `Record one first (browser_har {"action": "start", "tab": "${tab.id}"}, load the pages, then build), or pass a HAR in har.`);
  }
  const entries: unknown[] = [];
  for await (const line of rec.entries()) entries.push(JSON.parse(line));
  return { log: { version: '1.2', creator: { name: 'browserd', version: '' }, pages: rec.harPages(), entries } };
}

/** Which arguments each action takes: anything else given is a mistake worth naming, not silently ignored. */
const TAKES: Record<(typeof ACTIONS)[number], readonly string[]> = {
  build: ['har', 'name', 'hosts', 'examples', 'tab'],
  merge: ['map', 'har', 'name', 'hosts', 'examples', 'tab'],
  list: [],
  get: ['map', 'endpoint'],
  export: ['map', 'format', 'endpoint'],
  delete: ['map'],
};

/** The user's secrets for the redactor; a locked vault had nothing filled from it, so its filled codes suffice. */
function secretFormsOf(ctx: ToolContext): string[] {
  try {
    return userSecretForms(ctx.env, ctx.user.id);
  } catch {
    return scrubList(ctx.env.filledCodes.list(ctx.user.id));
  }
}

function mapOf(ctx: ToolContext, id: string): ApiMap {
  const m = apiMapStore(ctx.env.db).get(ctx.user.id, id);
  if (!m) throw new BrowserdError('not_found', `no API map ${id}`, { next: 'List your maps with browser_api_map {"action": "list"}.', details: { parameter: 'map' } });
  return m;
}

function endpointOf(map: ApiMap, name: string): ApiEndpoint {
  const found = findEndpoints(map, name);
  if (found.length === 1) return found[0]!;
  throw new BrowserdError('not_found', `map ${map.id} has ${found.length ? 'several endpoints matching' : 'no endpoint'} "${inline(name.slice(0, 200))}"`, {
    next: 'Use an endpoint id from browser_api_map {"action": "get", "map": "…"}.',
    details: { parameter: 'endpoint' },
  });
}

/** One line per endpoint: what a caller needs to pick one (the whole endpoint is in the structured result). */
function endpointLine(e: ApiEndpoint): string {
  const p = e.params.map((x) => `${x.name}${x.required ? '' : '?'}:${x.in}:${String(x.schema.type ?? 'any')}`).join(', ');
  const pg = e.pagination ? ` paging ${e.pagination.style}${'param' in e.pagination ? ` ${e.pagination.param}` : ` from ${e.pagination.from}`}` : '';
  const auth = e.auth.length ? ` auth ${e.auth.map((a) => `${a.kind}:${a.name}`).join(', ')}` : '';
  return `${e.id}${e.write ? ' [write]' : ''} ${e.origin}${e.path}${p ? ` (${p})` : ''}${pg}${auth}${e.dependencies.length ? ` needs ${e.dependencies.map((d) => `${d.target.name} from ${d.source.endpoint}`).join(', ')}` : ''} seen ${e.seen}`;
}

function describe(out: ResponseBuilder, map: ApiMap, label: string) {
  out.text(`${label} ${map.id}: ${map.endpoints.length} endpoint(s), ${map.endpoints.filter((e) => e.write).length} write(s), from ${map.entries} recorded request(s); updated ${map.updatedAt}.`);
  if (map.endpoints.length) out.page(`API map ${map.id} (${map.name})`, map.endpoints.map(endpointLine).join('\n'));
}

export const apiMapTools = [
  defineTool({
    name: 'browser_api_map',
    // A HAR given inline; the server's own body limit (21 MiB) still bounds it over REST.
    maxBodyBytes: MAX_HAR_CHARS,
    title: 'Map a site\'s API',
    description:
      'Learns a site\'s API from recorded traffic (a HAR, or the tab\'s browser_har recording), without a model: endpoints, GraphQL operations, parameters, schemas, pagination, auth names and CSRF dependencies, values redacted. build gives a map id for browser_api_call; merge adds traffic; list (default), get, export (OpenAPI, HAR, curl, Python, TypeScript), delete.',
    input: params({
      action: Type.Optional(StringEnum(ACTIONS)),
      map: Type.Optional(Type.String({ pattern: '^api_[0-9a-f]{16}$' })),
      har: Type.Optional(
        Type.Union([Type.String({ minLength: 2, maxLength: MAX_HAR_CHARS }), Type.Object({}, { additionalProperties: true })], {
          description: 'A HAR 1.2 document (JSON or text).',
        }),
      ),
      name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      hosts: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9.-]+(:[0-9]{1,5})?$' }), { minItems: 1, maxItems: 50 })),
      examples: Type.Optional(Type.Boolean({ description: 'Redacted examples. Default true.' })),
      format: Type.Optional(StringEnum(API_EXPORT_FORMATS)),
      endpoint: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'get or export only this one.' })),
      tab: TabParam,
    }),
    // One schema for six actions: each field says which actions set it.
    output: Type.Object({
      action: StringEnum(ACTIONS, { description: 'The action done.' }),
      maps: Type.Optional(Type.Array(ApiMapInfoSchema, { description: 'list: your maps, most recently updated first.' })),
      map: Type.Optional(Type.String({ description: 'Every action but list: the map id (api_ and 16 hex digits).' })),
      name: Type.Optional(Type.String({ description: 'build, merge, get: the map\'s name.' })),
      hosts: Type.Optional(Type.Array(Type.String(), { description: 'build, merge, get: the hosts the map covers.' })),
      endpoints: Type.Optional(
        Type.Union([Type.Integer(), Type.Array(ApiEndpointSummarySchema)], { description: 'build, merge: how many endpoints the map has now. get (without endpoint): the endpoints, without bodies and messages.' }),
      ),
      endpoint: Type.Optional(ApiEndpointSchema),
      createdAt: Type.Optional(Type.String({ description: 'get: when the map was built (ISO).' })),
      updatedAt: Type.Optional(Type.String({ description: 'get: when it last changed (ISO).' })),
      entries: Type.Optional(Type.Integer({ description: 'get: recorded requests read over all builds and merges.' })),
      format: Type.Optional(StringEnum(API_EXPORT_FORMATS, { description: 'export: the format written.' })),
      file: Type.Optional(Type.String({ description: 'export: the name of the file stored in your files.' })),
      url: Type.Optional(Type.String({ description: 'export: where to GET the file (bearer token).' })),
      mimeType: Type.Optional(Type.String({ description: 'export: the file\'s MIME type.' })),
      chars: Type.Optional(Type.Integer({ description: 'export: characters in the file.' })),
      deleted: Type.Optional(Type.Literal(true, { description: 'delete: the map is gone.' })),
    }),
    effect: 'read',
    hints: { readOnly: false, destructive: true, idempotent: false },
    openWorld: false,
    needsBrowser: false,
    check(args) {
      const action = args.action ?? 'list';
      for (const k of Object.keys(args)) {
        if (k !== 'action' && (args as Record<string, unknown>)[k] !== undefined && !TAKES[action].includes(k)) {
          throw bad(k, `${k} does not go with action ${action}`, `Leave ${k} out; ${action} takes ${TAKES[action].length ? TAKES[action].join(', ') : 'nothing else'}.`);
        }
      }
      if (['merge', 'get', 'export', 'delete'].includes(action) && !args.map) throw bad('map', `${action} needs map`, 'Pass {"map": "api_…"} from browser_api_map {"action": "list"}.');
      if (action === 'export' && !args.format) throw bad('format', 'export needs format', `Pass format: one of ${API_EXPORT_FORMATS.join(', ')}.`);
      // Without har, build and merge read the tab's own recording (browser_har), found when the call runs.
      if ((action === 'build' || action === 'merge') && args.har !== undefined) harOf(args.har);
    },
    async handle(ctx, args, out) {
      const action = args.action ?? 'list';
      const store = apiMapStore(ctx.env.db);
      const user = ctx.user.id;
      out.set('action', action);
      if (action === 'list') {
        const maps = store.list(user);
        out.set('maps', maps);
        if (!maps.length) {
          out.text('No API maps yet. Build one: browser_api_map {"action": "build", "har": <HAR JSON>}.');
          return;
        }
        out.text(`${maps.length} API map(s), most recently updated first:`);
        out.page('API maps', maps.map((m) => `${m.id} ${m.name} — ${m.hosts.join(', ')}; ${m.endpoints} endpoint(s); updated ${m.updatedAt}`).join('\n'));
        return;
      }
      if (action === 'build' || action === 'merge') {
        const har = args.har !== undefined ? harOf(args.har) : await recordedHar(ctx, args.tab);
        const existing = action === 'merge' ? mapOf(ctx, args.map!) : undefined;
        if (!existing && store.count(user) >= MAX_MAPS_PER_USER) {
          throw new BrowserdError('refused', `you have ${MAX_MAPS_PER_USER} API maps, the most kept`, { next: 'Delete maps you no longer need (browser_api_map {"action": "delete", "map": …}), or merge into one.' });
        }
        const redactor = trafficRedactor(secretFormsOf(ctx));
        const built = buildApiMap(har, { hosts: args.hosts, examples: args.examples, redactor, name: args.name });
        if (!built.endpoints.length) {
          throw bad('har', `no API calls in the HAR${args.hosts ? ` for ${args.hosts.join(', ')}` : ''} (${built.entries} entries read: pages, scripts, styles and images are not API calls)`, 'Record while the page loads its data (XHR/fetch, JSON, GraphQL, WebSocket, SSE), or widen hosts.');
        }
        const map = existing ? { ...mergeApiMaps(existing, built), ...(args.name ? { name: args.name } : {}) } : built;
        await store.put(user, map);
        out.set('map', map.id).set('name', map.name).set('hosts', map.hosts).set('endpoints', map.endpoints.length);
        describe(out, map, existing ? `Merged ${built.endpoints.length} endpoint(s) into` : 'Built');
        out.text(`Next: browser_api_map {"action": "get", "map": "${map.id}", "endpoint": "<id>"} for one endpoint whole; browser_api_call to call one.`);
        return;
      }
      const map = mapOf(ctx, args.map!);
      if (action === 'get') {
        if (args.endpoint !== undefined) {
          const e = endpointOf(map, args.endpoint);
          out.set('map', map.id).set('endpoint', e);
          out.text(`Endpoint of ${map.id}:`);
          out.page(`endpoint of ${map.id}`, `${endpointLine(e)}\n${JSON.stringify(e, null, 2)}`);
          return;
        }
        out.set('map', map.id).set('name', map.name).set('hosts', map.hosts).set('createdAt', map.createdAt).set('updatedAt', map.updatedAt).set('entries', map.entries);
        out.set('endpoints', map.endpoints.map((e) => ({ id: e.id, kind: e.kind, method: e.method, origin: e.origin, path: e.path, operation: e.operation, write: e.write, params: e.params, pagination: e.pagination, auth: e.auth, dependencies: e.dependencies, seen: e.seen })));
        describe(out, map, 'API map');
        return;
      }
      if (action === 'export') {
        if (args.endpoint !== undefined) endpointOf(map, args.endpoint);
        const ex = await exportApiMap(map, args.format!, { endpoint: args.endpoint });
        const stored = await ctx.env.files.addBytes(user, ex.fileName, Buffer.from(ex.text, 'utf8'));
        out.set('map', map.id).set('format', ex.format).set('file', stored.name).set('url', fileUrl(stored.name)).set('mimeType', ex.mimeType).set('chars', ex.text.length);
        out.text(`Exported ${map.id} as ${ex.format} to your file ${inline(stored.name)} (${ex.text.length} chars): GET ${fileUrl(stored.name)}. Secrets are environment placeholders.`);
        if (ex.text.length <= SHOW_EXPORT_CHARS) out.page(`${ex.format} export of ${map.id}`, ex.text);
        else out.text(`Too long to show here (over ${SHOW_EXPORT_CHARS} chars); fetch the file.`);
        return;
      }
      // delete
      await store.delete(user, map.id);
      out.set('map', map.id).set('deleted', true);
      out.text(`Deleted API map ${map.id}.`);
    },
  }),
];
