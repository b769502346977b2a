/**
 * browser_read: clean Markdown of the main content of a tab or of up to 50 URLs (answered in order, read in
 * read-mode scratch tabs on the user's own profile), optionally cut to the passages that best match a query.
 * A feed is answered as its entries; with cache, the scratch tabs record into or replay from a response cache.
 */
import { Type } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { IncludeHiddenParam, params, StringEnum, TabParam } from '../../protocol/params.js';
import { BrowserdError } from '../../protocol/errors.js';
import { checkUrl } from '../net/url-check.js';
import { inline, inlineCut, pageUrl, urlLine, type ResponseBuilder } from '../call/response.js';
import { CollectParam, ScrollUntilParam } from '../../protocol/read-params.js';
import { checkCollectOptions, openCaptioner, type CollectedEntry } from '../docs/collect.js';
import { checkScrollOptions, type ScrollStop } from '../read/scroll-until.js';
import { MaxTokensTotalParam, ModelIdParam } from '../../protocol/model-params.js';
import { openModelSession, type ModelSession } from '../models/session.js';
import { rerankPassages, summarisePage } from '../models/summary.js';
import { SessionUsageSchema } from '../models/types.js';
import { TabIdField } from '../call/output.js';
import { errorLine, errorString } from '../call/error-line.js';
import { CACHE_MODES } from '../../protocol/crawl.js';
import { READ_MAX_URLS, PageReadingSchema, readTab, readUrls, type PageReading, type ReadOptions } from '../reading/pages.js';

const RERANK_POOL = 20;

const STOP_WORDS: Record<ScrollStop, string> = {
  count: 'it held the items asked for (count)',
  no_new: 'the page neither grew nor moved for noNewForMs, short of its end',
  max_scrolls: 'it used maxScrolls wheel turns',
  end: 'it reached the end and nothing more loaded',
};

