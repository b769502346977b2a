/**
 * Selectors in and out.
 *
 * selectAll(): CSS evaluated across open shadow roots and same-origin frames, in document order. A selector
 * may chain scopes with ` >>> `: each segment is evaluated inside the shadow root (or frame document) of what
 * the previous segment matched, e.g. `my-app >>> button.save` or `iframe#pay >>> input[name="card"]`.
 *
 * locatorFor(): a stable CSS selector that matches exactly one element, verified with querySelectorAll: test
 * ids, then a stable-looking #id, then unique attribute combinations (name, aria-label, href, placeholder,
 * title, alt, type+value, role), then stable classes, then a path of :nth-of-type steps from the nearest
 * ancestor that has a unique selector (or from the root). Elements in shadow roots or frames get a ` >>> `
 * chain (host or iframe locator, then the locator inside).
 */
import { frameDocument, frameElementOf, isFrame } from './dom.js';

export function validateCss(selector: string): string | null {
  try {
    document.createDocumentFragment().querySelector(selector);
    return null;
  } catch (e) {
    return `invalid CSS selector ${JSON.stringify(selector)}: ${(e as Error).message.split('\n')[0]}`;
  }
}

type Root = Document | ShadowRoot | Element | DocumentFragment;

/** Elements under `root` (not root itself) in tree order, through open shadow roots and same-origin frames. */
export function* deepElements(root: Root): Generator<Element> {
  const doc = (root as Node).ownerDocument ?? (root as Document);
  const walker = doc.createTreeWalker(root as Node, NodeFilter.SHOW_ELEMENT);
  let n = walker.nextNode() as Element | null;
  while (n) {
    yield n;
    if (n.shadowRoot) yield* deepElements(n.shadowRoot);
    if (isFrame(n)) {
      const d = frameDocument(n);
      if (d) {
        yield d.documentElement;
        yield* deepElements(d.documentElement);
      }
    }
    n = walker.nextNode() as Element | null;
  }
}

/** All elements matching `selector` under the scopes (see the module comment). Throws on invalid CSS. */
export function selectAll(selector: string, scopes: Root[] = [document]): Element[] {
  const segments = selector.split('>>>').map((s) => s.trim());
  for (const s of segments) {
    const err = s ? validateCss(s) : `invalid selector ${JSON.stringify(selector)}: empty segment around >>>`;
    if (err) throw new Error(err);
  }
  if (segments.length > 1) {
    let cur: Root[] = scopes;
    segments.forEach((seg, i) => {
      const next: Element[] = [];
      for (const r of cur) {
        const base: Root | null = i === 0 ? r : (r as Element).shadowRoot ?? (isFrame(r as Element) ? frameDocument(r as Element) : null);
        if (!base) continue;
        next.push(...Array.from(base.querySelectorAll(seg)));
      }
      cur = next;
    });
    return unique(cur as Element[]);
  }
  const out: Element[] = [];
  for (const scope of scopes) for (const el of deepElements(scope)) if (el.matches(selector)) out.push(el);
  return unique(out);
}

function unique(els: Element[]): Element[] {
  return Array.from(new Set(els));
}

// ------------------------------------------------------------------ locators

function cssString(v: string): string {
  return `"${v.replace(/[\\"]/g, '\\$&').replace(/\n/g, '\\a ').replace(/\r/g, '\\d ')}"`;
}

const TEST_ATTRS = ['data-testid', 'data-test-id', 'data-test', 'data-qa', 'data-cy'];

function stableId(id: string): boolean {
  return /^[A-Za-z][\w-]*$/.test(id) && !/\d{5,}|[a-f0-9]{10,}/i.test(id) && !/^(ember|mui-|react-|radix-|headlessui-|rc[-_]|yui_|ext-gen|gwt-|j_id|ng-)/i.test(id);
}

function stableClass(c: string): boolean {
  return /^[A-Za-z][\w-]*$/.test(c) && !/\d{3,}/.test(c) && !/^(css|sc|jsx|emotion|svelte|tw)-/.test(c) && !/_[A-Za-z0-9]{5}$/.test(c) && c.length <= 40;
}

