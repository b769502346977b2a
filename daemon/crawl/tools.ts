/**
 * browser_crawl starts a background crawl (durable: it goes on across daemon restarts) and answers its id at
 * once; browser_crawl_status follows it, steers it (pause, resume, cancel) and pages through its items, each
 * fenced and cut at 2,000 characters (REST serves them whole and exports them).
 */
import { Type } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { fillsWithModel } from './model-fill.js';
import { openModelSession } from '../models/session.js';
import { openCaptioner } from '../docs/collect.js';
import { DEFAULT_MAX_TOKENS_TOTAL } from '../../protocol/model-params.js';
import { params, StringEnum } from '../../protocol/params.js';
import { BrowserdError } from '../../protocol/errors.js';
import { InvalidCursorError } from '../../storage/audit.js';
import { checkUrl } from '../net/url-check.js';
import { CrawlParams, normaliseCrawlSpec } from './params.js';
import type { CrawlItem, CrawlRunInfo } from './types.js';
import { inline, inlineCut, pageUrl, urlLine, type ResponseBuilder } from '../call/response.js';
import { extractorOf } from '../model-features/extractor-of.js';
import { CrawlItemSchema, CrawlRunSchema } from './output-schemas.js';
import { CRAWLS } from './service.js';

/** What one item may show in a tool answer; the rest is on REST (GET /v1/crawls/{id}/items, export). */
export const ITEM_CHARS_IN_ANSWER = 2000;
const MAX_WAIT_S = 60;

function counters(run: CrawlRunInfo): string {
  const c = run.counters;
  return `${run.state}: ${c.done} done, ${c.failed} failed, ${c.blocked} blocked (robots.txt, or a link that would act), ${c.queued} queued`;
}

function describeRun(out: ResponseBuilder, run: CrawlRunInfo) {
  out.set('id', run.id);
  out.set('crawl', run);
  out.text(`Crawl ${run.id}${run.name ? ` (${inline(run.name)})` : ''} — ${counters(run)}${run.note ? `. ${inline(run.note)}` : ''}`);
}

/** An item's text for a model: what was read, cut at ITEM_CHARS_IN_ANSWER characters. */
function itemBody(item: CrawlItem): string {
  const parts: string[] = [];
  if (item.title) parts.push(`# ${item.title}`);
  if (item.fields) parts.push(`fields: ${JSON.stringify(item.fields)}`);
  if (item.schemaErrors) parts.push(`schema errors: ${item.schemaErrors.join('; ')}`);
  if (item.model?.citations) parts.push(`filled by ${item.model.id}; citations: ${item.model.citations.map((c) => `${c.field ?? '-'} ← "${c.quote}"`).join('; ') || 'none'}${item.model.warnings?.length ? `; warnings: ${item.model.warnings.join('; ')}` : ''}`);
  if (item.files?.length) {
    parts.push(`files (${item.files.length}):\n${item.files.map((f) => `- ${f.status === 'failed' ? `failed (${f.reason ?? 'failed'})` : `${f.name} (${f.type}, ${f.size} bytes${f.status === 'existing' ? ', already held' : ''})`}: ${f.url}`).join('\n')}`);
  }
  if (item.scroll) parts.push(`list: ${item.scroll.items.length} item(s) kept over ${item.scroll.scrolls} scroll(s), stopped: ${item.scroll.stoppedBecause}`);
  if (item.passages) parts.push(item.passages.map((p) => `${p.headingPath.length ? `§ ${p.headingPath.join(' › ')}\n` : ''}${p.text}`).join('\n\n---\n\n'));
  else if (item.content !== undefined) parts.push(item.content);
  else if (item.metadata) parts.push(JSON.stringify(item.metadata));
  const text = parts.join('\n\n');
  return text.length > ITEM_CHARS_IN_ANSWER ? `${text.slice(0, ITEM_CHARS_IN_ANSWER)}\n[… ${text.length - ITEM_CHARS_IN_ANSWER} more characters: GET /v1/crawls/{id}/items has the whole item]` : text;
}

const cutItem = (item: CrawlItem): CrawlItem => {
  const copy = { ...item };
  for (const k of ['content', 'formats', 'chunks'] as const) if (copy[k] !== undefined) delete copy[k];
  // Documents' Markdown and list items are whole on REST; here, what was kept and how much.
  if (copy.files) copy.files = copy.files.map(({ markdown, ...f }) => ({ ...f, ...(markdown !== undefined ? { markdownChars: markdown.length } : {}) }));
  if (copy.scroll) copy.scroll = { ...copy.scroll, items: copy.scroll.items.slice(0, 5) };
  return { ...copy, ...(item.content !== undefined ? { content: item.content.slice(0, ITEM_CHARS_IN_ANSWER) } : {}) };
};