const kb = (n: number) => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`);

/**
 * The collected files of one page: a trusted line each in our words (addresses through pageUrl()), and what the
 * page chose (file names, addresses, why a fetch failed, a document's Markdown) fenced.
 */
function writeFiles(out: ResponseBuilder, files: CollectedEntry[], page: number) {
  const ok = files.filter((f) => f.status !== 'failed').length;
  out.text(`Files of page ${page}: ${ok} of ${files.length} collected${files.length ? '' : ' (none of the asked types linked)'}; stored once in your files (browser_downloads lists them).`);
  files.forEach((f, n) => {
    const file = `file ${n + 1} of page ${page}`;
    if (f.status === 'failed') {
      out.text(`- ${file}: ${f.type} from ${pageUrl(f.url)} — failed (${f.reason}); the address and why are fenced below`);
      out.page(file, `url: ${f.url}\nerror: ${f.error ?? ''}`);
      return;
    }
    const how = f.status === 'existing' ? 'already in your files' : 'stored';
    out.text(`- ${file}: ${f.type}, ${kb(f.size!)}, from ${pageUrl(f.url)} — ${how}${f.convertError ? '; not converted' : ''}${f.truncated ? '; Markdown cut at maxChars' : ''}${f.captionError ? '; no caption' : ''} (its name below)`);
    const about = [`name: ${f.name}`, `url: ${f.url}`, ...(f.convertError ? [`not converted: ${f.convertError}`] : []), ...(f.captionError ? [`no caption: ${f.captionError}`] : [])].join('\n');
    out.page(file, f.markdown !== undefined ? `${about}\n\n${f.markdown}` : about);
    if (f.caption !== undefined) out.page(`caption of ${file} (written by a model from the image)`, f.caption);
  });
}

export const readPageTools = [
  defineTool({
    name: 'browser_read',
    title: 'Read as Markdown',
    description:
      "Clean Markdown of the main content of a tab, or of up to 50 urls (read-only tabs of your profile). A feed is read as its entries.",
    input: params({
      tab: TabParam,
      urls: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 8192 }), { description: 'Instead of a tab.', minItems: 1, maxItems: READ_MAX_URLS })),
      query: Type.Optional(Type.String({ description: 'Keep only the best matching passages (BM25).', minLength: 1, maxLength: 1000 })),
      topK: Type.Optional(Type.Integer({ description: 'Default 5.', minimum: 1, maximum: 50 })),
      maxChars: Type.Optional(Type.Integer({ description: 'Per page. Default 20000.', minimum: 100, maximum: 200000 })),
      includeHidden: IncludeHiddenParam,
      scrollUntil: Type.Optional(ScrollUntilParam),
      collect: Type.Optional(CollectParam),
      summary: Type.Optional(Type.Union([Type.Boolean(), Type.String({ minLength: 1, maxLength: 2000 })], { description: 'true: a model summarises each page; a string: as it says.' })),
      rerank: Type.Optional(StringEnum(['model'], { description: 'A model re-orders the passages for query.' })),
      model: ModelIdParam,
      maxTokensTotal: MaxTokensTotalParam,
      cache: Type.Optional(StringEnum(CACHE_MODES, { description: 'With urls: record, replay (site for the rest) or replay-strict.' })),
      cacheName: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$' })),
    }),
    output: Type.Object({
      tab: Type.Optional(TabIdField),
      pages: Type.Array(PageReadingSchema, { description: 'One per page read: the tab, or each of urls in the order given.' }),
      usage: Type.Optional(SessionUsageSchema),
      model: Type.Optional(Type.String({ description: 'With summary or rerank "model": the model used.' })),
    }),
    effect: 'read',
    hints: { readOnly: false, idempotent: true },
    check(args) {
      if (args.tab && args.urls) throw new BrowserdError('validation_error', 'give tab or urls, not both', { next: 'Read a tab, or a list of addresses.' });
      if (args.rerank && !args.query) throw new BrowserdError('validation_error', 'rerank goes with query', { next: 'Give query too, or drop rerank.' });
      if ((args.model !== undefined || args.maxTokensTotal !== undefined) && !usesModel(args)) {
        throw new BrowserdError('validation_error', 'model and maxTokensTotal go with summary or rerank "model"', { next: 'Give summary or rerank, or drop model and maxTokensTotal.' });
      }
      if (args.scrollUntil) checkScrollOptions(args.scrollUntil);
      if (args.collect) checkCollectOptions(args.collect);
      // A tab is read as it already is: no response of it is still to come for a cache to store or answer.
      if (args.cache !== undefined && args.cache !== 'off' && !args.urls) throw new BrowserdError('validation_error', 'cache goes with urls', { next: 'Pass the addresses as urls, or drop cache to read the tab as it is.' });
      if (args.cacheName !== undefined && (args.cache === undefined || args.cache === 'off')) throw new BrowserdError('validation_error', 'cacheName goes with cache', { next: 'Give cache ("record", "replay" or "replay-strict") too, or drop cacheName.' });
    },
    async handle(ctx, args, out) {
      // Model and key are resolved before any page is read: a bad model id or a missing key costs nothing.
      const session = usesModel(args) ? openModelSession({ env: ctx.env, user: ctx.user.id, model: args.model, key: ctx.modelKey, maxTokensTotal: args.maxTokensTotal, signal: ctx.signal }) : undefined;
      if (ctx.modelKey) out.addSecret(ctx.modelKey);
      const topK = args.topK ?? 5;
      const opts: ReadOptions = { includeHidden: args.includeHidden, query: args.query, topK: args.rerank ? Math.max(topK, RERANK_POOL) : topK, maxChars: args.maxChars ?? 20000, scrollUntil: args.scrollUntil, signal: ctx.signal,
        collect: args.collect, collector: { env: ctx.env, user: ctx.user.id, signal: ctx.signal, captions: openCaptioner(ctx.env, ctx.user.id, ctx.modelKey, args.collect, ctx.signal) },
      };
      let readings: PageReading[];
      if (args.urls) {
        const urls = args.urls.map((u) => checkUrl(u, ctx.env.cfg));
        readings = await readUrls(ctx, urls, opts, { mode: args.cache ?? 'off', name: args.cacheName ?? 'default' });
      } else {
        const tab = await ctx.tab(args.tab);
        readings = [await readTab(tab, opts)];
        out.set('tab', tab.id);
      }
      if (session) await modelSteps(session, readings, { summary: args.summary, rerank: args.rerank === 'model' ? args.query : undefined, topK });
      out.set('pages', readings);
      if (session) {
        const u = session.usage();
        out.set('usage', u);
        out.set('model', session.model.id);
        out.text(`Model ${session.model.id}: ${u.turns} turn(s), ${u.inputTokens} input and ${u.outputTokens} output tokens of a ${u.budget} budget.`);
      }
      out.text(`Read ${readings.filter((r) => r.ok).length} of ${readings.length} page(s)${args.query ? `, best passages for the query${args.rerank ? ' (ranked by the model)' : ''}` : ''}:`);
      readings.forEach((r, i) => {
        if (!r.ok) {
          out.text(`${i + 1}. ${pageUrl(r.url)} — failed: ${inlineCut(r.error ?? '')}`).fullUrl(`address of page ${i + 1}`, r.url);
          if (r.errorPageText) out.page(`page text of the error of page ${i + 1}`, r.errorPageText);
          return;
        }
        const body = r.passages ? r.passages.map((p) => `${p.headingPath.length ? `§ ${p.headingPath.join(' › ')}\n` : ''}${p.text}`).join('\n\n---\n\n') : r.markdown!;
        out.text(`${i + 1}. ${pageUrl(r.url)}${r.cached ? ' (from the response cache)' : ''}${r.feed ? ` \u2014 a feed, ${r.feed.entries.length} entr${r.feed.entries.length === 1 ? 'y' : 'ies'} (each with its title, link, date and text below)` : ''}`);
        if (r.scroll) {
          const s = r.scroll;
          out.text(`Scrolled ${s.scrolls} time(s), stopped because ${STOP_WORDS[s.stoppedBecause]}${args.scrollUntil?.item ? `; ${s.items.length} item(s) kept in order:` : '.'}`);
          if (s.items.length) out.page(`items of page ${i + 1}`, s.items.map((it, n) => `${n + 1}. ${it.replace(/\n/g, '\n   ')}`).join('\n'));
        }
        if (r.modelWarning) out.text(`Page ${i + 1}: ${inline(r.modelWarning)}`);
        if (r.summary) out.page(`summary of page ${i + 1} (written by the model from page text)`, r.summary);
        // The whole address opens the page's own fence when the numbered line showed it cut.
        out.page(`page ${i + 1}`, `${urlLine(r.url)}# ${r.title ?? ''}\n\n${body}`);
        if (r.files) writeFiles(out, r.files, i + 1);
      });
    },
  }),
];