/** Candidate selectors for the element itself, best first. */
function candidates(el: Element, strongOnly = false): string[] {
  const tag = CSS.escape(el.localName);
  const out: string[] = [];
  for (const a of TEST_ATTRS) {
    const v = el.getAttribute(a);
    if (v) out.push(`[${a}=${cssString(v)}]`, `${tag}[${a}=${cssString(v)}]`);
  }
  const id = el.getAttribute('id');
  if (id && stableId(id)) out.push(`#${CSS.escape(id)}`);
  const attr = (name: string) => {
    const v = el.getAttribute(name);
    return v && v.length <= 120 ? `[${name}=${cssString(v)}]` : '';
  };
  const name = attr('name');
  if (name) out.push(`${tag}${name}`);
  const label = attr('aria-label');
  if (label) out.push(`${tag}${label}`);
  if (strongOnly) return out;
  if (el.localName === 'a') {
    const href = attr('href');
    if (href) out.push(`a${href}`);
  }
  for (const a of ['placeholder', 'title', 'alt', 'for']) {
    const v = attr(a);
    if (v) out.push(`${tag}${v}`);
  }
  if (el.localName === 'input' || el.localName === 'button') {
    const type = attr('type');
    const value = attr('value');
    if (type && value) out.push(`${tag}${type}${value}`);
    if (type && name) out.push(`${tag}${type}${name}`);
  }
  const role = attr('role');
  if (role && label) out.push(`${tag}${role}${label}`);
  const classes = Array.from(el.classList).filter(stableClass).slice(0, 3).map((c) => `.${CSS.escape(c)}`);
  for (const c of classes) out.push(`${tag}${c}`);
  if (classes.length > 1) out.push(`${tag}${classes.join('')}`);
  out.push(tag);
  return out;
}

function nthStep(el: Element): string {
  const tag = el.localName;
  if (tag === 'html' || tag === 'body' || tag === 'head') return tag;
  let i = 1;
  for (let s = el.previousElementSibling; s; s = s.previousElementSibling) if (s.localName === tag) i++;
  return `${CSS.escape(tag)}:nth-of-type(${i})`;
}

class Uniq {
  private anchor = new Map<Element, string | null>();
  constructor(private root: Document | ShadowRoot) {}
  is(sel: string, el: Element): boolean {
    try {
      const r = this.root.querySelectorAll(sel);
      return r.length === 1 && r[0] === el;
    } catch {
      return false;
    }
  }
  /** A unique selector made of the element's own attributes, or null. */
  own(el: Element, strongOnly: boolean): string | null {
    if (strongOnly && this.anchor.has(el)) return this.anchor.get(el)!;
    let found: string | null = null;
    for (const cand of candidates(el, strongOnly)) {
      if (this.is(cand, el)) {
        found = cand;
        break;
      }
    }
    if (strongOnly) this.anchor.set(el, found);
    return found;
  }
}

/** Uniqueness verdicts, valid within one call (pass the same cache for every locator of a call). */
export type LocatorCache = Map<Document | ShadowRoot, Uniq>;

function within(el: Element, root: Document | ShadowRoot, cache: LocatorCache): string {
  let u = cache.get(root);
  if (!u) cache.set(root, (u = new Uniq(root)));
  const own = u.own(el, false);
  if (own) return own;
  const steps: string[] = [];
  let cur: Element | null = el;
  while (cur) {
    steps.unshift(nthStep(cur));
    if (steps.length > 1 && u.is(steps.join(' > '), el)) return steps.join(' > ');
    const parent: Element | null = cur.parentElement;
    if (!parent) break;
    const anchor = u.own(parent, true);
    if (anchor) {
      const sel = `${anchor} > ${steps.join(' > ')}`;
      if (u.is(sel, el)) return sel;
    }
    cur = parent;
  }
  let sel = steps.join(' > ');
  if (u.is(sel, el)) return sel;
  // Top level of a shadow root: nothing above it inside the tree, so say so.
  sel = `${steps[0]}:not(* *)${steps.length > 1 ? ' > ' + steps.slice(1).join(' > ') : ''}`;
  return sel;
}

/** The stable unique locator of an element (see the module comment). */
export function locatorFor(el: Element, cache: LocatorCache = new Map()): string {
  const parts: string[] = [];
  let cur: Element | null = el;
  while (cur) {
    const root = cur.getRootNode() as Document | ShadowRoot;
    parts.unshift(within(cur, root, cache));
    if (root.nodeType === 11) cur = (root as ShadowRoot).host;
    else if (root !== document && root.nodeType === 9) cur = frameElementOf(root as Document);
    else cur = null;
  }
  return parts.join(' >>> ');
}
