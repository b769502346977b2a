// Page facts the Markdown result reports next to the content: title, language,
// author, and the <base href> links resolve against. Gathered in one pass.
import { type HDocument, type HElement, collapseWs, eachElement, textContent } from './html-tree.js';

export interface PageMeta {
  title: string;
  lang?: string;
  byline?: string;
  baseHref?: string;
  /** <h1> texts, to restore the page's title heading when Readability drops it. */
  h1s: string[];
}

export function pageMeta(doc: HDocument): PageMeta {
  let title = '';
  let lang: string | undefined;
  let baseHref: string | undefined;
  const metas: Record<string, string> = {};
  const h1s: string[] = [];
  eachElement(doc, (el) => {
    switch (el.name) {
      case 'html':
        lang ??= el.attribs.lang?.trim() || undefined;
        return;
      case 'title':
        title ||= text(el);
        return false;
      case 'base':
        baseHref ??= el.attribs.href || undefined;
        return false;
      case 'meta': {
        const key = (el.attribs.name || el.attribs.property || el.attribs['http-equiv'] || '').toLowerCase();
        if (key && !(key in metas)) metas[key] = collapseWs(el.attribs.content ?? '').trim();
        return false;
      }
      case 'h1':
        h1s.push(text(el));
        return false;
      case 'svg': // its <title> names a drawing, not the page
      case 'script':
      case 'style':
      case 'template':
        return false;
    }
  });
  return {
    title: title || metas['og:title'] || h1s.find(Boolean) || '',
    lang: lang || metas['content-language'] || undefined,
    byline: metas['author'] || undefined,
    baseHref,
    h1s: h1s.filter(Boolean),
  };
}

function text(el: HElement): string {
  return collapseWs(textContent(el)).trim();
}
