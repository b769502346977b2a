/**
 * extract: structured data of what a person sees (hidden things left out unless includeHidden), within
 * `scope` (CSS, across shadow roots and frames, ` >>> ` allowed) or the whole page. `limit` counts items
 * (rows for tables); `total` counts all there were.
 *
 * - tables: {caption?, headers, rows, locator}: headers from <thead> (or a first row of only <th>), rows cell
 *   for cell as visible text; layout tables (with nested tables) are skipped, their inner tables are not.
 * - links: {text, href, rel?}: absolute hrefs; text is the accessible name (image alt for image links).
 * - meta: {name, content}: title, <meta name|property|http-equiv|itemprop>, canonical, lang.
 * - form: {form, locator, action, method, fields: {name, type, label, value, options?, required, ref?}}: the
 *   current values, passwords as '••••', checkboxes/radios as "true"/"false"; fields outside any form come
 *   last as form "(no form)". Fields that can be operated carry a ref.
 * - images: {src, alt, width, height, source: 'img'|'background', link?, context}: rendered size in CSS px.
 */
import type { ExtractOptions, ExtractResult } from './api.js';
import { Ctx } from './ctx.js';
import { absoluteUrl, collapse, cut } from './dom.js';
import { deepElements, locatorFor, selectAll, validateCss, type LocatorCache } from './locator.js';
import { grant } from './refs.js';
import { failure } from './failure.js';
import { accessibleName, contentText, roleOf } from './roles.js';
import { elementText } from './text.js';
import { isVisible, optionHidden } from './visibility.js';

type Root = Document | Element;

export function extract(o: ExtractOptions): ExtractResult {
  const kind = o.kind;
  const limit = Math.max(1, Math.min(5000, Math.floor(o.limit ?? 500)));
  const c = new Ctx(!!o.includeHidden);
  let scopes: Root[] = [document];
  if (o.scope) {
    const err = validateCss(o.scope.split('>>>')[0].trim());
    if (err) failure('validation_error', `scope: ${err}`);
    try {
      scopes = selectAll(o.scope).filter((e) => c.includeHidden || isVisible(e, c));
    } catch (e) {
      failure('validation_error', `scope: ${(e as Error).message}`);
    }
    if (!scopes.length) failure('validation_error', `scope ${JSON.stringify(o.scope)} matches no visible element`);
  }
  const shown = (e: Element) => c.includeHidden || isVisible(e, c);
  const all = (sel: string) => {
    const out: Element[] = [];
    const seen = new Set<Element>();
    for (const s of scopes) {
      if (s.nodeType === 1 && (s as Element).matches(sel) && !seen.has(s as Element)) {
        seen.add(s as Element);
        out.push(s as Element);
      }
      for (const e of deepElements(s)) if (!seen.has(e) && e.matches(sel)) {
        seen.add(e);
        out.push(e);
      }
    }
    return out;
  };
  switch (kind) {
    case 'tables': return tables(all, shown, c, limit);
    case 'links': return cap(kind, all('a[href],area[href]').filter(shown).map((a) => link(a, c)), limit);
    case 'meta': return cap(kind, meta(), limit);
    case 'form': return forms(all, shown, c, limit);
    case 'images': return images(all, shown, c, limit);
    default: return failure('validation_error', `unknown kind ${JSON.stringify(kind)}: use tables, links, meta, form or images`);
  }
}

function cap(kind: ExtractOptions['kind'], items: unknown[], limit: number): ExtractResult {
  return { kind, items: items.slice(0, limit), total: items.length };
}

// ------------------------------------------------------------------ tables

function cellText(cell: Element, c: Ctx): string {
  return elementText(cell, c);
}

function rowCells(row: Element, shown: (e: Element) => boolean): Element[] {
  return Array.from(row.children).filter((x) => (x.localName === 'td' || x.localName === 'th' || /^(cell|gridcell|columnheader|rowheader)$/.test(x.getAttribute('role') ?? '')) && shown(x));
}

