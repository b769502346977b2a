/** A learned extractor of the caller by id, or not_found: shared by the extractor operations and browser_crawl. */
import { BrowserdError } from '../../protocol/errors.js';
import type { ExtractorRecord } from '../../storage/extractors.js';
import type { ToolContext } from '../call/context.js';

/** The caller's extractor, or not_found (another user's id is not found either). */
export function extractorOf(ctx: ToolContext, id: string): ExtractorRecord {
  const rec = ctx.env.extractors.get(ctx.user.id, id);
  if (!rec) throw new BrowserdError('not_found', `no extractor ${id}`, { next: 'List yours with GET /v1/extractors, or learn one with POST /v1/extractors.' });
  return rec;
}
