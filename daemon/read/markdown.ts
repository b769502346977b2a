// htmlToMarkdown: the page HTML the in-page script hands us -> clean Markdown.
//
// That HTML has already lost everything a person cannot see, so nothing here
// re-adds or re-judges hidden content. Two paths:
//  - article: Readability finds the main content (auto mode uses it only when
//    the page looks like an article), and our walk turns its HTML to Markdown;
//  - page: our walk over the whole <body> (listings, tables, dashboards, where
//    Readability would throw most of the page away).
// Both paths share one walk, so headings, lists, tables, links and code come
// out the same way whichever was used.
import { looksReaderable, readArticle } from './article.js';
import { type HDocument, type HElement, byTag, findFirst, parseHtml } from './html-tree.js';
import type { Block } from './block.js';
import { MarkdownWalker, joinBlocks } from './md-walk.js';
import { truncateBlocks } from './md-truncate.js';
import { pageMeta } from './page-meta.js';
import { makeResolver } from './url.js';

export interface HtmlToMarkdownOptions {
  /** auto (default): Readability when the page is an article; article: always try it; page: never. */
  mode?: 'auto' | 'article' | 'page';
  /** Cut at a block boundary; a last line tells how many characters were left out. */
  maxChars?: number;
}

export interface MarkdownResult {
  title: string;
  markdown: string;
  byline?: string;
  lang?: string;
  usedReadability: boolean;
  /** Links in the returned Markdown (images not counted). */
  links: number;
}

export function htmlToMarkdown(html: string, url: string, opts: HtmlToMarkdownOptions = {}): MarkdownResult {
  const mode = opts.mode ?? 'auto';
  const doc = parseHtml(html);
  const meta = pageMeta(doc);
  const resolve = makeResolver(url, meta.baseHref);

  let blocks: Block[] = [];
  let walker: MarkdownWalker | undefined;
  let usedReadability = false;
  let title = meta.title;
  let byline = meta.byline;
  let lang = meta.lang;

  const article = mode === 'page' ? null : mode === 'article' || looksReaderable(doc) ? readArticle(html, url, mode === 'auto') : null;
  if (article) {
    walker = new MarkdownWalker({ resolve, dropChrome: true });
    blocks = walker.blocks(parseHtml(article.content).children);
    if (blocks.length) {
      usedReadability = true;
      title = article.title || title;
      byline = article.byline || byline;
      lang = lang || article.lang;
      restoreTitleHeading(blocks, title, meta.h1s);
    }
  }
  if (!usedReadability) {
    // Article mode without an article still leaves out the site chrome.
    walker = new MarkdownWalker({ resolve, dropChrome: mode === 'article' });
    blocks = walker.blocks(contentRoot(doc).children);
  }

  let markdown: string;
  let links = walker!.links;
  if (opts.maxChars !== undefined && opts.maxChars >= 0) {
    const cut = truncateBlocks(blocks, Math.floor(opts.maxChars));
    markdown = cut.markdown;
    if (cut.omitted) links = countLinks(markdown);
  } else {
    markdown = joinBlocks(blocks);
  }
  // At most one blank line in a row, everywhere (code blocks included).
  markdown = markdown.replace(/\n{3,}/g, '\n\n');

  return { title, markdown, ...(byline ? { byline } : {}), ...(lang ? { lang } : {}), usedReadability, links };
}

function contentRoot(doc: HDocument): HDocument | HElement {
  return findFirst(doc, byTag('body')) ?? doc;
}

/**
 * Readability drops the <h1> that repeats the title, or demotes an article's <h1> to <h2>. The page's own
 * headings are part of what we promise, so put it back at level 1.
 */
function restoreTitleHeading(blocks: Block[], title: string, h1s: string[]): void {
  const norm = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();
  const t = norm(title);
  const h1 = h1s.find((h) => t && (norm(h) === t || t.includes(norm(h)) || norm(h).includes(t))) ?? (h1s.length === 1 ? h1s[0] : undefined);
  if (!h1) return;
  const present = blocks.find((b) => b.kind === 'heading' && norm(b.text.replace(/^#+ /, '')) === norm(h1));
  if (!present) blocks.unshift({ kind: 'heading', text: '# ' + h1 });
  else if (!blocks.some((b) => b.kind === 'heading' && b.text.startsWith('# '))) present.text = '# ' + h1;
}

/** Links in already-cut Markdown: every link or image has one "](", every image one "![". */
function countLinks(md: string): number {
  return (md.match(/\]\(/g)?.length ?? 0) - (md.match(/!\[/g)?.length ?? 0);
}
