/**
 * A fetched page -> a crawl item's content: Markdown, text or metadata, fields checked against a schema, more
 * formats, chunks with citations, BM25 passages, and the visible links the crawl follows. The page is parsed
 * once here (hidden parts removed when the HTML came without a browser), then converted to Markdown on a
 * Markdown thread.
 */
import render from 'dom-serializer';
import { BrowserdError } from '../../protocol/errors.js';
import { bestPassages, htmlToMarkdownOffThread } from '../read/index.js';
import { byTag, collapseWs, eachElement, findFirst, isElement, parseHtml, textContent, type HDocument, type HElement } from '../read/html-tree.js';
import type { CrawlSpec } from './params.js';
import type { PageInput, PageOutput } from './types.js';
import { removeStaticallyHidden, ZERO_WIDTH } from '../read/static-hidden.js';
import { readFields, schemaErrors } from '../read/fields.js';
import { judgeValues } from '../models/extractor-values.js';
import { absoluteHttp, documentBase, linksWithText, pageImages, pageMetadata } from '../read/metadata.js';
import { chunkContent } from './chunks.js';
import { fillsWithModel } from './model-fill.js';
import { markdownToText } from '../read/plain-text.js';

export { checkFieldSelectors, checkOutputSchema } from '../read/fields.js';
export { markdownToText } from '../read/plain-text.js';

type Kind = 'html' | 'text' | 'json';

function kindOf(contentType: string, body: string): Kind | undefined {
  const t = contentType.split(';')[0]!.trim().toLowerCase();
  if (t === 'text/html' || t === 'application/xhtml+xml') return 'html';
  if (t === 'application/json' || t.endsWith('+json')) return 'json';
  if (t.startsWith('text/')) return 'text';
  // No type at all: sniff, as a browser would, for the common case of a page served without one.
  if (!t && /^\s*<(?:!doctype html|html|head|body)\b/i.test(body)) return 'html';
  return undefined;
}

function cut(text: string, maxChars: number): { text: string; omitted?: number } {
  if (text.length <= maxChars) return { text };
  return { text: text.slice(0, maxChars), omitted: text.length - maxChars };
}

/** The page as HTML a person would see (hidden parts removed unless includeHidden), parsed once. */
function visibleTree(page: PageInput, includeHidden: boolean): HDocument {
  const doc = parseHtml(page.html.replace(ZERO_WIDTH, ''));
  if (!page.visibleOnly && !includeHidden) removeStaticallyHidden(doc);
  return doc;
}

export async function renderPage(page: PageInput, spec: CrawlSpec): Promise<PageOutput> {
  return (await renderPageAndText(page, spec)).out;
}

/**
 * The item's content and the page's whole text (Markdown, not cut at maxChars; hidden parts out unless
 * includeHidden), which a model filling outputSchema reads, and the links with their text (a crawl on the
 * signed-in profile judges a link by what it says too: "Delete" on `/a/7f3e`).
 */
export async function renderPageAndText(page: PageInput, spec: CrawlSpec): Promise<{ out: PageOutput; text: string; linkTexts: { url: string; text: string }[] }> {
  const kind = kindOf(page.contentType, page.html.slice(0, 200));
  // The content type is the site's word: the message does not repeat it.
  if (!kind) throw new BrowserdError('action_failed', `not a page: ${page.contentType ? 'its content type is not HTML or text' : 'it has no content type'}`, { next: 'Documents and media are not read by crawls yet; leave them out with deny.' });
  if (kind !== 'html') return renderPlain(page, kind, spec);

  const doc = visibleTree(page, spec.includeHidden);
  const base = documentBase(doc, page.finalUrl);
  const linkTexts = linksWithText(doc, base);
  const out: PageOutput = { links: linkTexts.map((l) => l.url) };
  const wantsMeta = spec.format === 'json' || spec.formats.includes('metadata');
  const metadata = wantsMeta ? pageMetadata(doc, base) : undefined;
  if (metadata) out.metadata = metadata;
  if (spec.fields && spec.extractor && spec.outputSchema) {
    // A learned extractor's values are judged as when it was learned: number fields take their number, and a
    // required field that matched nothing is named.
    const judged = judgeValues(spec.outputSchema, readFields(doc, spec.fields, (u) => absoluteHttp(u, base)));
    out.fields = judged.data;
    const errors = [...judged.missing.map((n) => `/${n}: required, matched nothing`), ...judged.errors];
    if (errors.length) out.schemaErrors = errors;
  } else if (spec.fields) {
    out.fields = readFields(doc, spec.fields, (u) => absoluteHttp(u, base));
    if (spec.outputSchema) {
      const errors = schemaErrors(spec.outputSchema, out.fields);
      if (errors) out.schemaErrors = errors;
    }
  }
  const html = render(doc as never, { decodeEntities: false });
  const needsMarkdown = spec.format !== 'json' || spec.formats.includes('markdown') || spec.formats.includes('text') || !!spec.chunk || !!spec.query || fillsWithModel(spec);
  let markdown = '';
  if (needsMarkdown) {
    const md = await htmlToMarkdownOffThread(html, page.finalUrl);
    out.title = md.title || undefined;
    markdown = md.markdown;
  }
  out.title ??= metadata?.title ?? titleOf(doc);
  if (spec.format !== 'json') {
    const full = spec.format === 'text' ? markdownToText(markdown) : markdown;
    const c = cut(full, spec.maxChars);
    out.content = c.text;
    if (c.omitted) out.omittedChars = c.omitted;
  }
  if (spec.formats.length) {
    const formats: NonNullable<PageOutput['formats']> = {};
    for (const f of spec.formats) {
      if (f === 'markdown') formats.markdown = cut(markdown, spec.maxChars).text;
      else if (f === 'text') formats.text = cut(markdownToText(markdown), spec.maxChars).text;
      else if (f === 'html') formats.html = cut(html, spec.maxChars).text;
      else if (f === 'links') formats.links = out.links;
      else if (f === 'images') formats.images = pageImages(doc, base);
    }
    if (Object.keys(formats).length) out.formats = formats;
  }
  addChunksAndPassages(out, markdown, page.finalUrl, spec);
  return { out, text: markdown, linkTexts };
}

