/**
 * A crawl's model work: outputSchema filled by a model (no fields given), and collect.caption's image captions
 * (their own budget, collect.maxTokensTotal, for the whole run). Each page's text goes through the same extraction
 * as browser_extract_ai (best chunks fenced, ajv check with one repair turn, citations checked), under ONE token
 * budget for the whole crawl. Turns are sent one at a time per crawl, so the budget check before each sees what
 * every earlier page cost; a page that cannot fit fails alone with nothing sent.
 *
 * The key is the starting call's X-Model-Key, held in memory only (this object lives in the daemon's crawl
 * service, never in the store). After a restart the crawl goes on with the host's key for the model's provider;
 * with none, its pages fail with not_configured. Tokens spent before a restart are counted back from the
 * stored items, so a restart does not refill the budget.
 */
import { BrowserdError, toBrowserdError } from '../../protocol/errors.js';
import { DEFAULT_MAX_TOKENS_TOTAL } from '../../protocol/model-params.js';
import type { ItemModelFill } from '../../protocol/crawl.js';
import type { Platform } from '../platform.js';
import type { PageText } from '../models/chunks.js';
import { extractFromPages } from '../models/extract.js';
import { openModelSession, type ModelSession } from '../models/session.js';
import type { CrawlSpec } from './params.js';
import { openCaptioner, type CollectContext } from '../docs/collect.js';

/** A crawl whose outputSchema a model fills: a schema and no fields (a learned extractor brings fields). */
export const fillsWithModel = (spec: Pick<CrawlSpec, 'outputSchema' | 'fields'>) => !!spec.outputSchema && !spec.fields;

/** A crawl that asks a model anything: outputSchema to fill, or images to caption (collect.caption). */
export const usesModel = (spec: Pick<CrawlSpec, 'outputSchema' | 'fields' | 'collect'>) => fillsWithModel(spec) || !!spec.collect?.caption;

export type PageFill = { ok: true; data: unknown; model: ItemModelFill } | { ok: false; error: BrowserdError; model?: ItemModelFill };

export class CrawlModel {
  private chain: Promise<unknown> = Promise.resolve();
  private session?: ModelSession;
  private readonly abort = new AbortController();

  /**
   * `key`: the starting call's X-Model-Key, or undefined (host key). `spentBefore`: tokens of pages stored
   * before this object existed, read once when the session opens.
   */
  constructor(
    private readonly env: Platform,
    private readonly user: string,
    private readonly spec: CrawlSpec,
    private readonly key: string | undefined,
    private readonly spentBefore: () => number,
  ) {}

  private captions?: CollectContext['captions'];

  /**
   * collect.caption's captioner for the whole run (its own model, key and budget, from collect); when it cannot
   * open (no key after a restart), every image says why instead of failing its page.
   */
  captioner(): CollectContext['captions'] {
    if (!this.captions) {
      try {
        this.captions = openCaptioner(this.env, this.user, this.key, this.spec.collect, this.abort.signal);
      } catch (e) {
        const err = toBrowserdError(e);
        this.captions = { unavailable: `${err.code}: ${err.message}` };
      }
    }
    return this.captions;
  }

  /** Ends a model request under way (daemon shutdown, crawl deleted). */
  close() {
    this.abort.abort();
  }

  /** One page's outputSchema; pages wait their turn so the budget is checked against every earlier turn. */
  fill(page: PageText): Promise<PageFill> {
    const run = this.chain.then(() => this.fillNow(page));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private open(): ModelSession {
    // Opened on first use, not at construction: a key the host lacks fails each page, not the whole run.
    this.session ??= openModelSession({
      env: this.env,
      user: this.user,
      model: this.spec.model,
      key: this.key,
      maxTokensTotal: Math.max(0, (this.spec.maxTokensTotal ?? DEFAULT_MAX_TOKENS_TOTAL) - this.spentBefore()),
      signal: this.abort.signal,
    });
    return this.session;
  }

  private async fillNow(page: PageText): Promise<PageFill> {
    let session: ModelSession;
    try {
      session = this.open();
    } catch (e) {
      return { ok: false, error: toBrowserdError(e) };
    }
    const before = session.usage();
    const used = (): ItemModelFill => {
      const now = session.usage();
      return { id: session.model.id, inputTokens: now.inputTokens - before.inputTokens, outputTokens: now.outputTokens - before.outputTokens };
    };
    try {
      const r = await extractFromPages(session, [page], { schema: this.spec.outputSchema!, prompt: this.spec.prompt });
      return { ok: true, data: r.data, model: { ...used(), citations: r.citations, warnings: r.warnings } };
    } catch (e) {
      return { ok: false, error: toBrowserdError(e), model: used() };
    }
  }
}
