/**
 * scrollUntil: scrolls a page (or one scrolling element) with real wheel events, as a person would, and keeps
 * every item of a list as it appears, once each and in order, until enough are held, nothing new comes, the
 * end is reached or the scroll budget is spent. Shared by browser_read and crawls.
 *
 * Virtual lists keep only the rows near the viewport in the DOM and reuse nodes for other rows, so items are
 * collected while they are shown, named by what they show (text and identifying attributes, in-page), and
 * merged window by window: each look at the page is a run of consecutive rows, laid over the tail of what is
 * already held. That keeps two different rows with equal text apart (they sit at different places of the
 * run) where a set of seen keys would merge them.
 */
import { Type } from '@sinclair/typebox';
import type { ScrollOutcome, ScrollStop } from '../../protocol/read-params.js';
import { StringEnum } from '../../protocol/params.js';
import { PageText } from '../../protocol/output-fields.js';
import { htmlToMarkdownOffThread } from './markdown-pool.js';
export type { ScrollStop } from '../../protocol/read-params.js';
import { BrowserdError } from '../../protocol/errors.js';
import type { ListItem, ListItemsResult } from '../../injected/api.js';
import { wheel } from '../browser/gestures.js';
import type { Tab } from '../browser/tab.js';

/** A ScrollOutcome as a result field (browser_read pages[].scroll): the items are page text, fenced over MCP. */
export const ScrollOutcomeSchema = Type.Object({
  items: Type.Array(PageText(), { description: 'The list items kept, as Markdown, in the order the list showed them (empty without item).' }),
  scrolls: Type.Integer({ description: 'Wheel turns made.' }),
  stoppedBecause: StringEnum(['count', 'no_new', 'max_scrolls', 'end'] as const, { description: 'count: it held count items; no_new: nothing new for noNewForMs; max_scrolls: the budget was spent; end: the end, and nothing more loaded.' }),
});

export const SCROLL_DEFAULT_NO_NEW_MS = 1500;
export const SCROLL_DEFAULT_MAX = 50;
export const SCROLL_MAX = 500;

export interface ScrollUntilOptions {
  /** Stop once this many items are held (needs `item`). */
  count?: number;
  /** Stop when no new item, height or scroll position came for this long. Default 1500. */
  noNewForMs?: number;
  /** Wheel turns at most; default 50, at most 500. */
  maxScrolls?: number;
  /** CSS selector of one item of the list. */
  item?: string;
  /** CSS selector of the scrolling element; default the document. */
  container?: string;
}


export interface ScrollUntilResult {
  /** Each item's visible HTML, in the order the list shows them (empty without `item`). */
  items: string[];
  scrolls: number;
  stoppedBecause: ScrollStop;
}

/** How far one wheel turn moves: most of a screen, so each look overlaps the one before and no row is skipped. */
const STEP_OF_VIEW = 0.7;
/** The longest a single wait for the page may take, whatever noNewForMs says (a wheel turn that did not scroll). */
const WAIT_CAP_MS = 5000;

/**
 * The rows held so far. `add` lays a window (consecutive rows as the page shows them now) over the held rows:
 * the first place, from where the previous window started, at which the whole overlap agrees; what the
 * window has beyond the held tail is new. A window that overlaps nothing follows the held rows.
 */
export class ItemMerge {
  readonly items: ListItem[] = [];
  /** Where the previous window started: a list scrolled forward never shows rows before it again. */
  private anchor = 0;

  add(window: ListItem[]): number {
    if (!window.length) return 0;
    const held = this.items;
    let at = held.length;
    for (let p = this.anchor; p < held.length; p++) {
      let agrees = true;
      for (let j = 0; j < window.length && p + j < held.length; j++) {
        if (held[p + j]!.key !== window[j]!.key) {
          agrees = false;
          break;
        }
      }
      if (agrees) {
        at = p;
        break;
      }
    }
    const fresh = window.slice(held.length - at);
    held.push(...fresh);
    this.anchor = at;
    return fresh.length;
  }
}

export function checkScrollOptions(o: ScrollUntilOptions): void {
  if (o.count !== undefined && !o.item) {
    throw new BrowserdError('validation_error', 'scrollUntil.count counts items, so it needs scrollUntil.item', { next: 'Add item (a CSS selector of one list item), or drop count.' });
  }
}

/** Throws when the caller gave up; a wait in between is cut short by the same signal. */
function stopIfAborted(signal?: AbortSignal) {
  if (signal?.aborted) throw new BrowserdError('timeout', 'the call was cancelled while scrolling', { next: 'Call again with a smaller count or maxScrolls.' });
}

export async function scrollUntil(tab: Tab, opts: ScrollUntilOptions, signal?: AbortSignal): Promise<ScrollUntilResult> {
  checkScrollOptions(opts);
  const noNewForMs = opts.noNewForMs ?? SCROLL_DEFAULT_NO_NEW_MS;
  const maxScrolls = Math.min(opts.maxScrolls ?? SCROLL_DEFAULT_MAX, SCROLL_MAX);
  const ask = { item: opts.item, container: opts.container };
  const merge = new ItemMerge();
  let scrolls = 0;
  let tallest = 0;
  let furthest = -1;
  let lastNew = Date.now();
  let stop: ScrollStop;
  for (;;) {
    stopIfAborted(signal);
    const now: ListItemsResult = await tab.call('listItems', ask);
    // Progress: a new item, a taller page, or getting further down than before (rows already held can take
    // a few turns to pass). Only a page that neither grows nor moves for noNewForMs is "no new".
    const progress = merge.add(now.items) > 0 || now.height > tallest || now.top > furthest;
    tallest = Math.max(tallest, now.height);
    furthest = Math.max(furthest, now.top);
    if (progress) lastNew = Date.now();
    const atEnd = now.top + now.client >= now.height - 2;
    if (opts.count !== undefined && merge.items.length >= opts.count) {
      stop = 'count';
      break;
    }
    const quietFor = Date.now() - lastNew;
    if (quietFor >= noNewForMs) {
      stop = atEnd ? 'end' : 'no_new';
      break;
    }
    if (!atEnd && scrolls >= maxScrolls) {
      stop = 'max_scrolls';
      break;
    }
    // Watch first, then turn the wheel: a scroll that ends at once still wakes the wait. At the end there is
    // nothing to turn: wait for the page to load more (an endless list appends when its bottom is reached).
    const timeoutMs = Math.min(WAIT_CAP_MS, Math.max(0, noNewForMs - quietFor));
    await tab.call('watchChange', { container: opts.container, scrolled: !atEnd, timeoutMs });
    if (!atEnd) {
      await wheel(tab, now.point, 0, Math.max(40, Math.round(now.client * STEP_OF_VIEW)));
      scrolls++;
    }
    await tab.call('changed');
  }
  const items = merge.items.map((i) => i.html);
  return { items: opts.count !== undefined ? items.slice(0, opts.count) : items, scrolls, stoppedBecause: stop };
}

/** scrollUntil as the readers use it: the kept items turned into Markdown (on the Markdown threads), in order. */
export async function scrollForReading(tab: Tab, opts: ScrollUntilOptions, signal?: AbortSignal): Promise<ScrollOutcome> {
  const r = await scrollUntil(tab, opts, signal);
  const items = await Promise.all(r.items.map((html) => htmlToMarkdownOffThread(html, tab.url, { mode: 'page' }).then((m) => m.markdown.trim())));
  return { items, scrolls: r.scrolls, stoppedBecause: r.stoppedBecause };
}
