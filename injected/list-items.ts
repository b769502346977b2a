/**
 * What scrollUntil (daemon/read/scroll-until.ts) asks of a page: the items of a list as they are now, with a
 * key that names each item whatever DOM node shows it (a virtual list reuses nodes for other rows), and a wait
 * for the page to react to a scroll, woken by the page's own events (scrollend, DOM mutations) rather than by
 * a fixed sleep, and bounded.
 */
import { Ctx } from './ctx.js';
import { collapse } from './dom.js';
import { failure } from './failure.js';
import { elementHtml } from './html.js';
import type { ListItemsOptions, ListItemsResult } from './api.js';

/** Attributes that say which row an element shows; style and class change with layout, so they are left out. */
const IDENTITY = /^(id|data-.+|aria-rowindex|aria-posinset|aria-setsize|href|src|datetime|value)$/i;

function select(root: ParentNode, selector: string, what: string): Element[] {
  try {
    return Array.from(root.querySelectorAll(selector));
  } catch {
    return failure('validation_error', `${what} ${JSON.stringify(selector)} is not a valid CSS selector`);
  }
}

function scroller(container?: string): Element {
  if (!container) return document.scrollingElement ?? document.documentElement;
  const el = select(document, container, 'container')[0];
  if (!el) failure('validation_error', `container ${JSON.stringify(container)} matches nothing in the page`);
  return el;
}

function itemKey(el: Element): string {
  const attrs: string[] = [];
  const walk = (e: Element) => {
    for (const a of Array.from(e.attributes)) if (IDENTITY.test(a.name)) attrs.push(`${a.name}=${a.value}`);
  };
  walk(el);
  for (const link of Array.from(el.querySelectorAll('a[href]')).slice(0, 3)) walk(link);
  return `${collapse(el.textContent ?? '').slice(0, 2000)}\u0000${attrs.join('\u0001')}`;
}

export function listItems(opts: ListItemsOptions): ListItemsResult {
  const s = scroller(opts.container);
  const isDoc = s === document.scrollingElement || s === document.documentElement || s === document.body;
  const r = isDoc ? { left: 0, top: 0, right: innerWidth, bottom: innerHeight } : s.getBoundingClientRect();
  const box = { l: Math.max(0, r.left), t: Math.max(0, r.top), r: Math.min(innerWidth, r.right), b: Math.min(innerHeight, r.bottom) };
  const result: ListItemsResult = {
    items: [],
    top: s.scrollTop,
    height: s.scrollHeight,
    client: isDoc ? innerHeight : s.clientHeight,
    point: { x: (box.l + box.r) / 2, y: (box.t + box.b) / 2 },
  };
  if (!opts.item) return result;
  const c = new Ctx(false);
  const max = opts.maxItemChars ?? 20000;
  // In the order a person sees them: a virtual list may keep recycled nodes in any DOM order.
  const found = select(isDoc ? document : s, opts.item, 'item')
    .map((el, i) => ({ el, i, rect: el.getBoundingClientRect() }))
    .sort((a, b) => a.rect.top - b.rect.top || a.rect.left - b.rect.left || a.i - b.i);
  for (const { el } of found) {
    const html = elementHtml(el, c);
    // Hidden now (a recycled node parked out of sight): it is read when it shows.
    if (!html) continue;
    result.items.push({ key: itemKey(el), html: html.length > max ? html.slice(0, max) : html });
  }
  return result;
}

export type PageChange = 'scrolled' | 'mutated' | 'timeout';

/** The watch watchChange started, until changed() hands it over. One at a time: a new watch ends the old one. */
let watching: { done: Promise<PageChange>; stop: () => void } | undefined;

/**
 * Starts watching for the page to react, before the daemon turns the wheel (so a scroll that ends at once is
 * not missed). After a scroll we started it waits for the scroll to end (scrollend, so a smooth scroll is not
 * read half-way); otherwise for the first DOM mutation. Then it waits for mutations to pause for `quietMs` (a
 * list renders in a frame or two), never past `timeoutMs` in all. changed() answers what woke it.
 */
export function watchChange(opts: { container?: string; scrolled: boolean; timeoutMs: number; quietMs?: number }): void {
  watching?.stop();
  const s = scroller(opts.container);
  const isDoc = s === document.scrollingElement || s === document.documentElement;
  const scrollTarget: EventTarget = isDoc ? window : s;
  const quietMs = opts.quietMs ?? 60;
  let stop!: () => void;
  const done = new Promise<PageChange>((resolve) => {
    let woke: 'scrolled' | 'mutated' | undefined;
    let quiet: ReturnType<typeof setTimeout> | undefined;
    const finish = (why: PageChange) => {
      observer.disconnect();
      scrollTarget.removeEventListener('scrollend', onScrollEnd);
      clearTimeout(bound);
      clearTimeout(quiet);
      resolve(why);
    };
    stop = () => finish(woke ?? 'timeout');
    const settle = () => {
      clearTimeout(quiet);
      quiet = setTimeout(() => finish(woke!), quietMs);
    };
    const onScrollEnd = () => {
      woke ??= 'scrolled';
      settle();
    };
    const observer = new MutationObserver(() => {
      if (!woke && opts.scrolled) return; // renders during the scroll: wait for it to end
      woke ??= 'mutated';
      settle();
    });
    observer.observe(document.documentElement, { childList: true, subtree: true, characterData: true, attributes: true });
    scrollTarget.addEventListener('scrollend', onScrollEnd);
    const bound = setTimeout(() => finish(woke ?? 'timeout'), Math.max(0, opts.timeoutMs));
  });
  watching = { done, stop };
}

/** What woke the watch watchChange started ('timeout' when none is running). */
export function changed(): Promise<PageChange> {
  const w = watching;
  watching = undefined;
  return w ? w.done : Promise.resolve('timeout');
}