function tables(all: (sel: string) => Element[], shown: (e: Element) => boolean, c: Ctx, limit: number): ExtractResult {
  const items: unknown[] = [];
  let total = 0;
  let left = limit;
  const cache: LocatorCache = new Map();
  for (const t of all('table,[role=table],[role=grid],[role=treegrid]')) {
    if (!shown(t) || t.querySelector('table') || roleOf(t) === 'none') continue;
    const rows = Array.from(t.querySelectorAll('tr,[role=row]')).filter((r) => (r.closest('table,[role=table],[role=grid],[role=treegrid]') === t) && shown(r));
    let headers: string[] = [];
    let body = rows;
    const headRows = rows.filter((r) => r.parentElement?.localName === 'thead' || (r.getAttribute('role') === 'row' && r.parentElement?.getAttribute('role') === 'rowgroup' && r.querySelector('[role=columnheader]')));
    if (headRows.length) {
      headers = rowCells(headRows[headRows.length - 1], shown).map((x) => cellText(x, c));
      body = rows.filter((r) => !headRows.includes(r));
    } else if (rows.length) {
      const first = rowCells(rows[0], shown);
      if (first.length && first.every((x) => x.localName === 'th' || x.getAttribute('role') === 'columnheader')) {
        headers = first.map((x) => cellText(x, c));
        body = rows.slice(1);
      }
    }
    const data = body.map((r) => rowCells(r, shown).map((x) => cellText(x, c))).filter((r) => r.length);
    total += data.length;
    if (left <= 0) continue;
    const caption = t.localName === 'table' ? (t as HTMLTableElement).caption : null;
    const item: Record<string, unknown> = { headers, rows: data.slice(0, left), locator: locatorFor(t, cache) };
    const name = caption ? elementText(caption, c) : t.getAttribute('aria-label') ?? '';
    if (name) item.caption = name;
    left -= Math.min(left, data.length);
    items.push(item);
  }
  return { kind: 'tables', items, total };
}

// ------------------------------------------------------------------ links, meta

function link(a: Element, c: Ctx): { text: string; href: string; rel?: string } {
  const out: { text: string; href: string; rel?: string } = { text: accessibleName(a, 'link', c), href: absoluteUrl(a.getAttribute('href'), a.baseURI) ?? '' };
  const rel = a.getAttribute('rel');
  if (rel) out.rel = rel;
  return out;
}

function meta(): { name: string; content: string }[] {
  const out: { name: string; content: string }[] = [];
  if (document.title) out.push({ name: 'title', content: document.title });
  for (const m of Array.from(document.querySelectorAll('meta'))) {
    const name = m.getAttribute('name') ?? m.getAttribute('property') ?? m.getAttribute('http-equiv') ?? m.getAttribute('itemprop');
    const content = m.getAttribute('content');
    if (name && content !== null) out.push({ name, content });
  }
  const canon = document.querySelector('link[rel=canonical][href]');
  if (canon) out.push({ name: 'canonical', content: absoluteUrl(canon.getAttribute('href'), document.baseURI) ?? '' });
  const lang = document.documentElement.getAttribute('lang');
  if (lang) out.push({ name: 'lang', content: lang });
  return out;
}

// ------------------------------------------------------------------ forms

const FIELD_SEL = 'input,select,textarea';

function field(f: Element, c: Ctx, shown: boolean) {
  const tag = f.localName;
  const type = tag === 'input' ? (f as HTMLInputElement).type : tag === 'select' ? ((f as HTMLSelectElement).multiple ? 'select-multiple' : 'select-one') : 'textarea';
  let value: string;
  let options: string[] | undefined;
  if (tag === 'select') {
    const sel = f as HTMLSelectElement;
    value = Array.from(sel.selectedOptions).map((o) => collapse(o.label || o.text)).join(', ');
    options = Array.from(sel.options).filter((o) => c.includeHidden || !optionHidden(o, c)).slice(0, 100).map((o) => collapse(o.label || o.text));
  } else if (type === 'checkbox' || type === 'radio') {
    value = (f as HTMLInputElement).checked ? 'true' : 'false';
  } else if (type === 'password') {
    value = (f as HTMLInputElement).value ? '••••' : '';
  } else if (type === 'file') {
    const files = (f as HTMLInputElement).files;
    value = files ? Array.from(files).map((x) => x.name).join(', ') : '';
  } else {
    value = (f as HTMLInputElement).value;
  }
  const labels = (f as HTMLInputElement).labels;
  const label = cut((labels && labels.length ? collapse(Array.from(labels).map((l) => contentText(l, c)).join(' ')) : '') || accessibleName(f, roleOf(f), c), 200);
  const out: Record<string, unknown> = { name: f.getAttribute('name') ?? '', type, label, value, required: (f as HTMLInputElement).required };
  if (options) out.options = options;
  if (shown && type !== 'hidden') out.ref = grant(f);
  return out;
}

