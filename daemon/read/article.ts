// Is this page an article, and if so what is its main content? (Readability)
//
// Readability needs a DOM with querySelector and friends, which means jsdom,
// and jsdom costs ~300 ms on a 2,000-row table page where htmlparser2 costs
// ~20 ms. So `looksReaderable` first runs Readability's own
// isProbablyReaderable heuristic, ported line for line, on the cheap
// htmlparser2 tree; only pages that pass it are handed to jsdom, where the real
// isProbablyReaderable and then Readability run.
import { createRequire } from 'node:module';
import type { JSDOM } from 'jsdom';
import { type HDocument, type HElement, eachElement, textContent } from './html-tree.js';

// Copied from Readability-readerable.js (0.6.0) so both checks agree.
const UNLIKELY =
  /-ad-|ai2html|banner|breadcrumbs|combx|comment|community|cover-wrap|disqus|extra|footer|gdpr|header|legends|menu|related|remark|replies|rss|shoutbox|sidebar|skyscraper|social|sponsor|supplemental|ad-break|agegate|pagination|pager|popup|yom-remote/i;
const OK_MAYBE = /and|article|body|column|content|main|shadow/i;
const MIN_CONTENT = 140;
const MIN_SCORE = 20;

// jsdom takes about a second to load, and most pages never need it: load it (both packages are CommonJS) the
// first time a page passes the cheap check, not when the daemon or a Markdown thread starts.
const require = createRequire(import.meta.url);
let readerLibs: { jsdom: typeof import('jsdom'); readability: typeof import('@mozilla/readability') } | undefined;
const libs = () => (readerLibs ??= { jsdom: require('jsdom'), readability: require('@mozilla/readability') });

/** isProbablyReaderable's heuristic on an htmlparser2 tree (same defaults). */
export function looksReaderable(doc: HDocument): boolean {
  // querySelectorAll("p, pre, article") plus the parents of "div > br", in one pass.
  const nodes = new Set<HElement>();
  const brDivs: HElement[] = [];
  eachElement(doc, (el) => {
    if (el.name === 'p' || el.name === 'pre' || el.name === 'article') nodes.add(el);
    else if (el.name === 'br' && el.parent?.type !== 'root' && el.parent?.name === 'div') brDivs.push(el.parent);
  });
  for (const d of brDivs) nodes.add(d);
  let score = 0;
  for (const node of nodes) {
    if (!visible(node)) continue;
    const match = (node.attribs.class ?? '') + ' ' + (node.attribs.id ?? '');
    if (UNLIKELY.test(match) && !OK_MAYBE.test(match)) continue;
    if (node.name === 'p' && hasAncestor(node, 'li')) continue;
    const len = textContent(node).trim().length;
    if (len < MIN_CONTENT) continue;
    score += Math.sqrt(len - MIN_CONTENT);
    if (score > MIN_SCORE) return true;
  }
  return false;
}

function visible(el: HElement): boolean {
  const a = el.attribs;
  if (/display\s*:\s*none/i.test(a.style ?? '')) return false;
  if ('hidden' in a) return false;
  return a['aria-hidden'] !== 'true' || (a.class ?? '').includes('fallback-image');
}

function hasAncestor(el: HElement, name: string): boolean {
  for (let p = el.parent; p && p.type !== 'root'; p = p.parent) if (p.name === name) return true;
  return false;
}

export interface Article {
  /** Readability's cleaned HTML of the main content. */
  content: string;
  title?: string;
  byline?: string;
  lang?: string;
}

/**
 * Runs Readability. With `checkReaderable` (auto mode) the real
 * isProbablyReaderable must agree first. Null when there is no article.
 */
export function readArticle(html: string, url: string, checkReaderable: boolean): Article | null {
  let dom: JSDOM;
  try {
    const { JSDOM, VirtualConsole } = libs().jsdom;
    dom = new JSDOM(html, { url: validUrl(url), virtualConsole: new VirtualConsole() });
  } catch {
    return null;
  }
  try {
    const doc = dom.window.document;
    const { Readability, isProbablyReaderable } = libs().readability;
    if (checkReaderable && !isProbablyReaderable(doc)) return null;
    // keepClasses: the walk reads `language-xx` classes on code blocks.
    const parsed = new Readability(doc, { keepClasses: true }).parse();
    if (!parsed?.content || !parsed.textContent?.trim()) return null;
    return {
      content: parsed.content,
      title: parsed.title?.trim() || undefined,
      byline: parsed.byline?.trim() || undefined,
      lang: parsed.lang?.trim() || undefined,
    };
  } catch {
    return null; // Readability throwing on odd markup is a reason to walk the page, not to fail the read
  } finally {
    dom.window.close();
  }
}

function validUrl(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return 'about:blank';
  }
}
