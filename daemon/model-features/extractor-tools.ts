/**
 * Learned extractors as REST-only operations (routes in extractor-routes.ts):
 * learn one on a page (a model proposes per-field selectors, they are proven on the page before anything is
 * stored), list, get, delete, and run one on a tab or addresses with no model (re-learning once when the markup
 * changed). Every record is looked up under the caller's id: another user's extractor is not found.
 */
import { randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { IncludeHiddenParam, params } from '../../protocol/params.js';
import { BrowserdError } from '../../protocol/errors.js';
import { EXTRACTOR_ID } from '../../protocol/ids.js';
import { MaxTokensTotalParam, ModelIdParam } from '../../protocol/model-params.js';
import { MAX_EXTRACTORS_PER_USER, type ExtractorRecord } from '../../storage/extractors.js';
import { checkUrl } from '../net/url-check.js';
import { checkExtractorSchema } from '../models/extractor-values.js';
import { learnSelectors } from './extractor-learn.js';
import { eachPage, runExtractor } from './extractor-run.js';
import { extractorOf } from './extractor-of.js';
import { openModelSession } from '../models/session.js';
import { SessionUsageSchema } from '../models/types.js';
import { inlineCut, pageUrl, urlLine, type ResponseBuilder } from '../call/response.js';
import { PageText, PageValue, UrlField } from '../call/output.js';

/** Addresses one run may read; more is a crawl's job (browser_crawl with extractor). */
export const EXTRACTOR_RUN_MAX_URLS = 20;

const IdParam = Type.String({ pattern: EXTRACTOR_ID.source, description: 'The extractor id (ext_ and 16 hex digits) extractor_learn answered.' });
const UrlParam = Type.String({ minLength: 1, maxLength: 8192 });
const TabIdParam = Type.String({ minLength: 1, maxLength: 60, description: 'A tab id (t1, or <profile>/t1): the page as it is now.' });

const bad = (message: string, next: string) => new BrowserdError('validation_error', message, { next });

function exactlyOne(args: Record<string, unknown>, keys: string[], example: string) {
  const given = keys.filter((k) => args[k] !== undefined);
  if (given.length !== 1) throw bad(given.length ? `give one of ${keys.join(', ')}, not ${given.join(' and ')}` : `give one of ${keys.join(', ')}`, `Pass e.g. ${example}.`);
}


/** Values read from a page by selectors: the page's own words wherever they are strings. */
const ValuesField = PageValue({ description: "The values read, by field name (text, numbers, booleans or lists of them, as the extractor's schema says)." });

/** An extractor as `view` shows it (storage/extractors.ts ExtractorRecord). */
const ExtractorView = Type.Object({
  id: Type.String({ description: 'ext_ and 16 hex digits.' }),
  name: PageText({ description: "The caller's name for it, else the host and path of the page it was learned on." }),
  version: Type.Integer({ description: '1 when learned; one more at each re-learn.' }),
  model: Type.String({ description: 'The model that learned it (and re-learns it).' }),
  learnedOn: PageText({ description: 'The page the current version was proven on.' }),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  schema: Type.Record(Type.String(), Type.Unknown(), { description: 'The JSON Schema it was learned for.' }),
  prompt: Type.Optional(Type.String()),
  fields: Type.Record(
    Type.String(),
    Type.Object({
      css: PageText({ description: "CSS selector of the element(s); a model chose it from the page's ids and classes." }),
      attr: Type.Optional(PageText({ description: "Read this attribute instead of the element's text." })),
      all: Type.Optional(Type.Boolean({ description: 'Every match, as a list.' })),
    }),
    { description: 'The selector of each field, by name.' },
  ),
});

/** A RunPageResult (model-features/extractor-run.ts) as a result field. */
const RunPageResultSchema = Type.Object({
  url: UrlField,
  ok: Type.Boolean({ description: 'Every required field matched and the values satisfy the schema.' }),
  data: Type.Optional(ValuesField),
  missing: Type.Optional(Type.Array(Type.String(), { description: 'Required fields that matched nothing.' })),
  errors: Type.Optional(Type.Array(Type.String(), { description: 'Schema violations of the values read.' })),
  version: Type.Optional(Type.Integer({ description: 'The version whose selectors read this page.' })),
  relearned: Type.Optional(Type.Boolean({ description: 'This page made the run re-learn the extractor.' })),
  error: Type.Optional(PageText({ description: 'Why the page could not be read, or why re-learning on it failed.' })),
});

/** The record as a caller sees it (everything: no secret is in one). */
const view = (r: ExtractorRecord) => ({ id: r.id, name: r.name, version: r.version, model: r.model, learnedOn: r.learnedOn, createdAt: r.createdAt, updatedAt: r.updatedAt, schema: r.schema, ...(r.prompt ? { prompt: r.prompt } : {}), fields: r.fields });

/**
 * Our line: id, version, model and the schema's field names. The name (by default the page's host and path),
 * the address it was learned on and the selectors (a model chose them from the page's classes and ids) are
 * the page's words: fenced.
 */
function describe(out: ResponseBuilder, r: ExtractorRecord) {
  out.text(`Extractor ${r.id} v${r.version} (${r.model}), learned on ${pageUrl(r.learnedOn)}; fields: ${Object.keys(r.fields).join(', ')}. Its name, address and selectors are fenced below.`);
  out.page(
    `extractor ${r.id}`,
    [`name: ${r.name}`, `learned on: ${r.learnedOn}`, ...Object.entries(r.fields).map(([n, f]) => `${n} = ${f.css}${f.attr ? ` @${f.attr}` : ''}${f.all ? ' (all)' : ''}`)].join('\n'),
  );
}

const defaultName = (url: string) => {
  try {
    const u = new URL(url);
    return `${u.host}${u.pathname}`.slice(0, 200);
  } catch {
    return url.slice(0, 200);
  }
};

export const extractorTools = [
  defineTool({
    name: 'extractor_learn',
    title: 'Learn an extractor',
    description:
      'Learns a reusable extractor on one page (url, or tab as it is now): a model proposes a CSS selector (and attribute) per top-level property of schema, the selectors are run on the page and every required field must match with values that satisfy schema; one retry with what failed, else action_failed and nothing is stored. Answers the extractor id (ext_…), its fields and the data read.',
    input: params({
      name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'A name to find it by. Default: the page\'s host and path.' })),
      url: Type.Optional(UrlParam),
      tab: Type.Optional(TabIdParam),
      schema: Type.Object({}, { additionalProperties: true, description: 'A JSON Schema object whose properties are the fields: text, numbers, booleans or lists of them.' }),
      prompt: Type.Optional(Type.String({ minLength: 1, maxLength: 4000, description: 'What to read, in words (e.g. "the price after discount").' })),
      model: ModelIdParam,
      maxTokensTotal: MaxTokensTotalParam,
      includeHidden: IncludeHiddenParam,
    }),
    output: Type.Object({ id: Type.String({ description: 'The new extractor id.' }), extractor: ExtractorView, data: ValuesField, usage: SessionUsageSchema }),
    effect: 'read',
    check(args) {
      exactlyOne(args, ['url', 'tab'], '{"url": "https://shop.example/item/1", "schema": {...}}');
      checkExtractorSchema(args.schema);
    },
    async handle(ctx, args, out) {
      const user = ctx.user.id;
      if (args.url !== undefined) checkUrl(args.url, ctx.env.cfg);
      if (ctx.env.extractors.count(user) >= MAX_EXTRACTORS_PER_USER) {
        throw new BrowserdError('refused', `you have ${MAX_EXTRACTORS_PER_USER} extractors, the most kept`, { next: 'Delete extractors you no longer need (DELETE /v1/extractors/{id}).' });
      }
      // Model and key are resolved before the page is read: a bad model id or a missing key costs nothing.
      const session = openModelSession({ env: ctx.env, user, model: args.model, key: ctx.modelKey, maxTokensTotal: args.maxTokensTotal, signal: ctx.signal });
      let learned: { rec: ExtractorRecord; data: Record<string, unknown> } | undefined;
      let failure: unknown;
      await eachPage(
        ctx,
        { url: args.url, tab: args.tab, includeHidden: args.includeHidden },
        async (page) => {
          const { fields, data } = await learnSelectors(session, page, { schema: args.schema, prompt: args.prompt });
          const now = new Date().toISOString();
          const rec: ExtractorRecord = {
            id: `ext_${randomBytes(8).toString('hex')}`,
            name: args.name ?? defaultName(page.url),
            schema: args.schema,
            ...(args.prompt ? { prompt: args.prompt } : {}),
            model: session.model.id,
            version: 1,
            fields,
            learnedOn: page.url,
            createdAt: now,
            updatedAt: now,
          };
          learned = { rec, data };
        },
        (_url, e) => void (failure = e),
      );
      if (!learned) throw failure ?? new BrowserdError('action_failed', 'the page could not be read', { next: 'Check the address with browser_open.' });
      await ctx.env.extractors.create(user, learned.rec);
      out.set('id', learned.rec.id);
      out.set('extractor', view(learned.rec));
      out.set('data', learned.data);
      out.set('usage', session.usage());
      describe(out, learned.rec);
      out.page(`values read on ${learned.rec.learnedOn}`, JSON.stringify(learned.data, null, 2));
      out.text(`Run it with POST /v1/extractors/${learned.rec.id}/run {"url": …} (no model), or crawl with {"extractor": "${learned.rec.id}"}.`);
    },
  }),
  defineTool({
    name: 'extractor_list',
    title: 'List extractors',
    description: "The caller's learned extractors, most recently updated first.",
    input: params({}),
    output: Type.Object({ extractors: Type.Array(ExtractorView, { description: 'Most recently updated first.' }) }),
    effect: 'read',
    openWorld: false,
    needsBrowser: false,
    async handle(ctx, _args, out) {
      const list = ctx.env.extractors.list(ctx.user.id);
      out.set('extractors', list.map(view));
      if (!list.length) out.text('No extractors yet: learn one with POST /v1/extractors.');
      for (const r of list) describe(out, r);
    },
  }),
  defineTool({
    name: 'extractor_get',
    title: 'One extractor',
    description: 'One learned extractor: schema, prompt, model, version, fields and the page it was proven on.',
    input: params({ id: IdParam }),
    output: Type.Object({ extractor: ExtractorView }),
    effect: 'read',
    openWorld: false,
    needsBrowser: false,
    async handle(ctx, args, out) {
      const rec = extractorOf(ctx, args.id);
      out.set('extractor', view(rec));
      describe(out, rec);
    },
  }),
  defineTool({
    name: 'extractor_delete',
    title: 'Delete an extractor',
    description: 'Deletes one learned extractor for good.',
    input: params({ id: IdParam }),
    output: Type.Object({ deleted: Type.String({ description: 'The id deleted.' }) }),
    effect: 'write',
    openWorld: false,
    needsBrowser: false,
    async handle(ctx, args, out) {
      extractorOf(ctx, args.id);
      await ctx.env.extractors.delete(ctx.user.id, args.id);
      out.set('deleted', args.id);
      out.text(`Deleted extractor ${args.id}.`);
    },
  }),
  defineTool({
    name: 'extractor_run',
    title: 'Run an extractor',
    description: `Runs a learned extractor's selectors on a tab as it is now, or on url / urls (1-${EXTRACTOR_RUN_MAX_URLS}, read in a read-only tab), with no model. Each page answers ok, data, and the required fields that matched nothing. When a page no longer gives every required field, the extractor is re-learned once on that page (a model call; relearn false forbids it) and, once proven, kept as the next version.`,
    input: params({
      id: IdParam,
      url: Type.Optional(UrlParam),
      urls: Type.Optional(Type.Array(UrlParam, { minItems: 1, maxItems: EXTRACTOR_RUN_MAX_URLS, description: `Addresses read one after another, 1-${EXTRACTOR_RUN_MAX_URLS}.` })),
      tab: Type.Optional(TabIdParam),
      relearn: Type.Optional(Type.Boolean({ description: 'Re-learn once when required fields stop matching. Default true.' })),
      model: ModelIdParam,
      maxTokensTotal: MaxTokensTotalParam,
      includeHidden: IncludeHiddenParam,
    }),
    output: Type.Object({
      extractor: Type.Object({ id: Type.String(), version: Type.Integer({ description: 'The version after the run.' }), relearned: Type.Boolean({ description: 'The run re-learned it (version is new).' }) }),
      results: Type.Array(RunPageResultSchema, { description: 'One per page, in order.' }),
      usage: Type.Optional(SessionUsageSchema),
    }),
    effect: 'read',
    check(args) {
      exactlyOne(args, ['url', 'urls', 'tab'], '{"url": "https://shop.example/item/2"}');
    },
    async handle(ctx, args, out) {
      for (const u of args.urls ?? (args.url !== undefined ? [args.url] : [])) checkUrl(u, ctx.env.cfg);
      const rec = extractorOf(ctx, args.id);
      const run = await runExtractor(ctx, rec, { url: args.url, urls: args.urls, tab: args.tab, includeHidden: args.includeHidden }, { relearn: args.relearn !== false, model: args.model, maxTokensTotal: args.maxTokensTotal });
      out.set('extractor', { id: run.extractor.id, version: run.extractor.version, relearned: run.extractor.version !== rec.version });
      out.set('results', run.results);
      if (run.usage) out.set('usage', run.usage);
      const good = run.results.filter((r) => r.ok).length;
      out.text(`Extractor ${rec.id}: ${good} of ${run.results.length} page(s) gave every required field${run.extractor.version !== rec.version ? `; re-learned as v${run.extractor.version}` : ''}.`);
      for (const r of run.results) {
        out.text(`${r.ok ? 'ok' : 'failed'}${r.relearned ? ' (re-learned)' : ''}: ${pageUrl(r.url)}${r.missing ? ` — missing ${r.missing.join(', ')}` : ''}${r.error ? ` — ${inlineCut(r.error)}` : ''}`);
        if (r.data) out.page(`values read`, `${urlLine(r.url)}${JSON.stringify(r.data, null, 2)}`);
        else out.fullUrl('address', r.url);
      }
    },
  }),
];
