/**
 * Reading whole pages, for browser_read and for every model feature that reads: a tab as it is now, or a list
 * of addresses in read-mode scratch tabs (a few at a time, on the user's own profile, through the response
 * cache when asked), each to Markdown or its best passages, with the files it offers and a feed's entries.
 * The pure parts (HTML to Markdown, passages, scrolling) are in daemon/read/; the tool is tools/read.ts.
 */
import { Type } from '@sinclair/typebox';
import { BrowserdError } from '../../protocol/errors.js';
import { htmlToMarkdownOffThread, bestPassages } from '../read/index.js';
import type { Tab } from '../browser/tab.js';
import type { ToolContext } from '../call/context.js';
import type { CollectOptions, ScrollUntilInput } from '../../protocol/read-params.js';
import { collectFiles, CollectedEntrySchema, type CollectContext, type CollectedEntry } from '../docs/collect.js';
import { scrollForReading, ScrollOutcomeSchema, type ScrollStop } from '../read/scroll-until.js';
import { PageText, UrlField } from '../call/output.js';
import { errorFields } from '../call/error-line.js';
import { attachTabCache, lookup, missError, type CacheMode } from '../cache/index.js';
import { userSecretForms } from '../secrets/user-secrets.js';
import { readFeedPage, FEED_MAX_ENTRIES, type FeedPage } from '../docs/feed-page.js';

export const READ_MAX_URLS = 50;
/** Scratch tabs read in parallel: enough to hide latency, few enough for a 2-core host. */
const READ_CONCURRENCY = 4;

export interface PageReading {
  url: string;
  ok: boolean;
  title?: string;
  markdown?: string;
  passages?: { text: string; headingPath: string[]; score: number; start: number; end: number }[];
  /** Why it could not be read, in our words (addresses cut); the page's part is in errorPageText. */
  error?: string;
  errorPageText?: string;
  /** What scrollUntil did before the page was read; `items` as Markdown, in the order the list showed them. */
  scroll?: { items: string[]; scrolls: number; stoppedBecause: ScrollStop };
  /** The files collect fetched from the page (stored once in the user's files), in page order. */
  files?: CollectedEntry[];
  /** summary: the model's summary of the page (its words about page text: shown fenced). */
  summary?: string;
  /** rerank "model": the passages are in the model's order; a note when it could not be used. */
  reranked?: boolean;
  modelWarning?: string;
  /** A feed: its entries (the Markdown lists them too). */
  feed?: { title?: string; entries: FeedPage['entries'] };
  /** cache replay: the page's document came from the response cache, not the site. */
  cached?: boolean;
}

/** A PageReading as a result field: everything the page (or a model about it) wrote is fenced over MCP. */
export const PageReadingSchema = Type.Object({
  url: UrlField,
  ok: Type.Boolean({ description: 'false: the page could not be read (see error); the other pages still were.' }),
  title: Type.Optional(PageText()),
  markdown: Type.Optional(PageText({ description: 'The main content as Markdown, cut at maxChars (absent with query: see passages).' })),
  passages: Type.Optional(
    Type.Array(
      Type.Object({
        text: PageText({ description: 'The passage, as Markdown.' }),
        headingPath: Type.Array(PageText(), { description: 'The headings it sits under, outermost first.' }),
        score: Type.Number({ description: 'BM25 score for the query.' }),
        start: Type.Integer({ description: "Where the passage starts in the page's Markdown (characters)." }),
        end: Type.Integer({ description: 'Where it ends (exclusive).' }),
      }),
      { description: 'With query: the best passages, best first.' },
    ),
  ),
  error: Type.Optional(Type.String({ description: 'Why the page could not be read, in our words (addresses cut to scheme and host).' })),
  errorPageText: Type.Optional(PageText({ description: "The page's words the error is about (its whole address, a thrown message), when it has any." })),
  scroll: Type.Optional(ScrollOutcomeSchema),
  files: Type.Optional(Type.Array(CollectedEntrySchema, { description: 'With collect: the files the page offers, in page order.' })),
  summary: Type.Optional(PageText({ description: "With summary: the model's summary of the page (its words about page text)." })),
  reranked: Type.Optional(Type.Boolean({ description: 'With rerank "model": the passages are in the model\'s order.' })),
  modelWarning: Type.Optional(Type.String({ description: 'Why a model step could not be used on this page (its text is still here).' })),
  feed: Type.Optional(Type.Object({
    title: Type.Optional(PageText()),
    entries: Type.Array(Type.Object({
      title: Type.Optional(PageText()),
      link: Type.Optional(PageText({ description: "The entry's address as the feed gives it." })),
      date: Type.Optional(PageText({ description: 'Published (else updated) date as the feed writes it.' })),
      summary: Type.Optional(PageText({ description: "The entry's text (content, else summary) as plain text, cut at 1000 characters." })),
    }), { description: `The entries in feed order, at most ${FEED_MAX_ENTRIES}.` }),
  }, { description: 'The page is a feed (RSS, Atom, RDF, JSON Feed): its entries. markdown lists them too.' })),
  cached: Type.Optional(Type.Boolean({ description: "With cache replay: the page's document came from the response cache, not the site." })),
});

/** BM25 candidates per page a model re-ranks: enough for it to lift a passage BM25 ranked low, few enough to be cheap. */
export type ReadOptions = {
  includeHidden?: boolean; query?: string; topK?: number; maxChars: number; scrollUntil?: ScrollUntilInput; signal: AbortSignal;
  collect?: CollectOptions; collector: CollectContext;
};