function renderPlain(page: PageInput, kind: 'text' | 'json', spec: CrawlSpec): { out: PageOutput; text: string; linkTexts: { url: string; text: string }[] } {
  let text = page.html.replace(ZERO_WIDTH, '');
  if (kind === 'json') {
    try {
      text = JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      // Not valid JSON after all: kept as the text it is.
    }
  }
  const out: PageOutput = { links: [] };
  if (spec.format === 'json') out.metadata = { headings: [], jsonLd: [] };
  else {
    const c = cut(text, spec.maxChars);
    out.content = c.text;
    if (c.omitted) out.omittedChars = c.omitted;
  }
  addChunksAndPassages(out, text, page.finalUrl, spec);
  return { out, text, linkTexts: [] };
}

function addChunksAndPassages(out: PageOutput, full: string, url: string, spec: CrawlSpec) {
  if (spec.chunk && out.content !== undefined) out.chunks = chunkContent(out.content, url, spec.chunk);
  if (spec.query) {
    out.passages = bestPassages(full, spec.query, spec.topK).map((p) => ({ url, text: p.passage.text, headingPath: p.passage.headingPath, start: p.passage.start, end: p.passage.end, score: Number(p.score.toFixed(3)) }));
    // As browser_read does: with a query the passages are the answer, not the whole page.
    delete out.content;
    delete out.omittedChars;
  }
}

function titleOf(doc: HDocument): string | undefined {
  let title: string | undefined;
  eachElement(doc, (el) => {
    if (title) return false;
    if (el.name === 'title' || el.name === 'h1') title = collapseWs(textContent(el)).trim() || undefined;
  });
  return title;
}

/** Visible characters of body text a page needs before http HTML is trusted to stand for what a person sees. */
const MIN_STATIC_TEXT = 200;
const APP_ROOT = /<(?:div|main)\b[^>]*\bid=["']?(?:root|app|__next|__nuxt|svelte|main-app)["']?[^>]*>\s*<\/(?:div|main)>/i;
const NOT_SHOWN = new Set(['script', 'style', 'noscript', 'template']);
const ENABLE_JS = /<noscript\b[^>]*>[\s\S]{0,400}?(?:enable|turn on|requires?)\s+javascript/i;

/** auto mode: true when http HTML cannot stand for what a person sees (an app shell that scripts fill in). */
export function needsBrowser(page: PageInput): boolean {
  if (kindOf(page.contentType, page.html.slice(0, 200)) !== 'html') return false;
  if (APP_ROOT.test(page.html) || ENABLE_JS.test(page.html)) return true;
  if (!/<script\b/i.test(page.html)) return false;
  const doc = parseHtml(page.html);
  // htmlparser2 adds no <body> to a fragment: then the whole document is the body.
  const body = findFirst(doc, byTag('body')) ?? doc;
  let chars = 0;
  const walk = (el: HElement | HDocument) => {
    for (const c of el.children) {
      if (c.type === 'text') chars += c.data.trim().length;
      else if (isElement(c) && !NOT_SHOWN.has(c.name) && c.name !== 'head') walk(c);
    }
  };
  walk(body);
  return chars < MIN_STATIC_TEXT;
}
