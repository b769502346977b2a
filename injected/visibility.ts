/**
 * THE visibility predicate. Snapshot, readText, findText, query, check, visibleHtml and the pointer checks all
 * ask this module and nothing else, so "what a person can see" means one thing everywhere.
 *
 * Two levels:
 * - state(el).hidden: the element *and its whole subtree* cannot be seen. Computed top-down and memoised per
 *   call: display:none, the `hidden` attribute, opacity 0 (self or ancestor), closed <details> content,
 *   content-visibility:hidden, clip: rect(0 0 0 0), clip-path inset(50%)/circle(0), a box of <=1px that clips
 *   its overflow (the "sr-only" pattern), scale(0), and boxes entirely outside the area a person can reach:
 *   the document's scrollable area (left:-9999px is out; below the fold is in, you can scroll there), the
 *   padding box of an overflow:hidden ancestor (clipped away), or the scrollable area of a scroll container.
 *   Absolutely positioned boxes escape clipping up to their containing block; fixed ones are checked against
 *   the viewport. A hidden <iframe> hides its document.
 * - textHidden(el): the element's *own* text nodes cannot be read although the box may be there:
 *   visibility hidden/collapse, font-size < 1px, transparent text, text-indent pushing it out (image
 *   replacement), and text whose colour equals the effective background colour (first opaque background up
 *   the tree, composited over white; a background image anywhere on the way means we cannot tell, so the text
 *   counts as visible; when the text is on screen the colour behind it is confirmed with elementsFromPoint, so a
 *   positioned image or panel behind white text keeps it visible).
 *
 * Not decided here: comments, <template>, script/style (the walkers never read them, unless includeHidden for
 * comments and templates), and aria-hidden (still visible text; only the accessibility snapshot leaves it out).
 */
import type { Box, Ctx, VisState } from './ctx.js';
import { flatChildren, flatContains, flatParent, flatParentAcrossFrames, frameElementOf, isElement, isText } from './dom.js';

const HUGE: Box = { l: -1e9, t: -1e9, r: 1e9, b: 1e9 };
/** Colour channels closer than this (0-255) count as the same colour. */
const COLOR_TOLERANCE = 10;

function viewportBox(doc: Document): Box {
  const w = doc.defaultView;
  return w ? { l: 0, t: 0, r: w.innerWidth, b: w.innerHeight } : HUGE;
}

/** The area a person can scroll to, in client coordinates. */
function documentBox(doc: Document, c: Ctx): Box {
  const win = doc.defaultView;
  const se = doc.scrollingElement || doc.documentElement;
  if (!win || !se) return HUGE;
  const l = -win.scrollX;
  const t = -win.scrollY;
  // A page whose viewport clips horizontally (overflow-x hidden on <html>, or on <body> when <html> leaves it
  // visible) cannot be scrolled sideways by a person: off-canvas menus parked to the right are out of reach.
  // Vertically we keep the whole scroll height even when a modal locks scrolling for a moment.
  const rootOx = c.style(doc.documentElement).overflowX;
  const ox = rootOx === 'visible' && doc.body ? c.style(doc.body).overflowX : rootOx;
  const w = ox === 'hidden' || ox === 'clip' ? win.innerWidth : Math.max(se.scrollWidth, win.innerWidth);
  const h = Math.max(se.scrollHeight, win.innerHeight);
  const rtl = c.style(doc.documentElement).direction === 'rtl';
  // Right-to-left documents scroll towards negative x.
  return rtl ? { l: l + win.innerWidth - w, t, r: l + win.innerWidth, b: t + h } : { l, t, r: l + w, b: t + h };
}

function rootState(doc: Document, c: Ctx): VisState {
  const fe = doc !== document ? frameElementOf(doc) : null;
  if (fe && state(fe, c).hidden) return { hidden: true, reason: 'in a hidden frame', clip: HUGE, absClip: HUGE };
  const box = documentBox(doc, c);
  return { hidden: false, clip: box, absClip: box };
}

function outside(r: DOMRect, b: Box): boolean {
  return r.right <= b.l || r.left >= b.r || r.bottom <= b.t || r.top >= b.b;
}

function px(v: string, dim: number): number {
  v = v.trim();
  if (v.endsWith('%')) return (parseFloat(v) / 100) * dim;
  const n = parseFloat(v);
  return Number.isFinite(n) ? n : NaN;
}

