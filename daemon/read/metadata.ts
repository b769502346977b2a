/**
 * Facts about a page beside its content: metadata (description, language, canonical URL, headings, JSON-LD),
 * the links a person can see (what a crawl follows), and images.
 */
import { collapseWs, eachElement, textContent, type HDocument } from './html-tree.js';
import type { PageMetadata } from '../../protocol/crawl.js';

/** An absolute http(s) URL without its fragment, or undefined. */
export function absoluteHttp(href: string | undefined, base: string): string | undefined {
  if (!href) return undefined;
  try {
    const u = new URL(href.trim(), base);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    u.hash = '';
    return u.href;
  } catch {
    return undefined;
  }
}

/** The base links resolve against: <base href> when the page has one. */
export function documentBase(doc: HDocument, pageUrl: string): string {
  let base = pageUrl;
  eachElement(doc, (el) => {
    if (el.name === 'base' && el.attribs.href) {
      base = absoluteHttp(el.attribs.href, pageUrl) ?? pageUrl;
      return false;
    }
    return el.name === 'html' || el.name === 'head';
  });
  return base;
}

export function pageMetadata(doc: HDocument, base: string): PageMetadata {
  const meta: Record<string, string> = {};
  const headings: { level: number; text: string }[] = [];
  const jsonLd: unknown[] = [];
  let title: string | undefined;
  let language: string | undefined;
  let canonicalUrl: string | undefined;
  eachElement(doc, (el) => {
    switch (el.name) {
      case 'html':
        language ??= el.attribs.lang?.trim() || undefined;
        return;
      case 'title':
        title ??= collapseWs(textContent(el)).trim() || undefined;
        return false;
      case 'meta': {
        const key = (el.attribs.name || el.attribs.property || '').toLowerCase();
        if (key && !(key in meta) && el.attribs.content) meta[key] = collapseWs(el.attribs.content).trim();
        return false;
      }
      case 'link':
        if (!canonicalUrl && (el.attribs.rel ?? '').toLowerCase().split(/\s+/).includes('canonical')) canonicalUrl = absoluteHttp(el.attribs.href, base);
        return false;
      case 'script':
        if ((el.attribs.type ?? '').toLowerCase() === 'application/ld+json') {
          try {
            jsonLd.push(JSON.parse(textContent(el)));
          } catch {
            // A broken JSON-LD block says nothing reliable; the others still count.
          }
        }
        return false;
      case 'h1':
      case 'h2':
      case 'h3':
      case 'h4':
      case 'h5':
      case 'h6': {
        const text = collapseWs(textContent(el)).trim();
        if (text) headings.push({ level: Number(el.name[1]), text });
        return false;
      }
      case 'style':
      case 'template':
      case 'svg':
        return false;
    }
  });
  const description = meta['description'] || meta['og:description'] || undefined;
  return {
    ...(title || meta['og:title'] ? { title: title || meta['og:title'] } : {}),
    ...(description ? { description } : {}),
    ...(language || meta['content-language'] ? { language: language || meta['content-language'] } : {}),
    ...(canonicalUrl ? { canonicalUrl } : {}),
    headings,
    jsonLd,
  };
}

/** Links (a, area) in page order, absolute, de-duplicated, with their text. The tree has already lost what a person cannot see. */
export function linksWithText(doc: HDocument, base: string): { url: string; text: string }[] {
  const out = new Map<string, { url: string; text: string }>();
  eachElement(doc, (el) => {
    if (el.name === 'script' || el.name === 'style' || el.name === 'template' || el.name === 'head') return false;
    if ((el.name === 'a' || el.name === 'area') && el.attribs.href) {
      const url = absoluteHttp(el.attribs.href, base);
      if (url && !out.has(url)) out.set(url, { url, text: collapseWs(textContent(el) || el.attribs.title || el.attribs['aria-label'] || '').trim().slice(0, 200) });
    }
  });
  return [...out.values()];
}

/** What a crawl follows: the visible links' addresses. */
export function visibleLinks(doc: HDocument, base: string): string[] {
  return linksWithText(doc, base).map((l) => l.url);
}

export function pageImages(doc: HDocument, base: string): { src: string; alt?: string }[] {
  const out: { src: string; alt?: string }[] = [];
  const seen = new Set<string>();
  eachElement(doc, (el) => {
    if (el.name !== 'img') return;
    const src = absoluteHttp(el.attribs.src ?? el.attribs['data-src'], base);
    if (!src || seen.has(src)) return;
    seen.add(src);
    const alt = el.attribs.alt?.trim();
    out.push({ src, ...(alt ? { alt } : {}) });
  });
  return out;
}
