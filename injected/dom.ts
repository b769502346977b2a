/**
 * Tree helpers shared by every reader. The page is read in the *flat tree*: a shadow host shows its open shadow
 * root's content instead of its light children, a <slot> shows what is assigned to it (or its fallback), and
 * same-origin frames are entered by the walkers that want them (frames are crossed explicitly, never here).
 */

export function isElement(n: Node | null | undefined): n is Element {
  return !!n && n.nodeType === 1;
}

export function isText(n: Node): n is Text {
  return n.nodeType === 3;
}

/** Children as rendered: open shadow root content for hosts, assigned nodes for slots. */
export function flatChildren(n: Node): ArrayLike<Node> {
  if (isElement(n)) {
    const sr = (n as Element).shadowRoot;
    if (sr) return sr.childNodes;
    if ((n as Element).localName === 'slot' && typeof (n as HTMLSlotElement).assignedNodes === 'function') {
      const assigned = (n as HTMLSlotElement).assignedNodes();
      if (assigned.length) return assigned;
    }
  }
  return n.childNodes;
}

/** The parent in the flat tree, staying inside one document (a shadow root's child goes to its host). */
export function flatParent(n: Node): Element | null {
  const slot = (n as Element | Text).assignedSlot;
  if (slot) return slot;
  const p = n.parentNode;
  if (!p) return null;
  if (p.nodeType === 11) return (p as ShadowRoot).host ?? null;
  if (p.nodeType === 1) return p as Element;
  return null;
}

/** The parent in the flat tree, and from a frame's root element to its <iframe> element. */
export function flatParentAcrossFrames(n: Node): Element | null {
  const p = flatParent(n);
  if (p) return p;
  if (n.parentNode && n.parentNode.nodeType === 9) return frameElementOf(n.parentNode as Document);
  return null;
}

/** The <iframe> holding `doc`, when we may see it. */
export function frameElementOf(doc: Document): Element | null {
  try {
    return (doc.defaultView?.frameElement as Element | null) ?? null;
  } catch {
    return null;
  }
}

/** The document inside a frame element, or null when it cannot be entered (cross-origin / not loaded). */
export function frameDocument(el: Element): Document | null {
  try {
    const d = (el as HTMLIFrameElement).contentDocument;
    return d && d.documentElement ? d : null;
  } catch {
    return null;
  }
}

export function isFrame(el: Element): boolean {
  const t = el.localName;
  return t === 'iframe' || t === 'frame';
}

/** True when `a` contains `b` in the flat tree (crossing shadow boundaries and frames), or a === b. */
export function flatContains(a: Element, b: Node): boolean {
  let cur: Node | null = b;
  while (cur) {
    if (cur === a) return true;
    cur = flatParentAcrossFrames(cur);
  }
  return false;
}

/** Deepest element that contains all the given nodes in the flat tree. */
export function commonAncestor(nodes: Node[]): Element | null {
  if (!nodes.length) return null;
  // A slotted text node belongs to its light-DOM parent, not to the <slot> showing it.
  const first = isElement(nodes[0]) ? (nodes[0] as Element) : nodes[0].parentElement ?? flatParentAcrossFrames(nodes[0]);
  const chain: Element[] = [];
  for (let e: Element | null = first; e; e = flatParentAcrossFrames(e)) chain.push(e);
  let best = 0;
  for (const n of nodes.slice(1)) {
    while (best < chain.length && !flatContains(chain[best], n)) best++;
  }
  return chain[best] ?? null;
}

/** The element with focus, descending into shadow roots and same-origin frames. */
export function deepActiveElement(doc: Document = document): Element | null {
  let a: Element | null = doc.activeElement;
  while (a) {
    if (a.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
    else if (isFrame(a) && frameDocument(a)?.activeElement) a = frameDocument(a)!.activeElement;
    else break;
  }
  return a;
}

/**
 * Characters that print nothing: zero-width space, word joiner, BOM, soft hyphen, invisible operators and
 * the zero-width (non-)joiners. Pages put them inside words to defeat search and filters ("Pass\u200bword");
 * a person reads the word whole, so do we. A joiner between emoji builds one picture and stays.
 */
const INVISIBLE = /[\u200b\u200c\u2060\ufeff\u00ad\u180e\u2061-\u2064]|\u200d(?!\p{Extended_Pictographic})/gu;
const HAS_INVISIBLE = /[\u200b-\u200d\u2060\ufeff\u00ad\u180e\u2061-\u2064]/;

/** Page text without the characters that print nothing (see INVISIBLE). */
export function visibleChars(s: string): string {
  return HAS_INVISIBLE.test(s) ? s.replace(INVISIBLE, '') : s;
}

export function collapse(s: string): string {
  return visibleChars(s).replace(/[\s\u00a0]+/g, ' ').trim();
}

export function cut(s: string, max: number): string {
  if (s.length <= max) return s;
  // Do not split a surrogate pair.
  let end = max;
  const code = s.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return s.slice(0, end).trimEnd() + '…';
}

export function absoluteUrl(v: string | null, base: string): string | null {
  if (v == null) return null;
  try {
    return new URL(v, base).href;
  } catch {
    return v;
  }
}

/** Elements that are never page text. */
export const NEVER_TEXT = new Set(['script', 'style', 'noscript', 'head', 'meta', 'link', 'base', 'title', 'param', 'source', 'track', 'datalist']);

/** Elements whose own subtree is not document text (their contents are values or options). */
export const OPAQUE_CONTROLS = new Set(['select', 'textarea', 'input', 'option', 'optgroup']);
