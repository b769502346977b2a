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
  Type.String({ minLength: 1, maxLength: 1000 }),
  Type.Object(
    {
      css: Type.String({ minLength: 1, maxLength: 1000 }),
      attr: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
      all: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  ),
]);

export const COLLECT_TYPES = ['pdf', 'docx', 'doc', 'xlsx', 'xls', 'pptx', 'ppt', 'odt', 'ods', 'odp', 'rtf', 'epub', 'csv', 'tsv', 'image', 'audio', 'video'] as const;

export const CrawlParams = params({
  startUrls: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 8192 }), { minItems: 1, maxItems: 100, description: 'Depth 0, crawled whatever allow/deny say.' })),
  sitemap: Type.Optional(Type.String({ minLength: 1, maxLength: 8192 })),
  allow: Type.Optional(Type.Array(Pattern, { maxItems: 50, description: 'URL patterns to follow (* wildcard; with :// the whole URL, else path and query).' })),
  deny: Type.Optional(Type.Array(Pattern, { maxItems: 50, description: 'Wins over allow.' })),
  sameDomain: Type.Optional(Type.Boolean({ description: 'Default true.' })),
  maxPages: Type.Optional(Type.Integer({ minimum: 1, maximum: 5000, description: 'Default 50.' })),
  maxDepth: Type.Optional(Type.Integer({ minimum: 0, maximum: 20, description: 'Default 2.' })),
  concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 8, description: 'Default 2.' })),
  delayMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 60000, description: 'Per host. Default 1000.' })),
  mode: Type.Optional(StringEnum(['http', 'browser', 'auto'])),
  format: Type.Optional(StringEnum(['markdown', 'text', 'json'], { description: 'json: page metadata, no content.' })),
  maxChars: Type.Optional(Type.Integer({ minimum: 1, maximum: 200000, description: 'Per page. Default 20000.' })),
  fields: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 100 }), FieldSpec, { description: 'name -> CSS selector or {css, attr, all}.' })),
  outputSchema: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'A JSON Schema: checks fields, or without fields a model fills it on every page.' })),
  prompt: Type.Optional(Type.String({ minLength: 1, maxLength: 4000 })),
  model: ModelIdParam,
  maxTokensTotal: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_TOKENS_TOTAL_LIMIT, description: 'For the whole crawl.' })),
  extractor: Type.Optional(Type.String({ pattern: '^ext_[A-Za-z0-9]{1,64}$', description: 'A learned extractor id, instead of fields, outputSchema and prompt.' })),
  obeyRobots: Type.Optional(Type.Boolean({ description: 'Default true.' })),
  includeHidden: Type.Optional(Type.Boolean()),
  cache: Type.Optional(StringEnum(CACHE_MODES, { description: 'Response cache: record, replay (network for the rest) or replay-strict.' })),
  cacheName: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$' })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  formats: Type.Optional(Type.Array(StringEnum(CRAWL_FORMATS), { maxItems: 6, uniqueItems: true, description: 'More per page.' })),
  chunk: Type.Optional(
    Type.Object(
      {
        by: StringEnum(['tokens', 'headings']),
        size: Type.Optional(Type.Integer({ minimum: 50, maximum: 8000, description: 'Default 500.' })),
        overlap: Type.Optional(Type.Integer({ minimum: 0, maximum: 2000, description: 'Default 50.' })),
      },
      { additionalProperties: false, description: 'Chunks with citations.' },
    ),
  ),
  query: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'Keep only the best matching passages (BM25).' })),
  topK: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: 'Default 5.' })),
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