/**
 * Reads one tab as it is now: scrolls first when asked (the list items it kept are turned into Markdown on the
 * Markdown threads), then grabs and converts the page, then collects the files it offers when asked (after the
 * scroll, so links that only loaded while scrolling are among them).
 */
export async function readTab(tab: Tab, opts: ReadOptions): Promise<PageReading> {
  // A feed has no list to scroll and links no files: its entries are the reading.
  const feed = await readFeedPage(tab, opts.maxChars, opts.signal);
  if (feed) return feedReading(tab, feed, opts);
  const scroll = opts.scrollUntil ? await scrollForReading(tab, opts.scrollUntil, opts.signal) : undefined;
  const page = await grab(tab, opts);
  const files = opts.collect ? await collectFiles(opts.collector, tab, page.url, opts.collect) : undefined;
  const reading = await toReading(page, opts);
  if (scroll) reading.scroll = scroll;
  if (files) reading.files = files;
  return reading;
}

/** The page's visible HTML, as the in-page script gives it (hidden text out unless asked). */
function grab(tab: Tab, opts: ReadOptions) {
  return tab.call('visibleHtml', { includeHidden: opts.includeHidden });
}

/** Markdown (or the best passages) of grabbed HTML, converted on a Markdown thread. */
async function toReading(page: { html: string; url: string }, opts: ReadOptions): Promise<PageReading> {
  const md = await htmlToMarkdownOffThread(page.html, page.url, { maxChars: opts.query ? undefined : opts.maxChars });
  const reading: PageReading = { url: page.url, ok: true, title: md.title, markdown: md.markdown };
  if (opts.query) {
    reading.passages = bestPassages(md.markdown, opts.query, opts.topK ?? 5).map((p) => ({ text: p.passage.text, headingPath: p.passage.headingPath, score: Number(p.score.toFixed(3)), start: p.passage.start, end: p.passage.end }));
    reading.markdown = undefined;
  }
  return reading;
}

const failedReading = (url: string, e: unknown): PageReading => ({ url, ok: false, ...errorFields(e) });

/** A feed's reading: its Markdown (or best passages) as for any page, and its entries. */
function feedReading(tab: Tab, feed: FeedPage, opts: ReadOptions): PageReading {
  const url = tab.lastDocument?.url ?? tab.url;
  const reading: PageReading = { url, ok: true, title: feed.title, feed: { title: feed.title, entries: feed.entries } };
  if (opts.query) {
    reading.passages = bestPassages(feed.markdown, opts.query, opts.topK ?? 5).map((p) => ({ text: p.passage.text, headingPath: p.passage.headingPath, score: Number(p.score.toFixed(3)), start: p.passage.start, end: p.passage.end }));
  } else reading.markdown = feed.markdown.length > opts.maxChars ? `${feed.markdown.slice(0, opts.maxChars)}\n\n[cut at ${opts.maxChars} characters]` : feed.markdown;
  return reading;
}

/** The response cache the scratch tabs of one read record into or replay from. */
export interface ReadCache { mode: CacheMode; name: string }

export async function readUrls(ctx: ToolContext, urls: string[], opts: ReadOptions, cache: ReadCache = { mode: 'off', name: 'default' }): Promise<PageReading[]> {
  const inst = await ctx.browser();
  const results: PageReading[] = new Array(urls.length);
  const converting: Promise<void>[] = [];
  let next = 0;
  let finished = 0;
  // Pages read so far out of all, for a client showing a bar (nothing is sent unless it asked).
  const readOne = () => ctx.progress.report(++finished, urls.length, 'pages read');
  const worker = async () => {
    const tab = await inst.scratchTab({ drawn: !!opts.scrollUntil });
    let detachCache: (() => Promise<void>) | undefined;
    try {
      // The cache answers (or records) the tab's own requests, the page's document and what it loads alike.
      detachCache = await attachTabCache(ctx.env, ctx.user.id, cache.mode, cache.name, tab);
      while (next < urls.length && !ctx.signal.aborted) {
        const i = next++;
        try {
          const replaying = cache.mode === 'replay' || cache.mode === 'replay-strict';
          const stored = replaying && !!lookup(ctx.env, ctx.user.id, cache.name, 'GET', urls[i]);
          // Strict never goes out: a page with nothing stored fails here, before the tab asks for it.
          if (cache.mode === 'replay-strict' && !stored) throw missError(urls[i], cache.name, userSecretForms(ctx.env, ctx.user.id));
          await tab.navigate(urls[i]);
          const feed = await readFeedPage(tab, opts.maxChars, opts.signal);
          if (feed || opts.scrollUntil || opts.collect) {
            results[i] = feed ? feedReading(tab, feed, opts) : await readTab(tab, opts);
            if (stored) results[i].cached = true;
            readOne();
            continue;
          }
          const page = await grab(tab, opts);
          // The conversion runs on a Markdown thread while this tab already loads its next address.
          converting.push(toReading(page, opts).then((r) => void (results[i] = stored ? { ...r, cached: true } : r), (e) => void (results[i] = failedReading(urls[i], e))).finally(readOne));
        } catch (e) {
          // The browser itself died: no later address can be read either, and a page marked failed would hide
          // that calling again (which restarts it) is the way on. A page's own failure stays with that page.
          if (!inst.alive) throw new BrowserdError('browser_crashed', "the user's browser stopped during the read", { next: 'Call again: the browser restarts with your tabs.' });
          results[i] = failedReading(urls[i], e);
          readOne();
        }
      }
    } finally {
      // Detached before the tab closes: a recording then holds every page this tab read.
      await detachCache?.().catch(() => undefined);
      await tab.close();
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, urls.length) }, worker));
  await Promise.all(converting);
  return results;
}
