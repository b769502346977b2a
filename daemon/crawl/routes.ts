/**
 * Crawls over REST: start one (through the one dispatch, as browser_crawl), list and read runs, pause, resume,
 * cancel, delete, page through full items, and export them streamed as JSONL, CSV or JSON. Every run is looked
 * up under the caller's own id, so another user's crawl id is simply not found.
 */
import type { UserRecord } from '../../storage/users.js';
import { InvalidCursorError } from '../../storage/audit.js';
import { BrowserdError } from '../../protocol/errors.js';
import { CRAWLS, type CrawlAction } from './service.js';
import { Type } from '@sinclair/typebox';
import { CRAWL_ID } from '../../protocol/ids.js';
import { StringEnum } from '../../protocol/params.js';
import { cursor, CURSOR_NEXT, group, hinted, limit } from '../server/route-schemas.js';
import type { RouteSpec } from '../server/routes.js';
import type { CrawlRunInfo, ItemStatus } from './types.js';
import { EXPORT_CONTENT_TYPES, EXPORT_FORMATS, encodeExport, type ExportFormat } from './export.js';
import { secretScrubber, userSecretForms } from '../secrets/user-secrets.js';
import { sendError, sendJson, sendStream } from '../http/exchange.js';
import { toolBody, type Handler } from '../server/rest-call.js';
import type { ServerDeps } from '../server/deps.js';

const crawlId = hinted(Type.String({ description: "crawl_ and 16 hex digits; another user's id is not_found.", pattern: CRAWL_ID.source }), {
  what: 'a crawl id',
  next: 'Use the id POST /v1/crawls answered: crawl_ and 16 hex digits (GET /v1/crawls lists yours).',
});
const itemStatus = hinted(StringEnum(['done', 'failed', 'blocked'], { description: 'Only items with this status.' }), { next: 'Pass ?status=done, or leave it out for every item.', emptyIsAbsent: true });
const CrawlPath = group({ id: crawlId });
const CrawlListQuery = group({ limit: Type.Optional(limit(1, 500, 50)), cursor: Type.Optional(cursor(CURSOR_NEXT, 'the cursor is empty')) });
const CrawlItemsQuery = group({ status: Type.Optional(itemStatus), limit: Type.Optional(limit(1, 500, 100)), cursor: Type.Optional(cursor(CURSOR_NEXT, 'the cursor is empty')) });
const CrawlExportQuery = group({
  format: Type.Optional(hinted(Type.Unsafe<string>({ type: 'string', enum: [...EXPORT_FORMATS], default: 'jsonl' }), { next: 'Pass ?format=jsonl, ?format=csv or ?format=json.' })),
  status: Type.Optional(itemStatus),
});


export const CRAWL_ROUTES: readonly RouteSpec[] = [
  { method: 'POST', path: '/v1/crawls', auth: 'user', summary: 'Start a crawl (as browser_crawl, same parameters); answers its id, state, counters and links', body: { tool: 'browser_crawl' } },
  { method: 'GET', path: '/v1/crawls', auth: 'user', summary: "The caller's crawls, newest first; pass the returned cursor for the next page", query: CrawlListQuery },
  { method: 'GET', path: '/v1/crawls/{id}', auth: 'user', summary: 'One crawl: state, counters and its parameters with every default filled', params: CrawlPath },
  { method: 'POST', path: '/v1/crawls/{id}/pause', auth: 'user', summary: 'Pause a running crawl: no new pages start, the queue is kept', params: CrawlPath },
  { method: 'POST', path: '/v1/crawls/{id}/resume', auth: 'user', summary: 'Resume a paused crawl', params: CrawlPath },
  { method: 'POST', path: '/v1/crawls/{id}/cancel', auth: 'user', summary: 'Cancel a crawl; its items are kept', params: CrawlPath },
  { method: 'DELETE', path: '/v1/crawls/{id}', auth: 'user', summary: 'Delete a crawl with its items (a running one is cancelled first)', params: CrawlPath },
  { method: 'GET', path: '/v1/crawls/{id}/items', auth: 'user', summary: "A page of a crawl's items, whole (not cut), in the order they finished", params: CrawlPath, query: CrawlItemsQuery },
  { method: 'GET', path: '/v1/crawls/{id}/export', auth: 'user', summary: "Every item of a crawl as a streamed file: JSON Lines, CSV (RFC 4180) or one JSON array", params: CrawlPath, query: CrawlExportQuery },
];

const bad = (message: string, next: string) => new BrowserdError('validation_error', message, { next });

const notFound = (id: string) => new BrowserdError('not_found', `no crawl ${id}`, { next: 'List your crawls with GET /v1/crawls.' });

/** A cursor the service could not read is the caller's mistake, told the way GET /v1/audit tells it. */
function withCursor<T>(read: () => T): T {
  try {
    return read();
  } catch (e) {
    // The service signs its cursors like the audit log does; a class of its own is recognised by name.
    if (e instanceof InvalidCursorError || (e instanceof Error && e.name === 'InvalidCursorError')) throw bad('the cursor is not one this server gave you', 'Pass the cursor from your previous page unchanged, or omit it to start at the beginning.');
    throw e;
  }
}

