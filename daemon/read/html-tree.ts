// A thin, typed view over htmlparser2's DOM.
//
// Why htmlparser2 and not jsdom for the walk: on a 2,000-row table page jsdom
// needs ~300 ms just to build its DOM, htmlparser2 ~20 ms. jsdom is kept for
// Readability only (see article.ts). We describe the few node shapes we use
// ourselves instead of importing `domhandler`, which is only a transitive
// dependency of htmlparser2 and not ours to rely on.
import { parseDocument } from 'htmlparser2';

export interface HText {
  type: 'text';
  data: string;
  parent: HParent | null;
}

export interface HElement {
  type: 'tag' | 'script' | 'style';
  name: string;
  attribs: Record<string, string>;
  children: HNode[];
  parent: HParent | null;
}

/** Comments, doctype, CDATA: never rendered. */
export interface HOther {
  type: 'comment' | 'directive' | 'cdata';
  parent: HParent | null;
}

export interface HDocument {
  type: 'root';
  children: HNode[];
  parent: null;
}

export type HNode = HText | HElement | HOther;
export type HParent = HElement | HDocument;

export function parseHtml(html: string): HDocument {
  // Entities decoded, tag names lower-cased: the htmlparser2 defaults for HTML.
  return parseDocument(html) as unknown as HDocument;
}

export function isElement(n: HNode | HDocument | null | undefined): n is HElement {
  return !!n && (n.type === 'tag' || n.type === 'script' || n.type === 'style');
}

export function isText(n: HNode): n is HText {
  return n.type === 'text';
}

/** All text below a node, as the DOM's textContent would give it. */
export function textContent(n: HNode | HDocument): string {
  if (n.type === 'text') return n.data;
  if (n.type !== 'tag' && n.type !== 'script' && n.type !== 'style' && n.type !== 'root') return '';
  let out = '';
  for (const c of n.children) out += textContent(c);
  return out;
}

/** The first element below `root`, in document order, that matches. */
export function findFirst(root: HParent, pred: (el: HElement) => boolean): HElement | undefined {
  for (const c of root.children) {
    if (!isElement(c)) continue;
    if (pred(c)) return c;
    const found = findFirst(c, pred);
    if (found) return found;
  }
  return undefined;
}

export function byTag(...names: string[]): (el: HElement) => boolean {
  const set = new Set(names);
  return (el) => set.has(el.name);
}

/**
 * Visits every element below `root` in document order, in one pass; return
 * false from `visit` to skip an element's subtree. Callers that need several
 * facts about a page gather them in one walk: on a 2,000-row table every extra
 * pass over the tree costs milliseconds.
 */
export function eachElement(root: HParent, visit: (el: HElement) => boolean | void): void {
  for (const c of root.children) {
    if (isElement(c) && visit(c) !== false) eachElement(c, visit);
  }
}

/** Whitespace as HTML collapses it; no-break spaces become plain spaces for Markdown. */
export function collapseWs(s: string): string {
  return s.replace(/[\s\u00a0]+/g, ' ');
}
