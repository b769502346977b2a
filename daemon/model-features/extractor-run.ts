/**
 * Running a learned extractor: its selectors on a tab as it is now, or on addresses read one after another in
 * a read-only scratch tab, with no model. When a page no longer gives every required field (the site changed
 * its markup), the extractor is re-learned ONCE per run on that page, with the old selectors and what failed;
 * a re-learn that proves itself is kept as the next version, and the rest of the run uses it.
 */
import { BrowserdError } from '../../protocol/errors.js';
import type { ExtractorRecord } from '../../storage/extractors.js';
import { checkUrl } from '../net/url-check.js';
import { parseHtml } from '../read/html-tree.js';
import { ZERO_WIDTH } from '../read/static-hidden.js';
import type { Tab } from '../browser/tab.js';
import type { ToolContext } from '../call/context.js';
import { failuresOf, learnSelectors, type ExtractorPage } from './extractor-learn.js';
import { openModelSession, type ModelSession } from '../models/session.js';
import { hideSecrets } from '../reading/model-pages.js';
import type { SessionUsage } from '../models/types.js';

export interface ExtractorSource {
  url?: string;
  urls?: string[];
  tab?: string;
  includeHidden?: boolean;
}

/**
 * A page's visible HTML (hidden text out unless asked), parsed: what learning and running both read. The
 * user's vault values are hidden first: a page that echoes one (a greeting with the user name) must not show
 * it to a model, nor hand it back as a field's value.
 */
async function pageOf(ctx: ToolContext, tab: Tab, includeHidden: boolean): Promise<ExtractorPage> {
  const page = await tab.call('visibleHtml', { includeHidden, dataAttrs: true });
  return { url: page.url, doc: parseHtml(hideSecrets(ctx, page.html.replace(ZERO_WIDTH, ''))) };
}

/**
 * Visits the pages of a source in order: the tab as it is now, or each address in one read-only scratch tab
 * (read mode: nothing on the page can write). A page that does not load is reported, and the next one goes on.
 */
export async function eachPage(ctx: ToolContext, src: ExtractorSource, visit: (page: ExtractorPage) => Promise<void>, failed: (url: string, e: unknown) => void): Promise<void> {
  const includeHidden = src.includeHidden === true;
  if (src.tab !== undefined) return visit(await pageOf(ctx, await ctx.tab(src.tab), includeHidden));
  const urls = (src.urls ?? [src.url!]).map((u) => checkUrl(u, ctx.env.cfg));
  const inst = await ctx.browser();
  const tab = await inst.scratchTab();
  try {
    for (const url of urls) {
      ctx.checkCancelled();
      let page: ExtractorPage;
      try {
        await tab.navigate(url);
        page = await pageOf(ctx, tab, includeHidden);
      } catch (e) {
        failed(url, e);
        continue;
      }
      await visit(page);
    }
  } finally {
    await tab.close();
  }
}

export interface RunPageResult {
  url: string;
  /** Every required field matched and the values satisfy the schema. */
  ok: boolean;
  data?: Record<string, unknown>;
  /** Required fields that matched nothing. */
  missing?: string[];
  /** Schema violations of the values read. */
  errors?: string[];
  /** The version whose selectors read this page. */
  version?: number;
  /** This page made the run re-learn the extractor. */
  relearned?: boolean;
  /** Why the page could not be read, or why re-learning on it failed. */
  error?: string;
}

export interface RunOptions {
  /** Re-learn when required fields stop matching (default true); false never calls a model. */
  relearn: boolean;
  /** Model for a re-learn: default the one that learned the extractor. */
  model?: string;
  maxTokensTotal?: number;
}

export interface RunOutcome {
  results: RunPageResult[];
  /** The extractor as it stands after the run (a re-learn makes it the next version). */
  extractor: ExtractorRecord;
  /** Tokens of the re-learn, when there was one. */
  usage?: SessionUsage;
}

const describe = (e: unknown) => (e instanceof BrowserdError ? `${e.code}: ${e.message}` : e instanceof Error ? e.message : String(e));

export async function runExtractor(ctx: ToolContext, start: ExtractorRecord, src: ExtractorSource, opts: RunOptions): Promise<RunOutcome> {
  const store = ctx.env.extractors;
  const user = ctx.user.id;
  let rec = start;
  let relearnTried = false;
  let session: ModelSession | undefined;
  const results: RunPageResult[] = [];
  await eachPage(
    ctx,
    src,
    async (page) => {
      const judged = failuresOf(rec.schema, rec.fields, page.doc, page.url);
      if (judged.ok) {
        results.push({ url: page.url, ok: true, data: judged.data, version: rec.version });
        return;
      }
      const asIs = (): RunPageResult => {
        const { data, missing, errors } = failuresOf(rec.schema, rec.fields, page.doc, page.url);
        return { url: page.url, ok: false, data, version: rec.version, ...(missing.length ? { missing } : {}), ...(errors.length ? { errors } : {}) };
      };
      if (!opts.relearn || relearnTried) {
        results.push(asIs());
        return;
      }
      relearnTried = true;
      try {
        session = openModelSession({ env: ctx.env, user, model: opts.model ?? rec.model, key: ctx.modelKey, maxTokensTotal: opts.maxTokensTotal, signal: ctx.signal });
        const learned = await learnSelectors(session, page, { schema: rec.schema, prompt: rec.prompt }, { fields: rec.fields, failures: judged.failures });
        const next: ExtractorRecord = { ...rec, fields: learned.fields, model: session.model.id, version: rec.version + 1, learnedOn: page.url, updatedAt: new Date().toISOString() };
        const saved = await store.replace(user, next, rec.version);
        // Someone else re-learned it first: theirs is the stored one, and this page's answer stands on ours.
        rec = saved.replaced ? next : saved.current ?? next;
        results.push({ url: page.url, ok: true, data: learned.data, version: next.version, relearned: true });
      } catch (e) {
        // The run goes on with the old selectors; the caller sees why this page failed and why re-learning did.
        if (e instanceof BrowserdError && (e.code === 'timeout' && ctx.signal.aborted)) throw e;
        results.push({ ...asIs(), error: `re-learning failed: ${describe(e)}` });
      }
    },
    (url, e) => results.push({ url, ok: false, error: describe(e) }),
  );
  return { results, extractor: rec, ...(session ? { usage: session.usage() } : {}) };
}