/** clip: rect(t, r, b, l) leaving at most a pixel. */
function clipRectEmpty(clip: string): boolean {
  if (!clip || clip === 'auto') return false;
  const m = /^rect\(([^)]*)\)$/.exec(clip.trim());
  if (!m) return false;
  const v = m[1].split(/[\s,]+/).filter(Boolean);
  if (v.length !== 4) return false;
  const num = (s: string, dflt: number) => (s === 'auto' ? dflt : parseFloat(s));
  const top = num(v[0], -1e9);
  const right = num(v[1], 1e9);
  const bottom = num(v[2], 1e9);
  const left = num(v[3], -1e9);
  return right - left <= 1 || bottom - top <= 1;
}

/** clip-path shapes that leave nothing: inset(50%), circle(0), ellipse(0 0), a degenerate polygon. */
function clipPathEmpty(cp: string, r: DOMRect): boolean {
  let m = /^inset\(([^)]*)\)/.exec(cp);
  if (m) {
    const parts = m[1].split(/\s+round\s+/)[0].trim().split(/\s+/);
    const [t, rr = t, b = t, l = rr] = parts;
    const h = r.height || 100;
    const w = r.width || 100;
    const pt = px(t, h), pr = px(rr, w), pb = px(b, h), pl = px(l, w);
    return pt + pb >= h || pl + pr >= w;
  }
  m = /^circle\(\s*([^\s)]+)/.exec(cp);
  if (m) return px(m[1], Math.max(r.width, r.height)) <= 0;
  m = /^ellipse\(\s*([^\s)]+)\s+([^\s)]+)/.exec(cp);
  if (m) return px(m[1], r.width) <= 0 || px(m[2], r.height) <= 0;
  m = /^polygon\(([^)]*)\)/.exec(cp);
  if (m) {
    const pts = m[1].replace(/^\s*(nonzero|evenodd)\s*,/, '').split(',').map((p) => p.trim().split(/\s+/));
    let area = 0;
    for (let i = 0; i < pts.length; i++) {
      const [x1, y1] = pts[i];
      const [x2, y2] = pts[(i + 1) % pts.length];
      area += px(x1, r.width) * px(y2, r.height) - px(x2, r.width) * px(y1, r.height);
    }
    return Number.isFinite(area) && Math.abs(area) < 1;
  }
  return false;
}

function axisRange(el: Element, r: DOMRect, overflow: string, base: Box, horizontal: boolean, rtl: boolean): [number, number] {
  const baseLo = horizontal ? base.l : base.t;
  const baseHi = horizontal ? base.r : base.b;
  if (overflow === 'visible') return [baseLo, baseHi];
  const lo = horizontal ? r.left + el.clientLeft : r.top + el.clientTop;
  const size = horizontal ? el.clientWidth : el.clientHeight;
  if (overflow === 'auto' || overflow === 'scroll') {
    // A person can scroll: the whole scrollable area counts.
    const scrolled = horizontal ? el.scrollLeft : el.scrollTop;
    const extent = horizontal ? el.scrollWidth : el.scrollHeight;
    if (horizontal && rtl) return [lo + size - scrolled - extent, lo + size - scrolled];
    return [lo - scrolled, lo - scrolled + extent];
  }
  // hidden / clip: only the padding box shows, within what the parent shows.
  return [Math.max(lo, baseLo), Math.min(lo + size, baseHi)];
}

function hide(reason: string): VisState {
  return { hidden: true, reason, clip: HUGE, absClip: HUGE };
}

const SVG_NS = 'http://www.w3.org/2000/svg';
const HTML_NS = 'http://www.w3.org/1999/xhtml';
/** Elements whose content is drawn in their own box and clipped to it. */
const REPLACED = new Set(['img', 'iframe', 'frame', 'embed', 'object', 'video', 'canvas', 'svg']);

/** The product of the opacity() functions of a filter (1 when there are none). */
export function filterOpacity(filter: string): number {
  let o = 1;
  for (const m of filter.matchAll(/opacity\(\s*([-+\d.eE]+)(%?)\s*\)/g)) {
    const v = parseFloat(m[1]);
    if (Number.isFinite(v)) o *= m[2] ? v / 100 : v;
  }
  return o;
}

const INLINE_DISPLAYS = new Set(['inline', 'contents', 'ruby', 'ruby-text']);

