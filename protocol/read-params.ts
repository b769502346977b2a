/**
 * The `collect` and `scrollUntil` objects of browser_read, as the spec's crawl table gives them: one schema
 * each, so crawls take the very same shape when they wire in the shared pieces (daemon/docs/collect.ts,
 * daemon/read/scroll-until.ts).
 */
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from './params.js';
import { MaxTokensTotalParam, ModelIdParam } from './model-params.js';

export const COLLECT_FILE_TYPES = ['pdf', 'docx', 'doc', 'xlsx', 'xls', 'pptx', 'ppt', 'odt', 'ods', 'odp', 'rtf', 'epub', 'csv', 'tsv', 'image', 'audio', 'video'] as const;
export type CollectFileType = (typeof COLLECT_FILE_TYPES)[number];

export const COLLECT_MAX_FILES = 200;
export const COLLECT_DEFAULT_FILES = 20;

export const CollectParam = Type.Object(
  {
    documents: Type.Optional(Type.Boolean({ description: 'Linked documents (PDF, Office, OpenDocument, RTF, EPUB, CSV). Default true unless types, images or media.' })),
    images: Type.Optional(Type.Boolean()),
    media: Type.Optional(Type.Boolean({ description: 'Audio and video.' })),
    types: Type.Optional(Type.Array(StringEnum(COLLECT_FILE_TYPES), { minItems: 1, maxItems: COLLECT_FILE_TYPES.length, uniqueItems: true, description: 'Only these types.' })),
    maxFiles: Type.Optional(Type.Integer({ minimum: 1, maximum: COLLECT_MAX_FILES, description: `Per page. Default ${COLLECT_DEFAULT_FILES}.` })),
    maxBytes: Type.Optional(Type.Integer({ minimum: 1, maximum: 15 * 1024 * 1024, description: 'Default 15 MB.' })),
    maxChars: Type.Optional(Type.Integer({ minimum: 100, maximum: 200000, description: 'Per document. Default 20000.' })),
    minImagePx: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000 })),
    convert: Type.Optional(Type.Boolean({ description: 'Documents as Markdown. Default true.' })),
    converter: Type.Optional(StringEnum(['auto', 'builtin', 'markitdown', 'docling'])),
    caption: Type.Optional(Type.Boolean({ description: 'Alt text for each image by a model.' })),
    captionMax: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    maxTokensTotal: MaxTokensTotalParam,
    model: ModelIdParam,
  },
  { additionalProperties: false, description: "Also fetch the files the page links to (read-only, your cookies) into your files; documents come back as Markdown." },
);
export type CollectOptions = Static<typeof CollectParam>;

export const ScrollUntilParam = Type.Object(
  {
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000 })),
    noNewForMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 60000, description: 'Default 1500.' })),
    maxScrolls: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, description: 'Default 50.' })),
    item: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'CSS selector of one list item; each is kept once, in order.' })),
    container: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'CSS selector. Default the page.' })),
  },
  { additionalProperties: false, description: 'Scroll an endless or virtual list first, until count items, nothing new, the end or maxScrolls.' },
);
export type ScrollUntilInput = Static<typeof ScrollUntilParam>;

/** One file collect looked at: stored (or already held), or failed with its reason. */
export interface CollectedEntry {
  /** The page the file was linked from. */
  page: string;
  url: string;
  type: CollectFileType;
  /** stored: new in the user's files; existing: the same bytes were already there (nothing stored); failed. */
  status: 'stored' | 'existing' | 'failed';
  /** Why it failed: blocked (guard or host policy), too_large, http_error, not_a_file, failed. */
  reason?: string;
  error?: string;
  name?: string;
  size?: number;
  contentType?: string;
  /** Documents, converted (page text: callers fence it). */
  markdown?: string;
  truncated?: boolean;
  /** Why a stored document has no Markdown. */
  convertError?: string;
  /** An image's alt text from a model (collect.caption): model output about page data, so callers fence it. */
  caption?: string;
  /** Why a collected image has no caption (format, size, budget, provider error). */
  captionError?: string;
}

export type ScrollStop = 'count' | 'no_new' | 'max_scrolls' | 'end';

/** What scrollUntil did before a page was read: the items it kept (as Markdown, in list order) and why it stopped. */
export interface ScrollOutcome {
  items: string[];
  scrolls: number;
  stoppedBecause: ScrollStop;
}