const links = (id: string) => ({ self: `/v1/crawls/${id}`, items: `/v1/crawls/${id}/items`, export: `/v1/crawls/${id}/export?format=jsonl` });

export function crawlHandlers(server: ServerDeps): Record<string, Handler> {
  const { env } = server;
  const crawls = server.services.get(CRAWLS);
  const me = (u: UserRecord | undefined) => u!;
  /** The caller's run, or not_found: the only way a route reaches a crawl (its id checked by CrawlPath). */
  const run = (user: string, id: string): { id: string; info: CrawlRunInfo } => {
    const info = crawls.get(user, id);
    if (!info) throw notFound(id);
    return { id, info };
  };
  /** Run answers carry the name and URLs the caller gave and notes that may quote a page: scrubbed like items. */
  const runJson = (user: string, info: CrawlRunInfo, extra: Record<string, unknown> = {}) => secretScrubber(env, user)({ ok: true, ...info, ...extra, links: links(info.id) });
  const act = (action: CrawlAction): Handler => async (r, u, _raw, { params }) => {
    const { id } = run(me(u).id, params.id!);
    const info = await crawls.act(me(u).id, id, action);
    sendJson(r, 200, runJson(me(u).id, info));
  };

  return {
    'POST /v1/crawls': async (r, u) => {
      const user = me(u);
      // The tool itself starts the run: its validation, policy, audit and errors are the same on both doors.
      const result = await server.callTool(user, 'browser_crawl', await toolBody(server, r, user, 'browser_crawl'), { signal: r.signal, via: 'rest', modelKey: r.headers['x-model-key'], requestId: r.id });
      if (!result.ok) return sendError(r, result.error);
      const id = result.out.data.id;
      const info = typeof id === 'string' ? crawls.get(user.id, id) : undefined;
      if (!info) throw new Error('browser_crawl answered without a crawl id this user can read');
      sendJson(r, 201, runJson(user.id, info));
    },
    'GET /v1/crawls': async (r, u, _raw, { query }) => {
      const { limit, cursor } = query as { limit: number; cursor?: string };
      const page = withCursor(() => crawls.list(me(u).id, { limit, ...(cursor !== undefined ? { cursor } : {}) }));
      const scrub = secretScrubber(env, me(u).id);
      sendJson(r, 200, { ok: true, crawls: page.runs.map((x) => scrub({ ...x, links: links(x.id) })), ...(page.next ? { cursor: page.next } : {}) });
    },
    'GET /v1/crawls/{id}': async (r, u, _raw, { params }) => {
      const { id, info } = run(me(u).id, params.id!);
      sendJson(r, 200, runJson(me(u).id, info, { spec: crawls.spec(me(u).id, id) }));
    },
    'POST /v1/crawls/{id}/pause': act('pause'),
    'POST /v1/crawls/{id}/resume': act('resume'),
    'POST /v1/crawls/{id}/cancel': act('cancel'),
    'DELETE /v1/crawls/{id}': async (r, u, _raw, { params }) => {
      const { id } = run(me(u).id, params.id!);
      await crawls.delete(me(u).id, id);
      sendJson(r, 200, { ok: true, id, deleted: true });
    },
    'GET /v1/crawls/{id}/items': async (r, u, _raw, { params, query }) => {
      const { id } = run(me(u).id, params.id!);
      const { status, limit, cursor } = query as { status?: ItemStatus; limit: number; cursor?: string };
      const page = withCursor(() => crawls.items(me(u).id, id, { limit, ...(status ? { status } : {}), ...(cursor !== undefined ? { cursor } : {}) }));
      const scrub = secretScrubber(env, me(u).id);
      sendJson(r, 200, { ok: true, id, items: page.items.map((x) => scrub(x)), ...(page.next ? { cursor: page.next } : {}) });
    },
    'GET /v1/crawls/{id}/export': async (r, u, _raw, { params, query }) => {
      const user = me(u).id;
      const { id } = run(user, params.id!);
      const { format, status } = query as { format: ExportFormat; status?: ItemStatus };
      const spec = crawls.spec(user, id);
      // A model-filled crawl has no fields: its columns are the schema's top-level properties.
      const fieldNames = Object.keys(spec?.fields ?? (spec?.outputSchema?.properties as Record<string, unknown> | undefined) ?? {});
      const items = crawls.iterateItems(user, id, status ? { status } : {});
      await sendStream(
        r,
        200,
        {
          'Content-Type': EXPORT_CONTENT_TYPES[format],
          'Content-Disposition': `attachment; filename="${id}.${format}"`,
          'X-Content-Type-Options': 'nosniff',
          'Cache-Control': 'no-store',
        },
        encodeExport(format, items, { fieldNames, secretForms: userSecretForms(env, user) }),
      );
    },
  };
}