/** Whether el and its subtree are hidden, with the clip areas its descendants are judged against. */
export function state(el: Element, c: Ctx): VisState {
  const cached = c.states.get(el);
  if (cached) return cached;
  const st = computeState(el, c);
  c.states.set(el, st);
  return st;
}

function computeState(el: Element, c: Ctx): VisState {
  const doc = el.ownerDocument;
  const parent = flatParent(el);
  const ps = parent ? state(parent, c) : rootState(doc, c);
  if (ps.hidden) return ps;
  if (ps.hideChildren && !(el.localName === 'summary' && parent!.querySelector(':scope > summary') === el)) return hide(ps.hideChildren);
  // Style reads are the cost of a walk (each one serialises a value): read what decides first, and the rest
  // only when it can matter.
  const s = c.style(el);
  const display = s.display;
  if (!display) return hide('not rendered'); // no window (template content)
  if (display === 'none') return hide('display:none');
  if (el.namespaceURI === HTML_NS && el.hasAttribute('hidden')) return hide('hidden attribute');
  if (parseFloat(s.opacity) <= 0.01) return hide('opacity:0');
  const filter = s.filter;
  if (filter && filter !== 'none' && filterOpacity(filter) <= 0.01) return hide('filter:opacity(0)');
  const pos = s.position;
  const base = pos === 'fixed' ? viewportBox(doc) : pos === 'absolute' ? ps.absClip : ps.clip;
  const isRoot = el === doc.documentElement || el === doc.body;
  let clip = base;
  // Plain inline boxes in flow (b, em, span, a) cannot be sized, clipped or placed apart from their line:
  // skip the box checks for them, the most common elements of all. Replaced elements (img, svg, iframe) are
  // inline too, but sized: a 0x0 frame or SVG shows nothing of its content, a 1x1 image nothing of its alt.
  const replaced = el.localName === 'svg' ? flatParent(el)?.namespaceURI !== SVG_NS : REPLACED.has(el.localName) && el.namespaceURI === HTML_NS;
  if (display !== 'contents' && !isRoot && (replaced || !(display === 'inline' && pos === 'static'))) {
    const r = c.rect(el);
    // (An image still loading, lazily below the fold, has no size yet: it is not tiny, only not there yet.)
    if (replaced && (r.width <= 1 || r.height <= 1) && (el.localName !== 'svg' || s.overflowX !== 'visible') &&
      (el.localName !== 'img' || (el as HTMLImageElement).complete)) return hide('too small to see');
    if ((pos === 'absolute' || pos === 'fixed') && clipRectEmpty(s.clip)) return hide('clip');
    const cp = s.clipPath;
    if (cp && cp !== 'none' && clipPathEmpty(cp, r)) return hide('clip-path');
    const inline = INLINE_DISPLAYS.has(display);
    // overflow-x visible implies overflow-y visible (one non-visible axis turns the other into auto).
    const ox = inline ? 'visible' : s.overflowX;
    const oy = ox === 'visible' ? 'visible' : s.overflowY;
    if ((ox !== 'visible' && r.width <= 1) || (oy !== 'visible' && r.height <= 1)) return hide('zero size');
    const area = r.width * r.height;
    if (area > 0 && outside(r, base)) return hide('outside the area a person can scroll to or see');
    if (area === 0 && (el as HTMLElement).offsetWidth > 0 && (el as HTMLElement).offsetHeight > 0 && s.transform !== 'none') return hide('scaled to nothing');
    if (ox !== 'visible' || oy !== 'visible') {
      const rtl = s.direction === 'rtl';
      const [l, rr] = axisRange(el, r, ox, base, true, rtl);
      const [t, b] = axisRange(el, r, oy, base, false, rtl);
      clip = { l, t, r: rr, b };
    }
  }
  const st: VisState = { hidden: false, clip, absClip: pos !== 'static' ? clip : ps.absClip, display };
  if (el.localName === 'details' && !(el as HTMLDetailsElement).open) st.hideChildren = 'closed details';
  else if (s.contentVisibility === 'hidden') st.hideChildren = 'content-visibility:hidden';
  return st;
}

/** The computed display of a shown element (read once per call). */
export function displayOf(el: Element, c: Ctx): string {
  const st = state(el, c);
  return st.display ?? c.style(el).display ?? '';
}

// ------------------------------------------------------------------ colours

export interface Rgba { r: number; g: number; b: number; a: number }

const colorCache = new Map<string, Rgba | null>();

