/** The links a page shows a person, with their text: what browser_map lists and browser_explore follows. */
import { collapseWs, eachElement, parseHtml, textContent } from '../read/html-tree.js';
import { removeStaticallyHidden } from '../crawl/static-hidden.js';
import { absoluteHttp, documentBase } from '../crawl/metadata.js';

export interface PageLink {
  url: string;
  text: string;
}

/** Links in page order, absolute, de-duplicated; `visibleOnly` false means http HTML still to be judged. */
export function pageLinks(html: string, pageUrl: string, visibleOnly: boolean): PageLink[] {
  const doc = parseHtml(html);
  if (!visibleOnly) removeStaticallyHidden(doc);
  const base = documentBase(doc, pageUrl);
  const out = new Map<string, PageLink>();
  eachElement(doc, (el) => {
    if (el.name === 'script' || el.name === 'style' || el.name === 'template' || el.name === 'head') return false;
    if ((el.name === 'a' || el.name === 'area') && el.attribs.href) {
      const url = absoluteHttp(el.attribs.href, base);
      if (url && !out.has(url)) out.set(url, { url, text: collapseWs(textContent(el) || el.attribs.title || el.attribs['aria-label'] || '').trim().slice(0, 200) });
    }
  });
  return [...out.values()];
}
