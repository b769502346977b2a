/** The links a page shows a person, with their text: what browser_map lists and browser_explore follows. */
import { parseHtml } from '../read/html-tree.js';
import { removeStaticallyHidden } from '../read/static-hidden.js';
import { documentBase, linksWithText } from '../read/metadata.js';

export interface PageLink {
  url: string;
  text: string;
}

/** Links in page order, absolute, de-duplicated; `visibleOnly` false means http HTML still to be judged. */
export function pageLinks(html: string, pageUrl: string, visibleOnly: boolean): PageLink[] {
  const doc = parseHtml(html);
  if (!visibleOnly) removeStaticallyHidden(doc);
  return linksWithText(doc, documentBase(doc, pageUrl));
}
