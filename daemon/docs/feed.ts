/**
 * RSS, Atom, RDF and JSON Feed through feedsmith: one section per entry with its title, link and date, and its
 * HTML turned to plain text. Any DOCTYPE is dropped before parsing, so a feed cannot define entities.
 */
import { parseFeed } from 'feedsmith';
import { BrowserdError } from '../../protocol/errors.js';
import { htmlToMarkdown } from '../read/markdown.js';
import { markdownToText } from '../read/plain-text.js';

export interface FeedEntry { title?: string; link?: string; date?: string; text?: string }

type Loose = Record<string, any>;

const str = (v: unknown): string | undefined => {
  if (typeof v === 'string') return v.trim() || undefined;
  if (v && typeof v === 'object' && typeof (v as Loose).value === 'string') return (v as Loose).value.trim() || undefined;
  return undefined;
};

function htmlText(html: string | undefined): string | undefined {
  if (!html) return undefined;
  if (!/[<&]/.test(html)) return html.trim();
  return markdownToText(htmlToMarkdown(`<html><body>${html}</body></html>`, 'about:blank', { mode: 'page' }).markdown) || undefined;
}

function entriesOf(format: string, feed: Loose): { title?: string; entries: FeedEntry[] } {
  if (format === 'atom') {
    return {
      title: str(feed.title),
      entries: (feed.entries ?? []).map((e: Loose) => ({
        title: str(e.title),
        link: (e.links ?? []).find((l: Loose) => !l.rel || l.rel === 'alternate')?.href ?? e.links?.[0]?.href,
        date: e.published ?? e.updated,
        text: htmlText(str(e.content) ?? str(e.summary)),
      })),
    };
  }
  if (format === 'json') {
    return {
      title: str(feed.title),
      entries: (feed.items ?? []).map((e: Loose) => ({ title: str(e.title), link: e.url ?? e.external_url, date: e.date_published ?? e.date_modified, text: e.content_text ?? htmlText(e.content_html ?? e.summary) })),
    };
  }
  // rss and rdf
  return {
    title: str(feed.title),
    entries: (feed.items ?? []).map((e: Loose) => ({ title: str(e.title), link: str(e.link) ?? str(e.guid), date: e.pubDate ?? e.dc?.date ?? e.dc?.dates?.[0], text: htmlText(e.content?.encoded ?? str(e.description)) })),
  };
}

export function parseFeedEntries(text: string): { title?: string; entries: FeedEntry[] } {
  const safe = text.replace(/<!DOCTYPE[^[>]*(\[[\s\S]*?\])?\s*>/gi, '');
  let parsed: { format: string; feed: Loose };
  try {
    parsed = parseFeed(safe) as { format: string; feed: Loose };
  } catch (e) {
    throw new BrowserdError('validation_error', "the file is not a feed feedsmith can read (the parser's words are the page text of this error)", { next: 'Check that it is RSS, Atom, RDF or JSON Feed.', pageText: (e as Error).message.slice(0, 120) });
  }
  return entriesOf(parsed.format, parsed.feed);
}

export function feedToMarkdown(text: string): { markdown: string; title?: string; parts: number; entries: FeedEntry[] } {
  const { title, entries } = parseFeedEntries(text);
  const sections = entries.map((e) => {
    const lines = [`## ${e.title ?? '(untitled)'}`];
    if (e.link) lines.push(`Link: ${e.link}`);
    if (e.date) lines.push(`Date: ${e.date}`);
    if (e.text) lines.push('', e.text);
    return lines.join('\n');
  });
  return { markdown: `${title ? `# ${title}\n\n` : ''}${sections.join('\n\n')}`, title, parts: entries.length, entries };
}
