/**
 * What the daemon needs to reach frames this script cannot enter (cross-origin, often in another process): the
 * visible ones with their frame numbers (refs.ts), an <iframe> element by number (its CDP node tells the daemon
 * which frame and session it holds), and where a frame's content box is in the top viewport, so a point
 * inside the frame's own viewport becomes a point a real pointer can be sent to.
 */
import { Ctx } from './ctx.js';
import { frameDocument, isFrame } from './dom.js';
import { failure } from './failure.js';
import { deepElements } from './locator.js';
import { frameElementOfNumber, frameIndexOfFrameElement, reserveFrameNumber } from './refs.js';
import { describeCover, hitTest, scrollIntoViewIfNeeded, toTop } from './actions.js';
import { state } from './visibility.js';

/** The frames of this document (and its same-origin frames) this script cannot enter, in document order; hidden ones left out unless includeHidden. */
export function crossFrames(opts: { includeHidden?: boolean }): { k: number; url: string }[] {
  const c = new Ctx(!!opts.includeHidden);
  const out: { k: number; url: string }[] = [];
  for (const el of deepElements(document)) {
    if (!isFrame(el) || frameDocument(el)) continue;
    if (!c.includeHidden && state(el, c).hidden) continue;
    out.push({ k: frameIndexOfFrameElement(el), url: (el as HTMLIFrameElement).src || el.getAttribute('src') || 'about:blank' });
  }
  return out;
}

function ownerOf(k: number): Element {
  const el = frameElementOfNumber(k);
  if (!el) failure('stale_ref', `frame f${k} is not in the current page; take a new browser_snapshot`);
  return el!;
}

/** The <iframe> element numbered k (called for a CDP object id). */
export function frameOwner(k: number): Element {
  return ownerOf(k);
}

/** Scrolls frame k's element into view if needed; the top-viewport position of its content box's corner. */
export function frameBox(k: number): { x: number; y: number } {
  const el = ownerOf(k);
  scrollIntoViewIfNeeded(el);
  const r = el.getBoundingClientRect();
  const s = el.ownerDocument.defaultView!.getComputedStyle(el);
  const { dx, dy } = toTop(el.ownerDocument);
  return { x: r.left + el.clientLeft + (parseFloat(s.paddingLeft) || 0) + dx, y: r.top + el.clientTop + (parseFloat(s.paddingTop) || 0) + dy };
}

/**
 * Whether a real pointer at (x, y) (top-viewport CSS pixels of this document) reaches frame k: the frame's own
 * script checks what covers an element inside it, this checks what covers the frame. Fails refused (covered,
 * with coveredBy, page text; or outside_viewport).
 */
export function frameHit(k: number, x: number, y: number): void {
  const el = ownerOf(k);
  const hit = hitTest(x, y);
  if (!hit) failure('refused', 'the point inside the frame is outside the viewport', { reason: 'outside_viewport', x, y });
  if (hit === el) return;
  failure('refused', 'the frame is covered there by another element, so a real click would not reach it', { reason: 'covered', x, y, coveredBy: describeCover(hit!, el, new Ctx(false)) });
}

export function reserveFrame(): number {
  return reserveFrameNumber();
}
