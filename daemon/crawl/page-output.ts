/**
 * A fetched page -> a crawl item's content: Markdown/text/metadata, fields, schema check, extra formats,
 * chunks with citations, BM25 passages, and the visible links to follow.
 * OWNER: part "output". Interface fixed by the lead; body to be written.
 */
import type { CrawlSpec } from './params.js';
import type { PageInput, PageOutput } from './types.js';

export async function renderPage(_page: PageInput, _spec: CrawlSpec): Promise<PageOutput> {
  throw new Error('page-output: not built yet');
}

/** auto mode: true when http HTML cannot stand for what a person sees (an app shell that scripts fill in). */
export function needsBrowser(_page: PageInput): boolean {
  throw new Error('page-output: not built yet');
}
