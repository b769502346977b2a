/**
 * The shapes of a crawl that every layer shares (storage keeps them, the daemon makes them, clients read them):
 * the stored spec, a fetched page, what a page becomes (an item), a run's counters and state.
 */
import type { Citation as ModelCitation } from './model-params.js';
import type { CollectedEntry, CollectOptions, ScrollOutcome, ScrollUntilInput } from './read-params.js';

export const CRAWL_FORMATS = ['markdown', 'text', 'html', 'links', 'images', 'metadata'] as const;
export const CACHE_MODES = ['off', 'record', 'replay', 'replay-strict'] as const;

/** The crawl as stored and run: every default filled in, start URLs checked and normalised. */
export interface CrawlSpec {
  startUrls: string[];
  sitemap?: string;
  allow: string[];
  deny: string[];
  sameDomain: boolean;
  maxPages: number;
  maxDepth: number;
  concurrency: number;
  delayMs: number;
  mode: 'http' | 'browser' | 'auto';
  format: 'markdown' | 'text' | 'json';
  maxChars: number;
  fields?: Record<string, string | { css: string; attr?: string; all?: boolean }>;
  outputSchema?: Record<string, unknown>;
  /** outputSchema without fields: a model fills it per page, told this in words. */
  prompt?: string;
  /** outputSchema without fields: the model (resolved when the crawl started) and the token budget of the whole crawl. */
  model?: string;
  maxTokensTotal?: number;
  /** The learned extractor whose fields and schema these are (its version when the crawl started). */
  extractor?: { id: string; version: number };
  obeyRobots: boolean;
  includeHidden: boolean;
  cache: (typeof CACHE_MODES)[number];
  cacheName: string;
  name?: string;
  formats: (typeof CRAWL_FORMATS)[number][];
  chunk?: { by: 'tokens' | 'headings'; size: number; overlap: number };
  query?: string;
  topK: number;
  /** Fetch the files each page offers (pages are then read in the browser). */
  collect?: CollectOptions;
  /** Scroll each page's list before reading it (pages are then read in the browser). */
  scrollUntil?: ScrollUntilInput;
}


/** A response as the crawl sees it, whether it came from the network or from a response cache. */
export interface FetchedResponse {
  /** The address asked for. */
  requestedUrl: string;
  /** Where it ended after redirects. */
  url: string;
  status: number;
  /** Lower-case header names; repeated headers joined with ", " (set-cookie never kept). */
  headers: Record<string, string>;
  /** The body, decompressed. Empty for HEAD. */
  body: Buffer;
  /** True when a response cache answered and the network was not used. */
  fromCache?: boolean;
}

export interface FetchOptions {
  method?: 'GET' | 'HEAD';
  /** Extra request headers (Accept, If-None-Match ...). Never cookies or credentials. */
  headers?: Record<string, string>;
  /** Bytes kept of the body (default 10 MB); a larger body is an error, not silently cut. */
  maxBytes?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  /**
   * Asked before each redirect hop is requested, with where it goes and the address that redirected there: a
   * crawl judges the hop as it judges a link. Throwing stops the fetch there; nothing is sent to `to`.
   */
  beforeRedirect?: (to: string, from: string) => Promise<void>;
}

/** One way to get a URL: the guarded network fetch, or that fetch behind a response cache. */
export type Fetcher = (url: string, opts?: FetchOptions) => Promise<FetchedResponse>;

/** A page ready to render: HTML and where it came from. */
export interface PageInput {
  /** The URL the queue held. */
  url: string;
  /** Where the page ended (redirects, or the browser's final URL). */
  finalUrl: string;
  status: number;
  contentType: string;
  html: string;
  via: 'http' | 'browser' | 'cache';
  /**
   * True when hidden text is already gone (the browser's own visibility check ran in the page). False for http
   * HTML: the renderer removes what can be told hidden without a browser.
   */
  visibleOnly: boolean;
  /** What scrollUntil did before the page was read (browser reads with scrollUntil). */
  scroll?: ScrollOutcome;
  /** The files collect fetched from the page (browser reads with collect). */
  files?: CollectedEntry[];
}

export interface Citation {
  url: string;
  headingPath: string[];
  /** Character offsets in the item's full content. */
  start: number;
  end: number;
}

export interface Chunk extends Citation {
  text: string;
}

export interface Passage extends Citation {
  text: string;
  score: number;
}

/** What a page becomes. Only what was asked for is present. */
export interface PageOutput {
  title?: string;
  /** Markdown or text (format markdown|text), cut at maxChars. Absent for format json. */
  content?: string;
  /** Characters left out by maxChars. */
  omittedChars?: number;
  /** format json, or formats: metadata: description, language, canonical URL, headings, JSON-LD. */
  metadata?: PageMetadata;
  /** fields: name -> value (string, string[] with all, null when nothing matched). */
  fields?: Record<string, unknown>;
  /** outputSchema violations of the fields (ajv messages); absent when they conform. */
  schemaErrors?: string[];
  /** formats other than metadata: markdown, text, html, links, images. */
  formats?: { markdown?: string; text?: string; html?: string; links?: string[]; images?: { src: string; alt?: string }[] };
  chunks?: Chunk[];
  passages?: Passage[];
  /** Absolute http(s) links a person can see on the page, fragment removed, in page order: what the crawl follows. */
  links: string[];
}

export interface PageMetadata {
  title?: string;
  description?: string;
  language?: string;
  canonicalUrl?: string;
  headings: { level: number; text: string }[];
  jsonLd: unknown[];
}

export type ItemStatus = 'done' | 'failed' | 'blocked';

/** One crawled page, as stored (full) and as listed (cut in tool answers). */
export interface CrawlItem extends Omit<PageOutput, 'links'> {
  /** Order in which pages finished, from 1. */
  seq: number;
  url: string;
  finalUrl?: string;
  depth: number;
  status: ItemStatus;
  httpStatus?: number;
  /** How it was read. */
  via?: 'http' | 'browser' | 'cache';
  /** Why it failed or was blocked, in our words (addresses cut to scheme and host). */
  error?: string;
  /** The page's words the error is about (whole addresses, a thrown message): page text, fenced in tool answers. */
  errorPageText?: string;
  /** Links found on the page (how many), for the reader; the links themselves go to the queue. */
  linkCount?: number;
  /** scrollUntil: the list items kept, in order, and why scrolling stopped. */
  scroll?: ScrollOutcome;
  /** collect: the files of the page, stored once in the user's files; documents with Markdown. */
  files?: CollectedEntry[];
  /** outputSchema filled by a model: which one, its tokens for this page (failed pages too), and for a filled page its checked citations and warnings. */
  model?: ItemModelFill;
  at: string;
}


export interface ItemModelFill {
  id: string;
  inputTokens: number;
  outputTokens: number;
  citations?: ModelCitation[];
  warnings?: string[];
}

export type CrawlState = 'running' | 'paused' | 'finished' | 'cancelled' | 'failed';

export interface CrawlCounters {
  /** Waiting in the queue (in-flight pages included). */
  queued: number;
  done: number;
  failed: number;
  /** robots.txt disallowed (obeyRobots). */
  blocked: number;
}

export interface CrawlRunInfo {
  id: string;
  name?: string;
  state: CrawlState;
  counters: CrawlCounters;
  createdAt: string;
  updatedAt: string;
  finishedAt?: string;
  /** Why the run failed (state failed), or a note such as "maxPages reached". */
  note?: string;
}
