/**
 * browser_extract_ai (MCP tool, and POST /v1/extract): a caller's JSON Schema filled by a model from a tab or
 * addresses, checked with ajv (one repair turn) and cited with quotes checked against the page. The model and
 * key are resolved before any page is read, so a bad model id or a missing key costs nothing.
 */
import { Type } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { IncludeHiddenParam, params } from '../../protocol/params.js';
import { BrowserdError, toBrowserdError } from '../../protocol/errors.js';
import { MaxTokensTotalParam, ModelIdParam } from '../../protocol/model-params.js';
import { openModelSession, type ModelSession } from '../models/session.js';
import { checkExtractSchema, extractFromPages } from '../models/extract.js';
import { askPages } from '../models/ask.js';
import { CitationSchema, type Citation } from '../models/citations.js';
import { SessionUsageSchema, TurnUsageSchema, type SessionUsage } from '../models/types.js';
import { PageText, PageValue, UrlField } from '../call/output.js';
import { readPagesForModel, type ModelPage } from '../reading/model-pages.js';
import { checkOneSource, checkSourceUrls, MODEL_MAX_URLS, sourceParams } from '../reading/model-source.js';
import { inlineCut, pageUrl, urlLine, type ResponseBuilder } from '../call/response.js';

export interface PageExtraction {
  url: string;
  ok: boolean;
  data?: unknown;
  citations?: Citation[];
  warnings?: string[];
  /** This page's share of the call's tokens. */
  usage?: { inputTokens: number; outputTokens: number; turns: number };
  error?: { code: string; message: string; pageText?: string };
}

/**
 * Warnings name quotes a model made up (a citation not on the page): model words about page text, shown
 * fenced like the data.
 */
const WarningsField = Type.Array(PageText(), { description: 'Citations dropped (their quote is not on the page) and other notes on the answer.' });
const DataField = PageValue({ description: "The data, valid against the caller's schema (written from page text: over MCP every string in it is fenced)." });

/** A PageExtraction as a result field (browser_extract_ai with urls). */
const PageExtractionSchema = Type.Object({
  url: UrlField,
  ok: Type.Boolean({ description: 'false: this page failed (see error); the others still ran.' }),
  data: Type.Optional(DataField),
  citations: Type.Optional(Type.Array(CitationSchema)),
  warnings: Type.Optional(WarningsField),
  usage: Type.Optional(Type.Object(TurnUsageSchema.properties, { description: "This page's share of the call's tokens." })),
  error: Type.Optional(
    Type.Object({
      code: Type.String({ description: 'An error code (protocol errors table).' }),
      message: Type.String(),
      pageText: Type.Optional(PageText({ description: "The page's (or the model's) words the error is about." })),
    }),
  ),
});

/** The session's totals now, to tell what one page of a many-page call cost. */
const mark = (u: SessionUsage) => ({ inputTokens: u.inputTokens, outputTokens: u.outputTokens, turns: u.turns });
const since = (a: ReturnType<typeof mark>, b: SessionUsage) => ({ inputTokens: b.inputTokens - a.inputTokens, outputTokens: b.outputTokens - a.outputTokens, turns: b.turns - a.turns });

/**
 * A page that could not be read, as the caller's error. Why is the reading pipeline's message (our words: errors
 * carry a page's words apart, and the address is cut on our line); it is given whole as the error's page text too.
 */
function unreadable(page: ModelPage): BrowserdError {
  return new BrowserdError('action_failed', `${page.url} could not be read (why is the page text of this error)`, {
    next: 'Check the address with browser_open, or read a tab that shows the page.',
    pageText: page.error ?? 'unknown error',
  });
}

async function extractOne(session: ModelSession, page: ModelPage, spec: { schema: Record<string, unknown>; prompt?: string }): Promise<PageExtraction> {
  if (!page.ok) throw unreadable(page);
  const before = mark(session.usage());
  const r = await extractFromPages(session, [page], spec);
  return { url: page.url, ok: true, data: r.data, citations: r.citations, warnings: r.warnings, usage: since(before, session.usage()) };
}

function describe(out: ResponseBuilder, r: PageExtraction, n?: number) {
  const head = n === undefined ? '' : `${n}. `;
  if (!r.ok) {
    out.text(`${head}${pageUrl(r.url)} — failed: ${r.error!.code}: ${inlineCut(r.error!.message)}`).fullUrl(`address of page ${n ?? 1}`, r.url);
    if (r.error!.pageText !== undefined) out.page(`page text of the error of page ${n ?? 1}`, r.error!.pageText);
    return;
  }
  out.text(`${head}${pageUrl(r.url)}: data matches the schema; ${r.citations!.length} citation(s) checked against the page${r.warnings!.length ? `, ${r.warnings!.length} warning(s)` : ''}.`);
  out.page(`data extracted from page ${n ?? 1}`, `${urlLine(r.url)}${JSON.stringify(r.data, null, 2)}`);
  if (r.citations!.length) out.page(`citations on ${r.url}`, r.citations!.map((c) => `${c.field ?? '-'} ← [${c.chunk}] "${c.quote}"`).join('\n'));
  if (r.warnings!.length) out.page(`warnings for ${r.url}`, r.warnings!.join('\n'));
}