/** rgb()/rgba()/color(srgb ...) as computed styles print them; null for other colour spaces. Cached by string. */
export function parseColor(v: string | undefined | null): Rgba | null {
  if (!v) return null;
  let r = colorCache.get(v);
  if (r === undefined) {
    r = parseColorUncached(v);
    if (colorCache.size > 500) colorCache.clear();
    colorCache.set(v, r);
  }
  return r;
}

function parseColorUncached(v: string): Rgba | null {
  v = v.trim();
  if (v === 'transparent') return { r: 0, g: 0, b: 0, a: 0 };
  let m = /^rgba?\(([^)]*)\)$/.exec(v);
  if (m) {
    const p = m[1].split(/[\s,/]+/).filter(Boolean).map((x) => (x.endsWith('%') ? (parseFloat(x) / 100) * 255 : parseFloat(x)));
    if (p.length < 3 || p.some((x) => !Number.isFinite(x))) return null;
    let a = p.length > 3 ? p[3] : 1;
    if (m[1].split(/[\s,/]+/).filter(Boolean)[3]?.endsWith('%')) a = a / 255;
    return { r: p[0], g: p[1], b: p[2], a };
  }
  m = /^color\(srgb\s+([^)]*)\)$/.exec(v);
  if (m) {
    const p = m[1].split(/[\s/]+/).filter(Boolean).map(parseFloat);
    if (p.length < 3 || p.some((x) => !Number.isFinite(x))) return null;
    return { r: p[0] * 255, g: p[1] * 255, b: p[2] * 255, a: p.length > 3 ? p[3] : 1 };
  }
  return null;
}

function over(top: Rgba, under: Rgba): Rgba {
  const a = top.a + under.a * (1 - top.a);
  if (a <= 0) return { r: 0, g: 0, b: 0, a: 0 };
  const mix = (x: number, y: number) => (x * top.a + y * under.a * (1 - top.a)) / a;
  return { r: mix(top.r, under.r), g: mix(top.g, under.g), b: mix(top.b, under.b), a };
}

function sameColor(a: Rgba, b: Rgba): boolean {
  return Math.abs(a.r - b.r) <= COLOR_TOLERANCE && Math.abs(a.g - b.g) <= COLOR_TOLERANCE && Math.abs(a.b - b.b) <= COLOR_TOLERANCE;
}

const WHITE: Rgba = { r: 255, g: 255, b: 255, a: 1 };
const MEDIA = new Set(['img', 'video', 'canvas', 'picture', 'svg', 'iframe', 'embed', 'object', 'input', 'select', 'textarea', 'button']);

type Backdrop = { color: Rgba; source: Element | null } | null;

/**
 * The colour behind el's content: its own background composited over its parent's backdrop, up to the first
 * opaque background (or white, the canvas). A background image counts when it paints one colour all over
 * (a gradient whose stops agree, a uniform image we can read); otherwise null: we cannot tell.
 * Memoised per element per call, so a page costs one step per element, not one walk per text.
 */
function backdrop(el: Element, c: Ctx): Backdrop {
  if (c.backdrops.has(el)) return c.backdrops.get(el) as Backdrop;
  const s = c.style(el);
  let v: Backdrop;
  const img = s.backgroundImage;
  if (img && img !== 'none') {
    const ic = backgroundImageColor(s, el.ownerDocument);
    v = ic ? { color: ic, source: el } : null;
  } else {
    const bc = parseColor(s.backgroundColor);
    if (bc && bc.a >= 0.99) v = { color: bc, source: el };
    else {
      const p = flatParentAcrossFrames(el);
      const under: Backdrop = p ? backdrop(p, c) : { color: WHITE, source: null };
      v = under && bc && bc.a > 0 ? { color: over(bc, under.color), source: under.source } : under;
    }
  }
  c.backdrops.set(el, v);
  return v;
}

/** Splits a computed background-image into its layers (commas inside functions stay). */
function layers(v: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < v.length; i++) {
    const ch = v[i];
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === ',' && depth === 0) {
      out.push(v.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(v.slice(start).trim());
  return out.filter(Boolean);
}

/**
 * The one opaque colour a background image paints all over, or null (several colours, see-through, or we
 * cannot read it). Every layer must paint the same colour.
 */
export function backgroundImageColor(s: CSSStyleDeclaration, doc: Document): Rgba | null {
  let color: Rgba | null = null;
  for (const layer of layers(s.backgroundImage)) {
    let lc: Rgba | null = null;
    if (/^(repeating-)?(linear|radial|conic)-gradient\(/.test(layer)) lc = gradientColor(layer);
    else {
      const m = /^url\(\s*"?(.*?)"?\s*\)$/.exec(layer);
      // A small image that does not repeat covers only part of the box.
      if (m && (!/no-repeat/.test(s.backgroundRepeat) || /cover/.test(s.backgroundSize))) lc = imageColor(m[1], doc);
    }
    if (!lc || (color && !sameColor(color, lc))) return null;
    color = lc;
  }
  return color;
}

const COLOR_IN_TEXT = /rgba?\([^)]*\)|color\(srgb[^)]*\)/g;