function forms(all: (sel: string) => Element[], shown: (e: Element) => boolean, c: Ctx, limit: number): ExtractResult {
  const cache: LocatorCache = new Map();
  const items: unknown[] = [];
  const inForms = new Set<Element>();
  const visible = (e: Element) => isVisible(e, c);
  for (const form of all('form')) {
    if (!shown(form)) continue;
    const fields = Array.from((form as HTMLFormElement).elements).filter((e) => e.matches(FIELD_SEL));
    fields.forEach((f) => inForms.add(f));
    const f = form as HTMLFormElement;
    items.push({
      form: f.getAttribute('name') || f.getAttribute('id') || f.getAttribute('aria-label') || '',
      locator: locatorFor(form, cache),
      action: f.getAttribute('action') !== null ? f.action : location.href,
      method: (f.getAttribute('method') || 'get').toLowerCase(),
      fields: fields.filter(shown).map((e) => field(e, c, visible(e))),
    });
  }
  const loose = all(FIELD_SEL).filter((f) => !inForms.has(f) && !(f as HTMLInputElement).form && shown(f));
  if (loose.length) items.push({ form: '(no form)', locator: 'body', action: null, method: null, fields: loose.map((e) => field(e, c, visible(e))) });
  return cap('form', items, limit);
}

// ------------------------------------------------------------------ images

function imageContext(el: Element, c: Ctx): string {
  const fig = el.closest('figure');
  const cap = fig?.querySelector('figcaption');
  if (cap) return cut(elementText(cap, c), 120);
  for (let p = el.parentElement, i = 0; p && i < 3; p = p.parentElement, i++) {
    const t = elementText(p, c);
    if (t) return cut(t, 120);
  }
  return '';
}

function images(all: (sel: string) => Element[], shown: (e: Element) => boolean, c: Ctx, limit: number): ExtractResult {
  const items: unknown[] = [];
  const everything = all('*');
  for (const el of everything) {
    if (el.localName === 'img') {
      if (!shown(el)) continue;
      const img = el as HTMLImageElement;
      const r = img.getBoundingClientRect();
      const a = img.closest('a[href]');
      const it: Record<string, unknown> = {
        src: img.currentSrc || absoluteUrl(img.getAttribute('src'), img.baseURI) || '',
        alt: img.getAttribute('alt') ?? '',
        width: Math.round(r.width),
        height: Math.round(r.height),
        source: 'img',
        context: imageContext(img, c),
      };
      if (a) it.link = absoluteUrl(a.getAttribute('href'), a.baseURI);
      items.push(it);
      continue;
    }
    const bg = c.style(el).backgroundImage;
    if (!bg || bg === 'none' || !/url\(/.test(bg) || !shown(el)) continue;
    const r = el.getBoundingClientRect();
    for (const m of bg.matchAll(/url\(\s*(['"]?)(.*?)\1\s*\)/g)) {
      const it: Record<string, unknown> = {
        src: absoluteUrl(m[2], el.baseURI),
        alt: el.getAttribute('aria-label') ?? el.getAttribute('title') ?? '',
        width: Math.round(r.width),
        height: Math.round(r.height),
        source: 'background',
        context: imageContext(el, c),
      };
      const a = el.closest('a[href]');
      if (a) it.link = absoluteUrl(a.getAttribute('href'), a.baseURI);
      items.push(it);
    }
  }
  return cap('images', items, limit);
}
