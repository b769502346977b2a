/**
 * Per-call caches. Every API call makes one Ctx: computed styles, boxes and visibility verdicts are looked up
 * once per element per call (a 2,000-row table asks for the same ancestors thousands of times), and never
 * reused across calls, since the page changes between them.
 */

export interface Box { l: number; t: number; r: number; b: number }

export interface VisState {
  /** The element and everything under it is hidden (display:none, opacity 0, clipped, off-screen, ...). */
  hidden: boolean;
  /** Why, for debugging and tests. */
  reason?: string;
  /** The area (in the element's document's client coordinates) its in-flow children can be seen in. */
  clip: Box;
  /** The same for absolutely positioned descendants (they escape clipping up to their containing block). */
  absClip: Box;
  /** Children are hidden (closed <details> but its summary, content-visibility:hidden), with the reason. */
  hideChildren?: string;
  /** Computed display, kept so walkers do not read it again. */
  display?: string;
}

import { listenerMarks, type ListenerMarks } from './listeners.js';

const EMPTY_STYLE = {} as CSSStyleDeclaration;

export class Ctx {
  readonly styles = new Map<Element, CSSStyleDeclaration>();
  readonly rects = new Map<Element, DOMRect>();
  readonly states = new Map<Element, VisState>();
  readonly textHidden = new Map<Element, boolean>();
  readonly backdrops = new Map<Element, unknown>();
  /** Opaque positioned boxes per document (visibility.ts coversOf). */
  readonly covers = new Map<Document, { el: Element; rect: DOMRect; z: number }[]>();
  private readonly marks = new Map<Document, ListenerMarks>();
  constructor(readonly includeHidden = false) {}

  /** Whether page script gave el a click, or a hover/drag, listener (asked once per document per call). */
  pointerListener(el: Element): 'click' | 'hover' | null {
    const doc = el.ownerDocument;
    let m = this.marks.get(doc);
    if (!m) {
      m = listenerMarks(doc);
      this.marks.set(doc, m);
    }
    return m.hover.has(el) ? 'hover' : m.click.has(el) ? 'click' : null;
  }

  style(el: Element): CSSStyleDeclaration {
    let s = this.styles.get(el);
    if (!s) {
      const view = el.ownerDocument?.defaultView;
      try {
        s = view ? view.getComputedStyle(el) : EMPTY_STYLE;
      } catch {
        s = EMPTY_STYLE;
      }
      this.styles.set(el, s);
    }
    return s;
  }

  rect(el: Element): DOMRect {
    let r = this.rects.get(el);
    if (!r) {
      r = el.getBoundingClientRect();
      this.rects.set(el, r);
    }
    return r;
  }

  /** Forget boxes after scrolling. */
  dropRects() {
    this.rects.clear();
    this.states.clear();
  }
}