function gradientColor(g: string): Rgba | null {
  let first: Rgba | null = null;
  for (const m of g.matchAll(COLOR_IN_TEXT)) {
    const col = parseColor(m[0]);
    if (!col || col.a < 0.99) return null;
    if (!first) first = col;
    else if (!sameColor(first, col)) return null;
  }
  return first;
}

/** url -> its uniform colour (null: mixed or unreadable), or the <img> still loading it. */
const imageColors = new Map<string, Rgba | null | HTMLImageElement>();

/**
 * The uniform colour of an image, read through a small canvas. Images the page already loaded (and data:
 * URLs) decode at once; others are started now and answer on a later call. Cross-origin images without CORS
 * cannot be read: unknown.
 */
function imageColor(url: string, doc: Document): Rgba | null {
  let v = imageColors.get(url);
  if (v === undefined) {
    if (imageColors.size > 200) imageColors.clear();
    const img = doc.createElement('img');
    img.src = url;
    v = img;
    imageColors.set(url, v);
  }
  if (!(v instanceof HTMLImageElement)) return v;
  if (!v.complete) return null;
  const color = v.naturalWidth ? uniformPixels(v, doc) : null;
  imageColors.set(url, color);
  return color;
}

function uniformPixels(img: HTMLImageElement, doc: Document): Rgba | null {
  try {
    const canvas = doc.createElement('canvas');
    canvas.width = 8;
    canvas.height = 8;
    const g = canvas.getContext('2d', { willReadFrequently: true });
    if (!g) return null;
    g.drawImage(img, 0, 0, 8, 8);
    const d = g.getImageData(0, 0, 8, 8).data;
    const first: Rgba = { r: d[0], g: d[1], b: d[2], a: 1 };
    for (let i = 0; i < d.length; i += 4) {
      if (d[i + 3] < 250 || !sameColor(first, { r: d[i], g: d[i + 1], b: d[i + 2], a: 1 })) return null;
    }
    return first;
  } catch {
    return null; // a tainted canvas: cross-origin image
  }
}

function paintsSomething(e: Element, c: Ctx, text: Rgba): boolean | null {
  // true: shows something other than the text colour; false: shows the text colour; null: transparent.
  if (MEDIA.has(e.localName)) return true;
  const s = c.style(e);
  if (s.backgroundImage && s.backgroundImage !== 'none') {
    const ic = backgroundImageColor(s, e.ownerDocument);
    return ic ? !sameColor(ic, text) : true;
  }
  const bc = parseColor(s.backgroundColor);
  if (bc && bc.a > 0) return !sameColor(bc, text);
  return null;
}

/** Confirms that what is painted behind el's text really is the text colour. */
function confirmSameColor(el: Element, text: Rgba, bd: NonNullable<Backdrop>, c: Ctx): boolean {
  const win = el.ownerDocument.defaultView;
  if (!win) return true;
  let rect: DOMRect | null = null;
  for (const n of Array.from(el.childNodes)) {
    if (isText(n) && n.data.trim()) {
      const range = el.ownerDocument.createRange();
      range.selectNodeContents(n);
      rect = range.getClientRects()[0] ?? null;
      break;
    }
  }
  rect = rect ?? c.rect(el);
  const x = rect.left + rect.width / 2;
  const y = rect.top + rect.height / 2;
  if (x >= 0 && y >= 0 && x < win.innerWidth && y < win.innerHeight) {
    const root = el.getRootNode() as Document | ShadowRoot;
    const stack = typeof root.elementsFromPoint === 'function' ? root.elementsFromPoint(x, y) : [];
    const i = stack.indexOf(el);
    if (i >= 0) {
      for (let j = i; j < stack.length; j++) {
        const e = stack[j];
        if (j === i && MEDIA.has(e.localName)) continue;
        const p = paintsSomething(e, c, text);
        if (p !== null) return !p;
      }
      return sameColor(WHITE, text);
    }
  }
  // Off screen: look for a positioned sibling (an image, a panel) placed behind the text.
  for (let e: Element | null = el; e && e !== bd.source; e = flatParent(e)) {
    const parent = flatParent(e);
    if (!parent) break;
    for (const sib of Array.from(parent.children)) {
      if (sib === e || flatContains(sib, el)) continue;
      const ss = c.style(sib);
      if (ss.position !== 'absolute' && ss.position !== 'fixed') continue;
      const r = c.rect(sib);
      if (x < r.left || x > r.right || y < r.top || y > r.bottom) continue;
      if (paintsSomething(sib, c, text) || sib.querySelector('img,video,canvas,picture,svg')) return false;
    }
  }
  return true;
}