const usesModel = (args: { summary?: boolean | string; rerank?: string }) => (args.summary !== undefined && args.summary !== false) || args.rerank === 'model';

/**
 * The model steps, page after page on one budget (turns are never sent in parallel, so the budget check before
 * each one sees what the earlier ones cost). A budget refusal ends the call: nothing more would fit. Any other
 * model failure stays with its page, which keeps its text.
 */
async function modelSteps(session: ModelSession, readings: PageReading[], steps: { summary?: boolean | string; rerank?: string; topK: number }) {
  for (const r of readings) {
    if (!r.ok) continue;
    try {
      if (steps.rerank && r.passages) {
        const ranked = await rerankPassages(session, r.url, steps.rerank, r.passages, steps.topK);
        r.passages = ranked.passages;
        r.reranked = !ranked.warning;
        if (ranked.warning) r.modelWarning = ranked.warning;
      }
      if (steps.summary) {
        const text = r.markdown ?? (r.passages ?? []).map((p) => p.text).join('\n\n');
        r.summary = await summarisePage(session, { url: r.url, title: r.title, markdown: text }, typeof steps.summary === 'string' ? steps.summary : undefined);
      }
    } catch (e) {
      if (e instanceof BrowserdError && (e.code === 'budget_exceeded' || e.code === 'timeout')) throw e;
      // The model's (or provider's) words about the page are dropped here: the page's text is still in the result.
      r.modelWarning = `the model step failed: ${errorString(errorLine(e))}`;
    }
    // A re-rank that failed leaves the whole candidate pool: the caller still gets topK, in BM25 order.
    if (r.passages && r.passages.length > steps.topK) r.passages = r.passages.slice(0, steps.topK);
  }
}
