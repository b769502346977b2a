/**
 * Element refs. `eN` in the top document, `fK:eN` in same-origin frame K (frames numbered 1, 2, ... in the
 * order this script first meets them, which is document order on the first snapshot; a frame keeps its
 * number while its <iframe> element lives). A ref is cached on its element (WeakMap) and reused while the
 * element lives; numbers are never reused within a document. One ref space per document: resolve() accepts
 * every ref handed out in this document by any tool (snapshot, query, findText, similar, extract) for as long as
 * its element is still in the page. A navigation starts a new document with a fresh script, so old refs die
 * with it; a removed or re-rendered element is a new element and its old ref is stale. A cross-origin frame
 * also gets a K here (its <iframe> element's); its own script numbers its elements `eN`, and the daemon maps
 * `fK:eN` onto that frame's session (daemon/browser/cross-frames.ts).
 */
import type { RefError } from './api.js';
import { frameElementOf } from './dom.js';

const refOfElement = new WeakMap<Element, string>();
const elementOfRef = new Map<string, WeakRef<Element>>();
const lastNumber = new Map<number, number>();
const frameIndexOfElement = new WeakMap<Element, number>();
const frameElementOfIndex = new Map<number, WeakRef<Element>>();
let frameCount = 0;

/** Refs handed out in this document (resolve() accepts these while their element lives). */
const handedOut = new Set<string>();
/** Elements that had a line in the previous snapshot (for `*` marks). */
let previousOwners: WeakSet<Element> | null = null;

export const REF_RE = /^(?:f([1-9][0-9]{0,4}):)?e([1-9][0-9]{0,8})$/;

/** The frame number of a same-origin <iframe> element, assigned on first sight. */
export function frameIndexOfFrameElement(iframe: Element): number {
  let k = frameIndexOfElement.get(iframe);
  if (k === undefined) {
    k = ++frameCount;
    frameIndexOfElement.set(iframe, k);
    frameElementOfIndex.set(k, new WeakRef(iframe));
  }
  return k;
}

/** The <iframe> element frame number K was given to, while it is in the page. */
export function frameElementOfNumber(k: number): Element | null {
  const el = frameElementOfIndex.get(k)?.deref();
  return el && el.isConnected ? el : null;
}

/**
 * A frame number no <iframe> of this document holds: the daemon numbers frames it reaches through their own
 * sessions (inside a cross-origin frame) from the same count, so one tab's K never means two frames.
 */
export function reserveFrameNumber(): number {
  return ++frameCount;
}

/** 0 for this script's own document, K for a frame inside it. */
export function frameIndexOfDocument(doc: Document): number {
  if (doc === document) return 0;
  const fe = frameElementOf(doc);
  return fe ? frameIndexOfFrameElement(fe) : 0;
}

/** The element's ref, assigning the next number of its document when it has none. Not yet resolvable. */
export function refFor(el: Element): string {
  let ref = refOfElement.get(el);
  if (ref) return ref;
  const k = frameIndexOfDocument(el.ownerDocument);
  const n = (lastNumber.get(k) ?? 0) + 1;
  lastNumber.set(k, n);
  ref = k ? `f${k}:e${n}` : `e${n}`;
  refOfElement.set(el, ref);
  elementOfRef.set(ref, new WeakRef(el));
  return ref;
}

/** A ref handed out by query/findText/similar/extract: valid while its element lives, like a snapshot's. */
export function grant(el: Element): string {
  const ref = refFor(el);
  handedOut.add(ref);
  return ref;
}

export interface SnapshotRefs {
  refs: Set<string>;
  owners: WeakSet<Element>;
}

/** Whether an element had a line in the previous snapshot; undefined when there was none. */
export function wasShown(el: Element): boolean | undefined {
  return previousOwners ? previousOwners.has(el) : undefined;
}

/** Ends a snapshot: its refs join the handed-out ones and its elements become the "previous" ones. */
export function commitSnapshot(s: SnapshotRefs) {
  for (const ref of s.refs) handedOut.add(ref);
  previousOwners = s.owners;
  for (const [ref, w] of elementOfRef) {
    if (w.deref()) continue;
    elementOfRef.delete(ref);
    handedOut.delete(ref);
  }
}

export function staleMessage(ref: string): string {
  return `ref ${ref} is not in the current page; take a new browser_snapshot`;
}

export function resolve(ref: unknown): { el: Element } | RefError {
  if (typeof ref !== 'string' || !REF_RE.test(ref)) {
    return { error: 'not_found', message: `${JSON.stringify(ref)} is not a ref; refs look like e12 or f1:e3 (from browser_snapshot, browser_query or browser_find_text)` };
  }
  if (!handedOut.has(ref)) return { error: 'stale_ref', message: staleMessage(ref) };
  const el = elementOfRef.get(ref)?.deref();
  // An element of a frame that navigated away is still "connected" to its old document: check the window too.
  if (!el || !el.isConnected || !el.ownerDocument.defaultView) return { error: 'stale_ref', message: staleMessage(ref) };
  const fe = el.ownerDocument === document ? null : frameElementOf(el.ownerDocument);
  if (el.ownerDocument !== document && (!fe || !fe.isConnected)) return { error: 'stale_ref', message: staleMessage(ref) };
  return { el };
}

export function isRefError(x: unknown): x is RefError {
  return !!x && typeof x === 'object' && 'error' in x && ((x as RefError).error === 'stale_ref' || (x as RefError).error === 'not_found');
}
