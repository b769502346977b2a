// Page facts the Markdown result reports next to the content: title, language,
// author, and the <base href> links resolve against.
import { type HDocument, type HElement, byTag, collapseWs, findAll, findFirst, textContent } from './html-tree.js';

export interface PageMeta {
  title: string;
  lang?: string;
  byline?: string;
  baseHref?: string;
  /** Visible <h1> texts, to restore the page's title heading Readability drops. */
  h1s: string[];
}

export function pageMeta(doc: HDocument): PageMeta {
  // <title> inside an inline <svg> names the drawing, not the page.
  const titleEl = findAll(doc, byTag('title'), byTag('svg', 'body'))[0];
  const h1s = findAll(doc, byTag('h1')).map(text).filter(Boolean);
  const title = (titleEl && text(titleEl)) || metaContent(doc, 'property', 'og:title') || h1s[0] || '';
  const html = findFirst(doc, byTag('html'));
  const lang = html?.attribs.lang?.trim() || metaContent(doc, 'http-equiv', 'content-language') || undefined;
  const byline = metaContent(doc, 'name', 'author') || undefined;
  const baseHref = findFirst(doc, (el) => el.name === 'base' && !!el.attribs.href)?.attribs.href;
  return { title, lang, byline, baseHref, h1s };
}

function text(el: HElement): string {
  return collapseWs(textContent(el)).trim();
}

function metaContent(doc: HDocument, attr: string, value: string): string {
  const el = findFirst(doc, (e) => e.name === 'meta' && e.attribs[attr]?.toLowerCase() === value);
  return collapseWs(el?.attribs.content ?? '').trim();
}