export const crawlTools = [
  defineTool({
    name: 'browser_crawl',
    title: 'Crawl a site',
    description:
      "Starts a background crawl from startUrls and/or a sitemap; answers its id for browser_crawl_status. Honours robots.txt, paces each host, same domain by default. mode http: plain requests; browser: read-only tabs of your signed-in profile, never following a link that would act (sign out, delete, checkout...); auto (default): the browser only where scripts are needed. Items: Markdown, text or metadata, with CSS fields or a model-filled outputSchema, chunks, or passages for query.",
    input: CrawlParams,
    output: Type.Object({ id: Type.String({ description: 'The crawl id for browser_crawl_status.' }), crawl: CrawlRunSchema }),
    effect: 'read',
    hints: { readOnly: false, idempotent: false },
    needsBrowser: false,
    async handle(ctx, args, out) {
      // Looked up under the caller's id: an unknown or another user's extractor is not_found before anything starts.
      const learned = args.extractor ? extractorOf(ctx, args.extractor) : undefined;
      const spec = normaliseCrawlSpec(args, (u) => checkUrl(u, ctx.env.cfg), learned && { id: learned.id, version: learned.version, fields: learned.fields, schema: learned.schema });
      if (fillsWithModel(spec)) {
        // Model and key are resolved now, so a bad model id or a missing key refuses the crawl before it starts;
        // the resolved id is stored, so a later change of the server's default does not switch models mid-crawl.
        spec.model = openModelSession({ env: ctx.env, user: ctx.user.id, model: spec.model, key: ctx.modelKey, maxTokensTotal: spec.maxTokensTotal, signal: ctx.signal }).model.id;
        out.text(`A model (${spec.model}) fills outputSchema on every page, within ${spec.maxTokensTotal ?? DEFAULT_MAX_TOKENS_TOTAL} tokens for the whole crawl.`);
      }
      if (spec.collect?.caption) {
        // The same for captions: a bad collect.model or a missing key refuses the crawl now, not on its first image.
        const captions = openCaptioner(ctx.env, ctx.user.id, ctx.modelKey, spec.collect, ctx.signal);
        if (captions && 'session' in captions) spec.collect = { ...spec.collect, model: captions.session.model.id };
      }
      const run = await ctx.service(CRAWLS).start(ctx.user.id, spec, { modelKey: ctx.modelKey });
      describeRun(out, run);
      out.text(`Follow it with browser_crawl_status {"id": "${run.id}", "timeoutS": 30}; REST: GET /v1/crawls/${run.id}/items, export at /v1/crawls/${run.id}/export?format=jsonl.`);
    },
  }),
  defineTool({
    name: 'browser_crawl_status',
    title: 'Crawl status and items',
    description:
      'A crawl\'s state, counters and items (each cut at 2,000 characters); timeoutS waits while it runs; action pauses, resumes or cancels it (items kept).',
    input: params({
      id: Type.String({ pattern: '^crawl_[0-9a-f]{16}$' }),
      timeoutS: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_WAIT_S, description: 'Default 0.' })),
      action: Type.Optional(StringEnum(['pause', 'resume', 'cancel'])),
      items: Type.Optional(Type.Integer({ minimum: 0, maximum: 50, description: 'Default 10.' })),
      status: Type.Optional(StringEnum(['done', 'failed', 'blocked'])),
      cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    }),
    output: Type.Object({
      id: Type.String(),
      crawl: CrawlRunSchema,
      items: Type.Optional(Type.Array(CrawlItemSchema, { description: 'In the order they finished, each cut (GET /v1/crawls/{id}/items serves them whole). Absent with items: 0.' })),
      cursor: Type.Optional(Type.String({ description: 'Pass it back for the next items.' })),
    }),
    effect: 'read',
    hints: { readOnly: false, destructive: true, idempotent: false },
    openWorld: false,
    needsBrowser: false,
    async handle(ctx, args, out) {
      const user = ctx.user.id;
      const known = ctx.service(CRAWLS).get(user, args.id);
      if (!known) throw new BrowserdError('not_found', `no crawl ${args.id}`, { next: 'Start one with browser_crawl; its answer has the id.' });
      const run = args.action
        ? await ctx.service(CRAWLS).act(user, args.id, args.action)
        : await ctx.progress.during(ctx.service(CRAWLS).waitWhileRunning(user, args.id, (args.timeoutS ?? 0) * 1000, ctx.signal), (args.timeoutS ?? 0) * 1000, () => {
            const now = ctx.service(CRAWLS).get(user, args.id);
            return now ? `seconds waited; ${counters(now)}` : undefined;
          });
      describeRun(out, run);
      const limit = args.items ?? 10;
      if (limit === 0) return;
      let page;
      try {
        page = ctx.service(CRAWLS).items(user, args.id, { status: args.status, cursor: args.cursor, limit });
      } catch (e) {
        if (e instanceof InvalidCursorError) throw new BrowserdError('validation_error', 'the cursor is not one this server gave you for this crawl', { next: 'Pass the cursor from the previous answer\'s More line unchanged, or leave it out to start at the first item.' });
        throw e;
      }
      out.set('items', page.items.map(cutItem));
      if (!page.items.length) out.text(args.cursor ? 'No more items.' : `No ${args.status ? `${args.status} ` : ''}items yet.`);
      for (const item of page.items) {
        const head = `${item.seq}. ${item.status}${item.httpStatus ? ` (HTTP ${item.httpStatus})` : ''} depth ${item.depth}: ${pageUrl(item.url)}${item.error ? ` — ${inlineCut(item.error)}` : ''}`;
        out.text(head);
        if (item.errorPageText) out.page(`page text of the error of crawl item ${item.seq}`, item.errorPageText);
        if (item.status === 'done') out.page(`crawl item ${item.seq}`, `${urlLine(item.url)}${itemBody(item)}`);
      }
      // Pages link to these addresses: the lines above show them cut, so the whole ones (of items with no fence
      // of their own) follow in one fence.
      const whole = page.items.filter((i) => i.status !== 'done' && pageUrl(i.url) !== i.url).map((i) => `${i.seq}. ${i.url}`);
      if (whole.length) out.page('addresses of the items above', whole.join('\n'));
      if (page.next) {
        out.set('cursor', page.next);
        out.text(`More: browser_crawl_status {"id": "${args.id}", "cursor": "${page.next}"${args.status ? `, "status": "${args.status}"` : ''}}`);
      }
    },
  }),
];
