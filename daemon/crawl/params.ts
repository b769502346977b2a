/**
 * What browser_crawl and POST /v1/crawls accept: one schema for both, with the bounds the service promises, and
 * the defaults filled in once (normaliseCrawlSpec) so the engine, the store and the exports read one shape.
 */
import { Type, type Static } from '@sinclair/typebox';
import { params, StringEnum } from '../../protocol/params.js';
import { BrowserdError } from '../../protocol/errors.js';
import { DEFAULT_MAX_TOKENS_TOTAL, MAX_TOKENS_TOTAL_LIMIT } from '../../protocol/model-params.js';
import { CACHE_MODES, CRAWL_FORMATS, type CrawlSpec } from '../../protocol/crawl.js';
import { CollectParam, ScrollUntilParam } from '../../protocol/read-params.js';
import { checkCollectOptions } from '../docs/collect.js';
import { checkScrollOptions } from '../read/scroll-until.js';
import { ModelIdParam } from '../../protocol/model-params.js';

export { CACHE_MODES, CRAWL_FORMATS, type CrawlSpec };

const Pattern = Type.String({ minLength: 1, maxLength: 2048 });
const FieldSpec = Type.Union([
  Type.String({ minLength: 1, maxLength: 1000, description: 'CSS selector: the text of the first match.' }),
  Type.Object(
    {
      css: Type.String({ minLength: 1, maxLength: 1000 }),
      attr: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'An attribute instead of the text (href and src come back absolute).' })),
      all: Type.Optional(Type.Boolean({ description: 'Every match as a list, not just the first.' })),
    },
    { additionalProperties: false },
  ),
]);

export const COLLECT_TYPES = ['pdf', 'docx', 'doc', 'xlsx', 'xls', 'pptx', 'ppt', 'odt', 'ods', 'odp', 'rtf', 'epub', 'csv', 'tsv', 'image', 'audio', 'video'] as const;

