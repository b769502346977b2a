/**
 * The structured result of the crawl tools: a run's state (protocol/crawl.ts CrawlRunInfo) and its items as
 * browser_crawl_status lists them (CrawlItem cut by crawl.ts cutItem: content at 2,000 characters, no formats
 * or chunks, documents' Markdown as its length, five list items). What the pages said is page text.
 */
import { Type } from '@sinclair/typebox';
import { COLLECT_FILE_TYPES } from '../../protocol/read-params.js';
import { PageText, PageValue, UrlField } from '../call/output.js';

const Literals = <T extends string>(values: readonly T[]) => Type.Union(values.map((v) => Type.Literal(v)));

export const CrawlRunSchema = Type.Object({
  id: Type.String({ description: 'crawl_ and 16 hex digits.' }),
  name: Type.Optional(Type.String()),
  state: Literals(['running', 'paused', 'finished', 'cancelled', 'failed']),
  counters: Type.Object({
    queued: Type.Integer({ description: 'Waiting in the queue, pages in flight included.' }),
    done: Type.Integer(),
    failed: Type.Integer(),
    blocked: Type.Integer({ description: 'Disallowed by robots.txt.' }),
  }),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  finishedAt: Type.Optional(Type.String()),
  note: Type.Optional(Type.String({ description: 'Why the run failed, or a note such as "maxPages reached".' })),
});

const Place = {
  url: UrlField,
  headingPath: Type.Array(PageText(), { description: 'The headings the text sits under.' }),
  start: Type.Integer({ description: "Character offset in the item's whole content." }),
  end: Type.Integer(),
};

/** One file collect looked at (protocol/read-params.ts CollectedEntry), its Markdown left out of tool answers. */
const CollectedFileSchema = Type.Object({
  page: PageText({ description: 'The page the file was linked from.' }),
  url: UrlField,
  type: Literals(COLLECT_FILE_TYPES),
  status: Literals(['stored', 'existing', 'failed']),
  reason: Type.Optional(Type.String({ description: 'Why it failed: blocked, too_large, http_error, not_a_file, failed.' })),
  error: Type.Optional(PageText({ description: 'What went wrong (it may name the address).' })),
  name: Type.Optional(PageText({ description: 'Its name in your files (the site may have chosen it).' })),
  size: Type.Optional(Type.Integer()),
  contentType: Type.Optional(PageText({ description: 'As the server sent it.' })),
  markdownChars: Type.Optional(Type.Integer({ description: "Length of the document's Markdown (GET /v1/crawls/{id}/items has it whole)." })),
  truncated: Type.Optional(Type.Boolean()),
  convertError: Type.Optional(PageText({ description: 'Why it was not converted (a parser may quote the file).' })),
  caption: Type.Optional(PageText({ description: "An image's alt text from a model (collect.caption)." })),
  captionError: Type.Optional(PageText({ description: 'Why it got no caption (a model may quote the image).' })),
});

export const CrawlItemSchema = Type.Object({
  seq: Type.Integer({ description: 'Order in which pages finished, from 1.' }),
  url: UrlField,
  finalUrl: Type.Optional(UrlField),
  depth: Type.Integer(),
  status: Literals(['done', 'failed', 'blocked']),
  httpStatus: Type.Optional(Type.Integer()),
  via: Type.Optional(Literals(['http', 'browser', 'cache'])),
  error: Type.Optional(Type.String({ description: 'Why it failed or was blocked, in our words (addresses cut to scheme and host).' })),
  errorPageText: Type.Optional(PageText({ description: "The page's words the error is about (whole addresses, a thrown message)." })),
  linkCount: Type.Optional(Type.Integer()),
  title: Type.Optional(PageText()),
  content: Type.Optional(PageText({ description: 'Markdown or text, cut at 2,000 characters here.' })),
  omittedChars: Type.Optional(Type.Integer({ description: 'Characters maxChars left out.' })),
  metadata: Type.Optional(
    Type.Object({
      title: Type.Optional(PageText()),
      description: Type.Optional(PageText()),
      language: Type.Optional(PageText({ description: 'As the page declares it.' })),
      canonicalUrl: Type.Optional(UrlField),
      headings: Type.Array(Type.Object({ level: Type.Integer(), text: PageText() })),
      jsonLd: Type.Array(PageValue({ description: 'A JSON-LD block of the page, as it gave it.' })),
    }),
  ),
  fields: Type.Optional(Type.Record(Type.String(), PageValue(), { description: 'Field name -> value read from the page (CSS fields: a string, a list with all, null when nothing matched; outputSchema: what the model filled).' })),
  schemaErrors: Type.Optional(Type.Array(Type.String(), { description: 'How the fields break outputSchema.' })),
  passages: Type.Optional(Type.Array(Type.Object({ ...Place, text: PageText(), score: Type.Number() }), { description: 'The best passages for query.' })),
  scroll: Type.Optional(
    Type.Object({
      items: Type.Array(PageText(), { description: 'The first five list items kept, as Markdown.' }),
      scrolls: Type.Integer(),
      stoppedBecause: Literals(['count', 'no_new', 'max_scrolls', 'end']),
    }),
  ),
  files: Type.Optional(Type.Array(CollectedFileSchema)),
  model: Type.Optional(
    Type.Object(
      {
        id: Type.String(),
        inputTokens: Type.Integer(),
        outputTokens: Type.Integer(),
        citations: Type.Optional(Type.Array(Type.Object({ field: Type.Optional(Type.String()), chunk: PageText(), quote: PageText(), ...Place }))),
        warnings: Type.Optional(Type.Array(PageText())),
      },
      { description: 'The model that filled outputSchema on this page, its tokens, and its checked citations.' },
    ),
  ),
  at: Type.String(),
});
