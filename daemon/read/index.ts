// Public surface of the read module (browser_read, browser_crawl, convert):
// HTML -> Markdown, and BM25 passages over that Markdown.
export { htmlToMarkdown, type HtmlToMarkdownOptions, type MarkdownResult } from './markdown.js';
export { htmlToMarkdownOffThread, closeMarkdownThreads } from './markdown-pool.js';
export {
  splitPassages,
  rankPassages,
  bestPassages,
  type Passage,
  type SplitOptions,
  type RankOptions,
  type ScoredPassage,
} from './bm25.js';
export { tokenize } from './tokenize.js';