export const CrawlParams = params({
  startUrls: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 8192 }), { minItems: 1, maxItems: 100, description: 'Pages to start from (depth 0); always crawled, whatever allow/deny say. Give startUrls, sitemap or both.' })),
  sitemap: Type.Optional(Type.String({ minLength: 1, maxLength: 8192, description: 'A sitemap or sitemap index URL (plain or gzipped); its pages are added at depth 0.' })),
  allow: Type.Optional(Type.Array(Pattern, { maxItems: 50, description: 'Only follow URLs matching one of these. * is a wildcard, everything else literal and case-sensitive; a pattern with :// is matched against the whole URL, otherwise against path and query. Deny wins.' })),
  deny: Type.Optional(Type.Array(Pattern, { maxItems: 50, description: 'Never follow URLs matching one of these (same syntax as allow).' })),
  sameDomain: Type.Optional(Type.Boolean({ description: 'Stay on the start URLs\' domains (www. ignored). Default true.' })),
  maxPages: Type.Optional(Type.Integer({ minimum: 1, maximum: 5000, description: 'Pages to read, done and failed together: 1-5000, default 50.' })),
  maxDepth: Type.Optional(Type.Integer({ minimum: 0, maximum: 20, description: 'Links followed from a start page: 0-20, default 2.' })),
  concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 8, description: 'Pages read at once: 1-8, default 2 (at most 2 in the browser).' })),
  delayMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 60000, description: 'Milliseconds between requests to one host: 0-60000, default 1000. robots.txt Crawl-delay and 429/503 back-off can lengthen it.' })),
  mode: Type.Optional(StringEnum(['http', 'browser', 'auto'], { description: 'http: plain requests; browser: read-only tabs on your own signed-in profile; auto (default): http, and the browser for pages that need scripts.' })),
  format: Type.Optional(StringEnum(['markdown', 'text', 'json'], { description: 'markdown (default), text, or json: page metadata (description, language, canonical URL, headings, JSON-LD) and no content.' })),
  maxChars: Type.Optional(Type.Integer({ minimum: 1, maximum: 200000, description: 'Content characters kept per page: 1-200000, default 20000.' })),
  fields: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 100 }), FieldSpec, { description: 'name -> CSS selector, or {css, attr, all}: exact values per page.' })),
  outputSchema: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'A JSON Schema (type object). With fields: each page\'s fields are checked against it. Without fields: a model fills it on every page from the page\'s best passages (checked against the schema, citations checked against the page), using the starting call\'s X-Model-Key (kept in memory only; after a restart the server\'s key).' })),
  prompt: Type.Optional(Type.String({ minLength: 1, maxLength: 4000, description: 'With outputSchema and no fields: what a model should fill in.' })),
  model: ModelIdParam,
  maxTokensTotal: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_TOKENS_TOTAL_LIMIT, description: `With outputSchema and no fields: the model token budget for the whole crawl, 1-${MAX_TOKENS_TOTAL_LIMIT}, default ${DEFAULT_MAX_TOKENS_TOTAL}. A page whose turn cannot fit fails (budget_exceeded) with nothing sent.` })),
  extractor: Type.Optional(Type.String({ pattern: '^ext_[A-Za-z0-9]{1,64}$', description: 'A learned extractor (ext_..., POST /v1/extractors): its fields and schema are read on every page, with no model. Give it alone, without fields, outputSchema or prompt.' })),
  obeyRobots: Type.Optional(Type.Boolean({ description: 'Honour robots.txt (and its Crawl-delay). Default true.' })),
  includeHidden: Type.Optional(Type.Boolean({ description: 'Keep text a person cannot see. Default false.' })),
  cache: Type.Optional(StringEnum(CACHE_MODES, { description: 'off (default); record: store responses; replay: use stored ones, the network for the rest; replay-strict: stored ones only, a page with none fails.' })),
  cacheName: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$', description: 'Which response cache: letters, digits, ".", "_", "-". Default "default".' })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'A name to find this crawl by.' })),
  formats: Type.Optional(Type.Array(StringEnum(CRAWL_FORMATS, { description: 'A representation.' }), { maxItems: 6, uniqueItems: true, description: 'More representations per page: markdown, text, html, links, images, metadata.' })),
  chunk: Type.Optional(
    Type.Object(
      {
        by: StringEnum(['tokens', 'headings'], { description: 'Split by token count or at headings.' }),
        size: Type.Optional(Type.Integer({ minimum: 50, maximum: 8000, description: 'Tokens per chunk (by tokens), default 500.' })),
        overlap: Type.Optional(Type.Integer({ minimum: 0, maximum: 2000, description: 'Tokens shared by neighbouring chunks, default 50.' })),
      },
      { additionalProperties: false, description: 'Chunks with citations: URL, heading path, character offsets.' },
    ),
  ),
  query: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'Keep only the passages that best match (BM25, no model).' })),
  topK: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: 'Passages per page with query, default 5.' })),
  collect: Type.Optional(CollectParam),
  scrollUntil: Type.Optional(ScrollUntilParam),
});
export type CrawlParamsInput = Static<typeof CrawlParams>;


/** Most pages read at once inside one browser: more tabs on a 2-core host only queue behind each other. */
export const BROWSER_CONCURRENCY = 2;

const bad = (message: string, next: string) => new BrowserdError('validation_error', message, { next });

/**
 * Fills defaults and refuses what the schema cannot say. `checkUrl` is the daemon's one address check (scheme,
 * literal private addresses), passed in so this module stays free of the network layer.
 */
/** A learned extractor as a crawl uses it: its fields and schema, looked up for the caller before the crawl starts. */
export interface CrawlExtractor {
  id: string;
  version: number;
  fields: NonNullable<CrawlSpec['fields']>;
  schema: Record<string, unknown>;
}

