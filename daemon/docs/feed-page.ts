/**
 * A feed opened as a page (RSS, Atom, RDF, JSON Feed): browser_read answers its entries, not the XML Chromium
 * shows for it. The bytes are the main document as the server sent them (the tab's own response, so a response
 * cache replaying it answers here too); the parser (docs/feed.ts, feedsmith) runs on a converter thread.
 * Everything in the answer is the feed's own words: page text.
 */
import type { Tab } from '../browser/tab.js';
import { BrowserdError } from '../../protocol/errors.js';
import { detectKind } from './detect.js';
import { runOnConverterThread } from './pool.js';
import { DOC_MAX_BYTES } from './types.js';

export interface FeedPageEntry { title?: string; link?: string; date?: string; summary?: string }
export interface FeedPage { title?: string; entries: FeedPageEntry[]; markdown: string }

/** Entries answered at most, and the characters of each summary (the Markdown has the whole text, cut at maxChars). */
export const FEED_MAX_ENTRIES = 200;
export const FEED_SUMMARY_CHARS = 1000;

/** Types a feed can be served as; text/html never is one, so ordinary pages cost no extra look. */
const MAYBE_FEED = /xml|json|^text\/plain$/i;

const cut = (s: string | undefined, n: number) => (s === undefined ? undefined : s.length > n ? `${s.slice(0, n)}\u2026` : s);

/** The feed the tab shows, parsed; undefined when its document is not a feed. */
export async function readFeedPage(tab: Tab, maxChars: number, signal?: AbortSignal): Promise<FeedPage | undefined> {
  const doc = tab.lastDocument;
  if (!doc || !MAYBE_FEED.test(doc.mimeType) || /html/i.test(doc.mimeType)) return undefined;
  const bytes = await tab.documentBody();
  if (!bytes?.length || bytes.length > DOC_MAX_BYTES) return undefined;
  if ((await detectKind(bytes, undefined, doc.mimeType)).kind !== 'feed') return undefined;
  const answer = await runOnConverterThread({ op: 'convert', kind: 'feed', bytes, budget: maxChars * 2 + 1024 }, signal);
  if (!answer.ok) throw new BrowserdError(answer.code as never, answer.message, { next: answer.next, pageText: answer.pageText });
  const entries = (answer.entries ?? []).slice(0, FEED_MAX_ENTRIES).map((e) => ({
    title: e.title,
    link: e.link,
    date: e.date === undefined ? undefined : String(e.date),
    summary: cut(e.text, FEED_SUMMARY_CHARS),
  }));
  return { title: answer.title, entries, markdown: answer.markdown };
}