export const extractAiTools = [
  defineTool({
    name: 'browser_extract_ai',
    title: 'Extract with a model',
    description: 'A model fills a JSON Schema from one of url, urls or tab, sent only the best matching passages; the answer is checked against the schema and each citation against the page.',
    input: params({
      ...sourceParams('Each extracted on its own.'),
      schema: Type.Object({}, { additionalProperties: true, description: 'JSON Schema of the data.' }),
      prompt: Type.Optional(Type.String({ minLength: 1, maxLength: 4000 })),
      model: ModelIdParam,
      maxTokensTotal: MaxTokensTotalParam,
      includeHidden: IncludeHiddenParam,
    }),
    output: Type.Object({
      url: Type.Optional(PageText({ description: 'With url or tab: the page the data came from.' })),
      data: Type.Optional(DataField),
      citations: Type.Optional(Type.Array(CitationSchema, { description: 'With url or tab: quotes backing the data, each checked to be on the page.' })),
      warnings: Type.Optional(WarningsField),
      results: Type.Optional(Type.Array(PageExtractionSchema, { description: 'With urls: one per address, in order.' })),
      usage: SessionUsageSchema,
      model: Type.String({ description: 'The model used.' }),
    }),
    effect: 'read',
    check(args) {
      checkOneSource(args, '{"url": "https://shop.example/item/1", "schema": {...}}');
      checkExtractSchema(args.schema);
    },
    async handle(ctx, args, out) {
      checkSourceUrls(ctx, args);
      if (ctx.modelKey) out.addSecret(ctx.modelKey);
      const session = openModelSession({ env: ctx.env, user: ctx.user.id, model: args.model, key: ctx.modelKey, maxTokensTotal: args.maxTokensTotal, signal: ctx.signal });
      const spec = { schema: args.schema, prompt: args.prompt };
      const pages = await readPagesForModel(ctx, { url: args.url, urls: args.urls, tab: args.tab, includeHidden: args.includeHidden });
      if (args.urls === undefined) {
        const r = await extractOne(session, pages[0], spec);
        out.set('url', r.url);
        out.set('data', r.data);
        out.set('citations', r.citations);
        out.set('warnings', r.warnings);
        finish(out, session);
        describe(out, r);
        return;
      }
      const results: PageExtraction[] = [];
      for (const page of pages) {
        ctx.checkCancelled();
        try {
          results.push(await extractOne(session, page, spec));
        } catch (e) {
          const err = toBrowserdError(e);
          // A cancelled call ends here; any other failure belongs to its page, and the next page still runs.
          if (ctx.signal.aborted) throw err;
          results.push({ url: page.url, ok: false, error: { code: err.code, message: err.message, ...(err.pageText !== undefined ? { pageText: err.pageText } : {}) } });
        }
      }
      out.set('results', results);
      finish(out, session);
      out.text(`Extracted ${results.filter((r) => r.ok).length} of ${results.length} page(s):`);
      results.forEach((r, i) => describe(out, r, i + 1));
    },
  }),
];

function finish(out: ResponseBuilder, session: ModelSession) {
  const u = session.usage();
  out.set('usage', u);
  out.set('model', session.model.id);
  out.text(`Model ${session.model.id}: ${u.turns} turn(s), ${u.inputTokens} input and ${u.outputTokens} output tokens of a ${u.budget} budget.`);
}

/** REST-only (POST /v1/ask): a question answered from pages with checked citations. */
export const askOperations = [
  defineTool({
    name: 'ask',
    title: 'Ask about pages',
    description: `Answers a question from a tab, url or urls (1-${MODEL_MAX_URLS}, read together) with a model: the passages that best match the question are sent, fenced as data (hidden text left out unless includeHidden); every citation's quote is checked against the pages, one not on a page is dropped and named in warnings. Returns answer, citations (chunk, quote, url, headingPath, start, end), warnings, usage and model.`,
    input: params({
      question: Type.String({ minLength: 1, maxLength: 4000, description: 'The question.' }),
      ...sourceParams(`1-${MODEL_MAX_URLS} addresses, read together: the answer may draw on all of them.`),
      model: ModelIdParam,
      maxTokensTotal: MaxTokensTotalParam,
      includeHidden: IncludeHiddenParam,
    }),
    output: Type.Object({
      answer: PageText({ description: "The model's answer, from the pages' text." }),
      citations: Type.Array(CitationSchema, { description: 'Quotes backing the answer, each checked to be on a page.' }),
      warnings: WarningsField,
      failed: Type.Optional(Type.Array(Type.Object({ url: UrlField, error: PageText() }), { description: 'Addresses that could not be read; the answer comes from the others.' })),
      usage: SessionUsageSchema,
      model: Type.String({ description: 'The model used.' }),
    }),
    effect: 'read',
    check(args) {
      checkOneSource(args, '{"question": "What does it cost?", "url": "https://shop.example/item/1"}');
    },
    async handle(ctx, args, out) {
      checkSourceUrls(ctx, args);
      if (ctx.modelKey) out.addSecret(ctx.modelKey);
      const session = openModelSession({ env: ctx.env, user: ctx.user.id, model: args.model, key: ctx.modelKey, maxTokensTotal: args.maxTokensTotal, signal: ctx.signal });
      const pages = await readPagesForModel(ctx, { url: args.url, urls: args.urls, tab: args.tab, includeHidden: args.includeHidden });
      const readable = pages.filter((p) => p.ok);
      if (!readable.length) throw unreadable(pages[0]);
      const r = await askPages(session, readable, args.question);
      const failed = pages.filter((p) => !p.ok).map((p) => ({ url: p.url, error: p.error ?? 'unknown error' }));
      out.set('answer', r.answer);
      out.set('citations', r.citations);
      out.set('warnings', r.warnings);
      if (failed.length) out.set('failed', failed);
      finish(out, session);
      for (const f of failed) out.text(`Not read: ${pageUrl(f.url)} (the address and why are fenced below)`).page('page not read', `url: ${f.url}\nerror: ${f.error}`);
      out.page('answer (from page text)', r.answer);
      if (r.citations.length) out.page('citations', r.citations.map((c) => `[${c.chunk}] ${c.url}: "${c.quote}"`).join('\n'));
      if (r.warnings.length) out.page('warnings', r.warnings.join('\n'));
    },
  }),
];