export function normaliseCrawlSpec(p: CrawlParamsInput, checkUrl: (u: string) => string, extractor?: CrawlExtractor): CrawlSpec {
  if (!p.startUrls?.length && !p.sitemap) throw bad('give startUrls, sitemap or both', 'Pass {"startUrls": ["https://example.com/"]} or {"sitemap": "https://example.com/sitemap.xml"}.');
  if (p.extractor && (p.fields || p.outputSchema || p.prompt)) throw bad('extractor brings its own fields and schema: give it alone', 'Drop fields, outputSchema and prompt, or drop extractor.');
  if (p.extractor && extractor?.id !== p.extractor) throw new BrowserdError('not_found', `no extractor ${p.extractor}`, { next: 'List yours with GET /v1/extractors, or learn one with POST /v1/extractors.' });
  if (p.prompt && !p.outputSchema) throw bad('prompt goes with outputSchema', 'Drop prompt, or give outputSchema too.');
  // outputSchema without fields: a model fills it on every page (daemon/crawl/model-fill.ts).
  const byModel = !!p.outputSchema && !p.fields && !p.extractor;
  if (p.prompt && p.fields) throw bad('prompt tells a model what to fill, and with fields no model runs', 'Drop prompt, or drop fields to have a model fill outputSchema.');
  if ((p.model !== undefined || p.maxTokensTotal !== undefined) && !byModel) throw bad('model and maxTokensTotal go with outputSchema and no fields (a model filling it)', 'Drop model and maxTokensTotal, or give outputSchema without fields.');
  if (byModel && (p.outputSchema as Record<string, unknown>).type !== 'object') throw bad('outputSchema filled by a model must be an object schema ({"type": "object", "properties": {...}}): its properties become each item\'s fields', 'Give {"type": "object", "properties": {"price": {"type": "number"}}}.');
  if (p.topK !== undefined && !p.query) throw bad('topK goes with query', 'Give query too, or drop topK.');
  if (p.collect) checkCollectOptions(p.collect);
  if (p.scrollUntil) checkScrollOptions(p.scrollUntil);
  const inBrowser = !!(p.collect || p.scrollUntil);
  if (inBrowser && p.mode === 'http') {
    throw bad('collect and scrollUntil work on pages read in the browser, and mode http reads none there', 'Use mode "browser" (or leave mode out), or drop collect and scrollUntil.');
  }
  // Files are fetched, and lists scrolled, by the page's own tab: every page of such a crawl is read in the browser.
  const mode = inBrowser ? 'browser' : p.mode ?? 'auto';
  const concurrency = p.concurrency ?? 2;
  const startUrls = [...new Set((p.startUrls ?? []).map(checkUrl))];
  return {
    startUrls,
    ...(p.sitemap ? { sitemap: checkUrl(p.sitemap) } : {}),
    allow: p.allow ?? [],
    deny: p.deny ?? [],
    sameDomain: p.sameDomain ?? true,
    maxPages: p.maxPages ?? 50,
    maxDepth: p.maxDepth ?? 2,
    concurrency: mode === 'browser' ? Math.min(concurrency, BROWSER_CONCURRENCY) : concurrency,
    delayMs: p.delayMs ?? 1000,
    mode,
    format: p.format ?? 'markdown',
    maxChars: p.maxChars ?? 20000,
    ...(p.fields ? { fields: p.fields } : {}),
    ...(p.outputSchema ? { outputSchema: p.outputSchema } : {}),
    ...(byModel && p.prompt ? { prompt: p.prompt } : {}),
    ...(byModel && p.model ? { model: p.model } : {}),
    ...(byModel && p.maxTokensTotal !== undefined ? { maxTokensTotal: p.maxTokensTotal } : {}),
    // The extractor's fields are copied into the run: it reads the version it started with, even if re-learned meanwhile.
    ...(extractor ? { fields: extractor.fields, outputSchema: extractor.schema, extractor: { id: extractor.id, version: extractor.version } } : {}),
    obeyRobots: p.obeyRobots ?? true,
    includeHidden: p.includeHidden ?? false,
    cache: p.cache ?? 'off',
    cacheName: p.cacheName ?? 'default',
    ...(p.name ? { name: p.name } : {}),
    formats: p.formats ?? [],
    ...(p.chunk ? { chunk: { by: p.chunk.by, size: p.chunk.size ?? 500, overlap: p.chunk.overlap ?? 50 } } : {}),
    ...(p.query ? { query: p.query } : {}),
    topK: p.topK ?? 5,
    ...(p.collect ? { collect: p.collect } : {}),
    ...(p.scrollUntil ? { scrollUntil: p.scrollUntil } : {}),
  };
}