// ------------------------------------------------------------------ text

/** True when the text nodes directly inside el cannot be read (see the module comment). */
export function textHidden(el: Element, c: Ctx): boolean {
  let v = c.textHidden.get(el);
  if (v === undefined) {
    v = computeTextHidden(el, c);
    c.textHidden.set(el, v);
  }
  return v;
}

function computeTextHidden(el: Element, c: Ctx): boolean {
  const s = c.style(el);
  if (!s.display) return true;
  // Text directly inside a closed <details> or a content-visibility:hidden box (its element children are
  // hidden by state(); its own text nodes are here).
  if (state(el, c).hideChildren) return true;
  if (s.visibility !== 'visible') return true;
  if (parseFloat(s.fontSize) < 1) return true;
  const fill = parseColor(s.webkitTextFillColor) ?? parseColor(s.color);
  if (fill && fill.a <= 0.02) {
    // Gradient text: transparent fill over background-clip:text shows the background through the glyphs.
    const clip = s.getPropertyValue('-webkit-background-clip') || s.backgroundClip;
    return !/text/.test(clip);
  }
  const ti = parseFloat(s.textIndent);
  if (ti < 0 && (ti <= -999 || (-ti >= c.rect(el).width && s.overflowX !== 'visible'))) return true;
  if (fill) {
    const bd = backdrop(el, c);
    if (bd) {
      const shown = fill.a < 1 ? over(fill, bd.color) : fill;
      if (sameColor(shown, bd.color) && confirmSameColor(el, fill, bd, c)) return true;
    }
  }
  return coveredByOverlay(el, c);
}

// ------------------------------------------------------------------ overlays

/** An opaque positioned box that may hide text painted under it. */
export interface Cover { el: Element; rect: DOMRect; z: number }

/**
 * The opaque positioned boxes of a document: absolutely positioned ones with an opaque background, and fixed
 * ones that fill the viewport (a smaller fixed bar covers text only until the person scrolls). Found once per
 * call; their style reads are ones the walk makes anyway.
 */
function coversOf(doc: Document, c: Ctx): Cover[] {
  let list = c.covers.get(doc);
  if (list) return list;
  list = [];
  c.covers.set(doc, list);
  const body = doc.body;
  if (!body) return list;
  const win = doc.defaultView;
  for (const e of Array.from(body.getElementsByTagName('*'))) {
    const s = c.style(e);
    const pos = s.position;
    if (pos !== 'absolute' && pos !== 'fixed') continue;
    if (parseFloat(s.opacity) < 0.99) continue;
    const img = s.backgroundImage;
    const paint = img && img !== 'none' ? backgroundImageColor(s, doc) : parseColor(s.backgroundColor);
    if (!paint || paint.a < 0.99) continue;
    if (state(e, c).hidden) continue;
    const r = c.rect(e);
    if (r.width < 4 || r.height < 4) continue;
    if (pos === 'fixed' && win && (r.width < win.innerWidth * 0.95 || r.height < win.innerHeight * 0.95)) continue;
    const z = parseInt(s.zIndex, 10) || 0;
    // A negative z-index paints under the page's own content: a backdrop, not a cover.
    if (z < 0) continue;
    list.push({ el: e, rect: r, z });
  }
  return list;
}

