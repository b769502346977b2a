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
    documents: Type.Optional(Type.Boolean({ description: 'Documents the page links to (PDF, Word, Excel, PowerPoint, OpenDocument, RTF, EPUB, CSV, TSV). Default true unless types, images or media is given.' })),
    images: Type.Optional(Type.Boolean({ description: 'Images the page shows (img src and srcset). Default false.' })),
    media: Type.Optional(Type.Boolean({ description: 'Audio and video the page holds or links to. Default false.' })),
    types: Type.Optional(Type.Array(StringEnum(COLLECT_FILE_TYPES, { description: 'A file type.' }), { minItems: 1, maxItems: COLLECT_FILE_TYPES.length, uniqueItems: true, description: 'Only these types. Alone it is the list; with documents/images/media it narrows what they ask for (documents: true with ["csv"] takes CSV documents only).' })),
    maxFiles: Type.Optional(Type.Integer({ minimum: 1, maximum: COLLECT_MAX_FILES, description: `Files per page, 1-${COLLECT_MAX_FILES}. Default ${COLLECT_DEFAULT_FILES}.` })),
    maxBytes: Type.Optional(Type.Integer({ minimum: 1, maximum: 15 * 1024 * 1024, description: 'Largest file taken, in bytes; default and most 15 MB. A larger one is listed as failed.' })),
    maxChars: Type.Optional(Type.Integer({ minimum: 100, maximum: 200000, description: 'Markdown characters per converted document, 100-200000. Default 20000.' })),
    minImagePx: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000, description: 'Skip images smaller than this (width or height as shown, in CSS pixels).' })),
    convert: Type.Optional(Type.Boolean({ description: 'Convert documents to Markdown (default true).' })),
    converter: Type.Optional(StringEnum(['auto', 'builtin', 'markitdown', 'docling'], { description: 'Which converter: auto (default), builtin, markitdown, docling.' })),
    caption: Type.Optional(Type.Boolean({ description: 'Caption each collected image (PNG, JPEG, GIF, WebP up to 5 MB) with a model: a sentence or two of alt text. Needs images. Default false.' })),
    captionMax: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Images captioned at most, over the whole call (with caption). Default: every collected image.' })),
    maxTokensTotal: MaxTokensTotalParam,
    model: ModelIdParam,
  },
  { additionalProperties: false, description: "Also fetch the files the page links to, through the browser (your cookies, the network guard, read-only), store each once in your files, and list them; documents come back as Markdown." },
);
export type CollectOptions = Static<typeof CollectParam>;

export const ScrollUntilParam = Type.Object(
  {
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000, description: 'Stop once this many items are held (needs item).' })),
    noNewForMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 60000, description: 'Stop when nothing new came for this long, 100-60000 ms. Default 1500.' })),
    maxScrolls: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, description: 'Wheel turns at most, 1-500. Default 50.' })),
    item: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'CSS selector of one list item: each is kept as it shows (virtual lists drop old ones), once, in order.' })),
    container: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'CSS selector of the scrolling element. Default the page.' })),
  },
  { additionalProperties: false, description: 'Scroll with real wheel events before reading, until the list has count items, nothing new comes, the end, or maxScrolls; says why it stopped.' },
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
