/**
 * Crawls over REST: start one (through the one dispatch, as browser_crawl), list and read runs, pause, resume,
 * cancel, delete, page through full items, and export them streamed as JSONL, CSV or JSON. Every run is looked
 * up under the caller's own id, so another user's crawl id is simply not found.
 */
import type { UserRecord } from '../../storage/users.js';
import { InvalidCursorError } from '../../storage/audit.js';
import { BrowserdError } from '../../protocol/errors.js';
import type { CrawlAction } from '../crawl/service.js';
import type { CrawlRunInfo, ItemStatus } from '../crawl/types.js';
import { EXPORT_CONTENT_TYPES, encodeExport, type ExportFormat } from '../crawl/export.js';
import { secretScrubber, userSecretForms } from '../vault/user-secrets.js';
import { sendError, sendJson, sendStream } from '../http/exchange.js';
import { toolBody, type Handler } from './rest-call.js';
import type { ServerDeps } from './deps.js';

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
  const me = (u: UserRecord | undefined) => u!;
  /** The caller's run, or not_found: the only way a route reaches a crawl (its id checked by CrawlPath). */
  const run = (user: string, id: string): { id: string; info: CrawlRunInfo } => {
    const info = server.crawls.get(user, id);
    if (!info) throw notFound(id);
    return { id, info };
  };
  /** Run answers carry the name and URLs the caller gave and notes that may quote a page: scrubbed like items. */
  const runJson = (user: string, info: CrawlRunInfo, extra: Record<string, unknown> = {}) => secretScrubber(env, user)({ ok: true, ...info, ...extra, links: links(info.id) });
  const act = (action: CrawlAction): Handler => async (r, u, _raw, { params }) => {
    const { id } = run(me(u).id, params.id!);
    const info = await server.crawls.act(me(u).id, id, action);
    sendJson(r, 200, runJson(me(u).id, info));
  };

  return {
    'POST /v1/crawls': async (r, u) => {
      const user = me(u);
      // The tool itself starts the run: its validation, policy, audit and errors are the same on both doors.
      const result = await server.callTool(user, 'browser_crawl', await toolBody(env, r, user, 'browser_crawl'), { signal: r.signal, via: 'rest', modelKey: r.headers['x-model-key'], requestId: r.id });
      if (!result.ok) return sendError(r, result.error);
      const id = result.out.data.id;
      const info = typeof id === 'string' ? server.crawls.get(user.id, id) : undefined;
      if (!info) throw new Error('browser_crawl answered without a crawl id this user can read');
      sendJson(r, 201, runJson(user.id, info));
    },
    'GET /v1/crawls': async (r, u, _raw, { query }) => {
      const { limit, cursor } = query as { limit: number; cursor?: string };
      const page = withCursor(() => server.crawls.list(me(u).id, { limit, ...(cursor !== undefined ? { cursor } : {}) }));
      const scrub = secretScrubber(env, me(u).id);
      sendJson(r, 200, { ok: true, crawls: page.runs.map((x) => scrub({ ...x, links: links(x.id) })), ...(page.next ? { cursor: page.next } : {}) });
    },
    'GET /v1/crawls/{id}': async (r, u, _raw, { params }) => {
      const { id, info } = run(me(u).id, params.id!);
      sendJson(r, 200, runJson(me(u).id, info, { spec: server.crawls.spec(me(u).id, id) }));
    },
    'POST /v1/crawls/{id}/pause': act('pause'),
    'POST /v1/crawls/{id}/resume': act('resume'),
    'POST /v1/crawls/{id}/cancel': act('cancel'),
    'DELETE /v1/crawls/{id}': async (r, u, _raw, { params }) => {
      const { id } = run(me(u).id, params.id!);
      await server.crawls.delete(me(u).id, id);
      sendJson(r, 200, { ok: true, id, deleted: true });
    },
    'GET /v1/crawls/{id}/items': async (r, u, _raw, { params, query }) => {
      const { id } = run(me(u).id, params.id!);
      const { status, limit, cursor } = query as { status?: ItemStatus; limit: number; cursor?: string };
      const page = withCursor(() => server.crawls.items(me(u).id, id, { limit, ...(status ? { status } : {}), ...(cursor !== undefined ? { cursor } : {}) }));
      const scrub = secretScrubber(env, me(u).id);
      sendJson(r, 200, { ok: true, id, items: page.items.map((x) => scrub(x)), ...(page.next ? { cursor: page.next } : {}) });
    },
    'GET /v1/crawls/{id}/export': async (r, u, _raw, { params, query }) => {
      const user = me(u).id;
      const { id } = run(user, params.id!);
      const { format, status } = query as { format: ExportFormat; status?: ItemStatus };
      const spec = server.crawls.spec(user, id);
      // A model-filled crawl has no fields: its columns are the schema's top-level properties.
      const fieldNames = Object.keys(spec?.fields ?? (spec?.outputSchema?.properties as Record<string, unknown> | undefined) ?? {});
      const items = server.crawls.iterateItems(user, id, status ? { status } : {});
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
