/**
 * similar: the repeated-item detector behind listings. From the given element, climb to the ancestor that is
 * repeated the most: its siblings (and cousins: same-shaped children of its parent's same-shaped siblings)
 * share its tag and a class (or both have none). The item is the highest level repeated at least half as
 * often as the most repeated level, so a card's link or its two buttons climb to the card; table cells are
 * never items (a cell climbs to its row). Each visible item comes back with a ref, a locator, its text and fields:
 * title (first heading, else first link text), link, image, price (a currency amount), and the text of
 * classed leaf elements by class name (`rating`, `author`, ...).
 */
import type { SimilarItem, SimilarResult } from './api.js';
import { Ctx } from './ctx.js';
import { absoluteUrl, collapse, cut } from './dom.js';
import { locatorFor, type LocatorCache } from './locator.js';
import { grant } from './refs.js';
import { elementOf, failure } from './failure.js';
import { elementText } from './text.js';
import { isVisible } from './visibility.js';

/** A currency amount: symbol first ($36.00), else amount first (36,00 €). */
const PRICE_PREFIX = /[$€£¥₹]\s?\d(?:[\d.,]*\d)?/;
const PRICE_SUFFIX = /\d(?:[\d.,]*\d)?\s?(?:€|EUR|USD|GBP|£|kr|zł|CHF)(?![A-Za-z])/;
const MAX_FIELDS = 12;
const CELL = new Set(['td', 'th']);
const CELL_ROLES = new Set(['cell', 'gridcell', 'columnheader', 'rowheader']);
const STATE_CLASSES = /^(active|selected|current|open|hover|focus|first|last|odd|even|is-|has-|js-)/;

function classesOf(el: Element): string[] {
  return Array.from(el.classList).filter((c) => !STATE_CLASSES.test(c));
}

function alike(a: Element, b: Element): boolean {
  if (a.localName !== b.localName) return false;
  const ca = classesOf(a);
  const cb = classesOf(b);
  if (!ca.length && !cb.length) return true;
  return ca.some((c) => cb.includes(c));
}

/** Items like `item`: its alike siblings, plus alike children of the parent's alike siblings. */
function groupOf(item: Element): Element[] {
  const parent = item.parentElement;
  if (!parent) return [item];
  const parents = parent.parentElement ? Array.from(parent.parentElement.children).filter((p) => p === parent || alike(p, parent)) : [parent];
  const out: Element[] = [];
  for (const p of parents) for (const ch of Array.from(p.children)) if (alike(ch, item)) out.push(ch);
  return out;
}

function selectorPart(el: Element): string {
  const cls = classesOf(el).filter((c) => /^[A-Za-z_-][\w-]*$/.test(c)).slice(0, 1);
  return `${CSS.escape(el.localName)}${cls.map((c) => `.${CSS.escape(c)}`).join('')}`;
}

function fieldsOf(item: Element, c: Ctx): Record<string, string> {
  const f: Record<string, string> = {};
  const visible = (e: Element) => c.includeHidden || isVisible(e, c);
  const heading = Array.from(item.querySelectorAll('h1,h2,h3,h4,h5,h6,[role=heading]')).find(visible);
  const links = Array.from(item.querySelectorAll('a[href]')).filter(visible);
  const title = heading ? elementText(heading, c) : links.map((a) => elementText(a, c)).find((t) => t) ?? '';
  if (title) f.title = cut(title, 200);
  const link = item.localName === 'a' && item.hasAttribute('href') ? item : links[0];
  if (link) f.link = absoluteUrl(link.getAttribute('href'), link.baseURI) ?? '';
  const img = Array.from(item.querySelectorAll('img')).find(visible) as HTMLImageElement | undefined;
  if (img) {
    f.image = img.currentSrc || absoluteUrl(img.getAttribute('src'), img.baseURI) || '';
    if (img.alt) f.imageAlt = cut(collapse(img.alt), 200);
  }
  // A price in its own element first (adjacent inline text can run into it), else anywhere in the item.
  const findPrice = (t: string) => PRICE_PREFIX.exec(t) ?? PRICE_SUFFIX.exec(t);
  let price: RegExpExecArray | null = null;
  for (const e of Array.from(item.querySelectorAll('*'))) {
    if (e.children.length || !visible(e)) continue;
    price = findPrice(elementText(e, c));
    if (price) break;
  }
  price = price ?? findPrice(elementText(item, c));
  if (price) f.price = collapse(price[0]);
  for (const e of Array.from(item.querySelectorAll('[class]'))) {
    if (Object.keys(f).length >= MAX_FIELDS) break;
    if (e.children.length > 2 || !visible(e)) continue;
    const name = classesOf(e).find((cl) => /^[A-Za-z][\w-]{1,30}$/.test(cl) && !/\d{3,}/.test(cl));
    if (!name || name in f) continue;
    const v = elementText(e, c);
    if (v) f[name] = cut(v, 200);
  }
  return f;
}

export function similar(o: { ref: string; limit?: number; includeHidden?: boolean }): SimilarResult {
  const target = elementOf(o.ref);
  const c = new Ctx(!!o.includeHidden);
  const limit = Math.max(1, Math.min(500, Math.floor(o.limit ?? 100)));
  // Every level's group; then the highest level repeated at least half as often as the most repeated one
  // (a card beats the two buttons inside each card; a row beats nothing; cells are never items).
  const levels: { item: Element; group: Element[] }[] = [];
  for (let e: Element | null = target; e && e.localName !== 'body' && e.localName !== 'html'; e = e.parentElement) {
    if (CELL.has(e.localName) || CELL_ROLES.has(e.getAttribute('role') ?? '')) continue;
    const group = groupOf(e).filter((x) => c.includeHidden || isVisible(x, c));
    if (group.length >= 2) levels.push({ item: e, group });
  }
  const most = Math.max(0, ...levels.map((l) => l.group.length));
  let best: { item: Element; group: Element[] } | null = null;
  for (const l of levels) if (l.group.length * 2 >= most) best = l;
  if (!best) failure('action_failed', `no repeated item found around ${o.ref}: it is not part of a list, grid or table of alike elements`);
  const { item, group } = best;
  const parent = item.parentElement!;
  const cache: LocatorCache = new Map();
  const cousins = group.some((g) => g.parentElement !== parent);
  const base = cousins && parent.parentElement ? `${locatorFor(parent.parentElement, cache)} > ${selectorPart(parent)}` : locatorFor(parent, cache);
  const itemLocator = `${base} > ${selectorPart(item)}`;
  const items: SimilarItem[] = group.slice(0, limit).map((el) => ({
    ref: grant(el),
    locator: locatorFor(el, cache),
    text: cut(elementText(el, c), 300),
    fields: fieldsOf(el, c),
  }));
  return { items, total: group.length, itemLocator };
}