function overlaps(a: DOMRect, b: DOMRect): boolean {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

/**
 * Whether the text directly inside el is painted over by an opaque positioned box. Only elements whose box
 * meets a cover are hit-tested (elementsFromPoint at their first text), so a page without overlays pays one
 * pass to find there are none. Text outside the viewport cannot be hit-tested: it counts as covered when a
 * cover later in the document (or raised by z-index) holds it entirely.
 */
function coveredByOverlay(el: Element, c: Ctx): boolean {
  const covers = coversOf(el.ownerDocument, c);
  if (!covers.length) return false;
  const box = c.rect(el);
  const near = covers.filter((cv) => cv.el !== el && !flatContains(cv.el, el) && overlaps(box, cv.rect));
  if (!near.length) return false;
  const tr = firstTextRect(el);
  if (!tr || tr.width === 0) return false;
  const x = tr.left + tr.width / 2;
  const y = tr.top + tr.height / 2;
  const win = el.ownerDocument.defaultView;
  if (win && x >= 0 && y >= 0 && x < win.innerWidth && y < win.innerHeight) {
    const root = el.getRootNode() as Document | ShadowRoot;
    const stack = typeof root.elementsFromPoint === 'function' ? root.elementsFromPoint(x, y) : [];
    for (const e of stack) {
      if (near.some((cv) => cv.el === e || flatContains(cv.el, e))) return true;
      if (e === el || flatContains(e, el)) return false;
    }
    return false;
  }
  return near.some((cv) =>
    cv.rect.left <= tr.left && cv.rect.right >= tr.right && cv.rect.top <= tr.top && cv.rect.bottom >= tr.bottom &&
    (cv.z > 0 || !!(el.compareDocumentPosition(cv.el) & Node.DOCUMENT_POSITION_FOLLOWING)));
}

function firstTextRect(el: Element): DOMRect | null {
  for (const n of Array.from(el.childNodes)) {
    if (isText(n) && n.data.trim()) {
      const range = el.ownerDocument.createRange();
      range.selectNodeContents(n);
      return range.getClientRects()[0] ?? null;
    }
  }
  return null;
}

// ------------------------------------------------------------------ options

/** A hidden <option> (or one in a hidden <optgroup>) is not in the list a person opens. */
export function optionHidden(o: Element, c: Ctx): boolean {
  for (let e: Element | null = o; e && (e.localName === 'option' || e.localName === 'optgroup'); e = e.parentElement) {
    if ((e as HTMLElement).hidden || c.style(e).display === 'none') return true;
  }
  return false;
}

// ------------------------------------------------------------------ elements

/**
 * Whether a person can see the element itself (for query, check and the pointer): not hidden, rendered, and
 * either a non-empty box with visibility:visible or (zero-size / display:contents) something visible inside.
 */
export function isVisible(el: Element, c: Ctx): boolean {
  const tag = el.localName;
  if (tag === 'option' || tag === 'optgroup') {
    const sel = el.closest('select');
    return !!sel && !optionHidden(el, c) && isVisible(sel, c);
  }
  if (state(el, c).hidden) return false;
  // Catches what the walk-up cannot: light children of a shadow host that no slot shows.
  if (typeof el.checkVisibility === 'function' && !el.checkVisibility()) return false;
  return boxVisible(el, c, 0);
}

function boxVisible(el: Element, c: Ctx, depth: number): boolean {
  const s = c.style(el);
  if (s.display !== 'contents') {
    const r = c.rect(el);
    if (r.width > 0 && r.height > 0) return s.visibility === 'visible';
  }
  if (depth > 8) return false;
  // Zero-size box (or none at all): visible when something inside shows (overflowing content, floats).
  for (const n of Array.from(flatChildren(el))) {
    if (isElement(n)) {
      if (!state(n, c).hidden && boxVisible(n, c, depth + 1)) return true;
    } else if (isText(n) && n.data.trim() && !textHidden(el, c)) {
      const range = el.ownerDocument.createRange();
      range.selectNodeContents(n);
      const rr = range.getBoundingClientRect();
      if (rr.width > 0 && rr.height > 0) return true;
    }
  }
  return false;
}

/**
 * The element a person actually sees and clicks for a control that is itself hidden: custom checkboxes and
 * radios (and file inputs) hide the native input and style its <label> instead.
 */
export function visualProxy(el: Element, c: Ctx): Element | null {
  if (el.localName !== 'input') return null;
  const type = (el as HTMLInputElement).type;
  if (type !== 'checkbox' && type !== 'radio' && type !== 'file') return null;
  const labels = (el as HTMLInputElement).labels;
  if (!labels) return null;
  for (const l of Array.from(labels)) if (isVisible(l, c)) return l;
  return null;
}
