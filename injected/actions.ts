/**
 * What the daemon needs to act on a ref: where a real pointer would land (pointFor), a DOM click that works on
 * covered elements (clickDom), focus, and fill.
 *
 * pointFor: not_visible (the visibility predicate says hidden; a hidden native checkbox/radio/file input
 * with a visible <label> is pointed at through its label), disabled (:disabled or aria-disabled="true"),
 * then scrolls the element to the centre when it is not fully in the viewport, takes the centre of the
 * visible part of its first non-empty client box (frame offsets, borders and padding added), and hit-tests
 * that point from the top document down through open shadow roots and same-origin frames. ok when the hit is
 * the element or inside it, or the element's label, or inside the label the element sits in; covered
 * otherwise, with the covering element described as `div#overlay.modal "Accept cookies"`.
 */
import { EMAIL_MAX_CHARS, type FillResult, type PointResult } from './api.js';
import type { Box } from './ctx.js';
import { Ctx } from './ctx.js';
import { collapse, cut, deepActiveElement, flatContains, flatParentAcrossFrames, frameDocument, frameElementOf, isFrame } from './dom.js';
import { elementOf, failure, tagWord } from './failure.js';
import { contentText, isDisabled } from './roles.js';
import { isVisible, visualProxy } from './visibility.js';

// ------------------------------------------------------------------ geometry

/** Offset from a document's client coordinates to the top viewport's, and the part of it that shows. */
export function toTop(doc: Document): { dx: number; dy: number; clip: Box } {
  let dx = 0;
  let dy = 0;
  let d = doc;
  const w = d.defaultView!;
  let clip: Box = { l: 0, t: 0, r: w.innerWidth, b: w.innerHeight };
  while (d !== document) {
    const fe = frameElementOf(d);
    if (!fe) break;
    const r = fe.getBoundingClientRect();
    const s = fe.ownerDocument.defaultView!.getComputedStyle(fe);
    const ox = r.left + fe.clientLeft + (parseFloat(s.paddingLeft) || 0);
    const oy = r.top + fe.clientTop + (parseFloat(s.paddingTop) || 0);
    dx += ox;
    dy += oy;
    clip = { l: clip.l + ox, t: clip.t + oy, r: clip.r + ox, b: clip.b + oy };
    d = fe.ownerDocument;
    const pw = d.defaultView!;
    clip = intersect(clip, { l: 0, t: 0, r: pw.innerWidth, b: pw.innerHeight });
  }
  return { dx, dy, clip };
}

function intersect(a: Box, b: Box): Box {
  return { l: Math.max(a.l, b.l), t: Math.max(a.t, b.t), r: Math.min(a.r, b.r), b: Math.min(a.b, b.b) };
}

function empty(b: Box): boolean {
  return b.r - b.l < 1 || b.b - b.t < 1;
}

/** The element's first non-empty box in top-viewport coordinates, and the part of it that shows. */
function topBox(el: Element): { box: Box; visible: Box } | null {
  const rects = Array.from(el.getClientRects());
  const r = rects.find((x) => x.width > 0 && x.height > 0) ?? el.getBoundingClientRect();
  if (r.width <= 0 && r.height <= 0) return null;
  const { dx, dy, clip } = toTop(el.ownerDocument);
  const box = { l: r.left + dx, t: r.top + dy, r: r.right + dx, b: r.bottom + dy };
  return { box, visible: intersect(box, clip) };
}

function fullyIn(b: { box: Box; visible: Box }): boolean {
  return b.visible.l <= b.box.l && b.visible.t <= b.box.t && b.visible.r >= b.box.r && b.visible.b >= b.box.b;
}

export function scrollIntoViewIfNeeded(el: Element) {
  const b = topBox(el);
  if (b && fullyIn(b)) return;
  // 'instant': a page's `scroll-behavior: smooth` would leave the element mid-flight when we measure it.
  el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' as ScrollBehavior });
}

/** The element under a top-viewport point, through open shadow roots and same-origin frames. */
export function hitTest(x: number, y: number): Element | null {
  let doc: Document = document;
  let hit: Element | null = null;
  for (let guard = 0; guard < 32; guard++) {
    hit = doc.elementFromPoint(x, y);
    if (!hit) return null;
    while (hit.shadowRoot) {
      const inner: Element | null = hit.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    if (!isFrame(hit)) return hit;
    const d = frameDocument(hit);
    if (!d) return hit;
    const r = hit.getBoundingClientRect();
    const s = doc.defaultView!.getComputedStyle(hit);
    x -= r.left + hit.clientLeft + (parseFloat(s.paddingLeft) || 0);
    y -= r.top + hit.clientTop + (parseFloat(s.paddingTop) || 0);
    doc = d;
  }
  return hit;
}

/** `div#overlay.modal "Accept cookies"`: the outermost ancestor of the hit that does not contain the target. */
export function describeCover(hit: Element, target: Element, c: Ctx): string {
  let e = hit;
  for (let p = flatParentAcrossFrames(e); p && p.localName !== 'body' && p.localName !== 'html' && !flatContains(p, target); p = flatParentAcrossFrames(p)) e = p;
  return describe(e, c);
}

export function describe(e: Element, c: Ctx): string {
  let s = e.localName;
  const id = e.getAttribute('id');
  if (id) s += `#${id}`;
  for (const cl of Array.from(e.classList).slice(0, 2)) s += `.${cl}`;
  const text = cut(collapse(contentText(e, c, 120)), 40);
  return text ? `${s} ${JSON.stringify(text)}` : s;
}

function hitsTarget(hit: Element, target: Element, el: Element): boolean {
  if (flatContains(target, hit) || flatContains(el, hit)) return true;
  const label = hit.closest('label') as HTMLLabelElement | null;
  if (label && label.control === el) return true;
  const own = el.closest('label');
  return !!own && flatContains(own, hit);
}

// ------------------------------------------------------------------ API

export function pointFor(ref: string): PointResult {
  const el = elementOf(ref);
  const c = new Ctx(false);
  let target = el;
  if (el.localName === 'option' || el.localName === 'optgroup') {
    failure('refused', 'an <option> has no box of its own: use browser_fill or browser_select_options on its <select>', { reason: 'not_visible' });
  }
  if (!isVisible(el, c)) {
    const proxy = visualProxy(el, c);
    if (!proxy) failure('refused', `ref ${ref} is not visible on the page`, { reason: 'not_visible' });
    target = proxy;
  }
  if (isDisabled(el)) failure('refused', `ref ${ref} is disabled`, { reason: 'disabled' });
  let b = topBox(target);
  if (!b || !fullyIn(b)) {
    target.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' as ScrollBehavior });
    b = topBox(target);
  }
  if (!b || empty(b.visible)) failure('refused', `ref ${ref} cannot be brought into the viewport`, { reason: 'outside_viewport' });
  const x = (b.visible.l + b.visible.r) / 2;
  const y = (b.visible.t + b.visible.b) / 2;
  const hit = hitTest(x, y);
  if (!hit) failure('refused', `nothing is at ref ${ref}'s position`, { reason: 'outside_viewport', x, y });
  if (hitsTarget(hit, target, el)) return { x, y };
  // The description is page text (tag, id, classes, content): it travels in details, never in the message.
  const coveredBy = describeCover(hit, target, c);
  return failure('refused', `ref ${ref} is covered by another element, so a real click would not reach it`, { reason: 'covered', x, y, coveredBy });
}

function eventInit(el: Element): MouseEventInit {
  const r = el.getBoundingClientRect();
  const clientX = r.left + r.width / 2;
  const clientY = r.top + r.height / 2;
  return { bubbles: true, cancelable: true, composed: true, clientX, clientY, button: 0, view: el.ownerDocument.defaultView };
}

export function clickDom(ref: string): void {
  const el = elementOf(ref);
  let nativeDisabled = false;
  try {
    nativeDisabled = el.matches(':disabled');
  } catch {
    /* not a form element */
  }
  if (nativeDisabled) failure('refused', `ref ${ref} is disabled`, { reason: 'disabled' });
  const c = new Ctx(false);
  if (isVisible(el, c)) scrollIntoViewIfNeeded(el);
  const win = el.ownerDocument.defaultView as (Window & typeof globalThis) | null;
  const P = (win?.PointerEvent ?? PointerEvent) as typeof PointerEvent;
  const M = (win?.MouseEvent ?? MouseEvent) as typeof MouseEvent;
  const init = eventInit(el);
  const pinit = { ...init, pointerId: 1, pointerType: 'mouse', isPrimary: true } as PointerEventInit;
  el.dispatchEvent(new P('pointerover', pinit));
  el.dispatchEvent(new M('mouseover', init));
  el.dispatchEvent(new P('pointerdown', { ...pinit, buttons: 1 }));
  el.dispatchEvent(new M('mousedown', { ...init, buttons: 1 }));
  if (typeof (el as HTMLElement).focus === 'function') (el as HTMLElement).focus({ preventScroll: true });
  el.dispatchEvent(new P('pointerup', pinit));
  el.dispatchEvent(new M('mouseup', init));
  if (typeof (el as HTMLElement).click === 'function') (el as HTMLElement).click();
  else el.dispatchEvent(new M('click', { ...init, detail: 1 }));
}

export function focus(ref: string): void {
  const el = elementOf(ref) as HTMLElement;
  if (typeof el.focus !== 'function') failure('action_failed', `ref ${ref} cannot take focus`);
  el.focus();
  const active = deepActiveElement();
  if (active === el || (active && flatContains(el, active))) return;
  failure('action_failed', `ref ${ref} (${tagWord(el)}) is not focusable`);
}

// ------------------------------------------------------------------ email fields

/**
 * Chromium checks an email field's value with a search whose time grows about with the square of the value's
 * length: a 100,000-character value takes some 20 s, and showing its validation bubble (which quotes the value)
 * hangs the renderer for minutes. No address is that long (64 characters before the @, 255 after), so a value
 * with a longer address in it is refused before it reaches the field, and the tab stays usable.
 */
function refuseLongEmail(field: Element | null, value: string, what: string): void {
  if (!field || field.localName !== 'input' || (field as HTMLInputElement).type !== 'email') return;
  const input = field as HTMLInputElement;
  const longest = Math.max(...(input.multiple ? value.split(',') : [value]).map((a) => a.trim().length));
  if (longest <= EMAIL_MAX_CHARS) return;
  failure('validation_error', `${what} is an email field: an address is at most ${EMAIL_MAX_CHARS} characters, and this value would hold one of ${longest}`, { reason: 'bad_value' });
}

/** Before the daemon types `text` into the focused element: refuses an over-long address (refuseLongEmail). */
export function checkTyping(text: string): void {
  const field = deepActiveElement();
  refuseLongEmail(field, ((field as HTMLInputElement | null)?.value ?? '') + text, 'the focused element');
}

// ------------------------------------------------------------------ fill

const TRUE = new Set(['true', 'on', 'yes', '1', 'checked']);
const FALSE = new Set(['false', 'off', 'no', '0', 'unchecked']);
const TEXT_LIKE = new Set(['', 'text', 'email', 'password', 'search', 'tel', 'url', 'number', 'date', 'datetime-local', 'month', 'week', 'time', 'color', 'range']);

/** The value setter of the element's own prototype chain (frameworks track the instance property). */
function setNativeValue(el: HTMLInputElement | HTMLTextAreaElement, value: string) {
  let proto: object | null = Object.getPrototypeOf(el);
  while (proto) {
    const d = Object.getOwnPropertyDescriptor(proto, 'value');
    if (d?.set) {
      d.set.call(el, value);
      return;
    }
    proto = Object.getPrototypeOf(proto);
  }
  el.value = value;
}

export function fire(el: Element, type: 'input' | 'change', data?: string) {
  const win = el.ownerDocument.defaultView as (Window & typeof globalThis) | null;
  const ev = type === 'input'
    ? new (win?.InputEvent ?? InputEvent)('input', { bubbles: true, composed: true, inputType: 'insertText', data: data ?? null })
    : new (win?.Event ?? Event)('change', { bubbles: true });
  el.dispatchEvent(ev);
}

function expectedFormat(type: string): string {
  switch (type) {
    case 'date': return 'YYYY-MM-DD';
    case 'datetime-local': return 'YYYY-MM-DDThh:mm';
    case 'month': return 'YYYY-MM';
    case 'week': return 'YYYY-Www';
    case 'time': return 'hh:mm';
    case 'number': case 'range': return 'a number';
    case 'color': return '#rrggbb';
    case 'email': return 'an e-mail address';
    default: return 'a valid value';
  }
}

function fillCheck(el: HTMLInputElement | HTMLElement, value: string, kind: 'checkbox' | 'radio', ref: string): FillResult {
  const v = value.trim().toLowerCase();
  if (!TRUE.has(v) && !FALSE.has(v)) failure('validation_error', `a ${kind} takes "true" or "false", not ${JSON.stringify(value)}`, { reason: 'bad_value' });
  const want = TRUE.has(v);
  const native = el.localName === 'input';
  const isOn = () => (native ? (el as HTMLInputElement).checked : el.getAttribute('aria-checked') === 'true');
  if (isOn() === want) return { kind };
  el.click();
  if (isOn() !== want && native) {
    // A radio cannot be unchecked by a click; a handler may have cancelled the click.
    (el as HTMLInputElement).checked = want;
    fire(el, 'input');
    fire(el, 'change');
  }
  if (isOn() !== want) failure('action_failed', `ref ${ref} did not change (the page may prevent it)`);
  return { kind };
}

function fillSelect(sel: HTMLSelectElement, value: string, ref: string): FillResult {
  const opts = Array.from(sel.options);
  const want = collapse(value).toLowerCase();
  const opt =
    opts.find((o) => collapse(o.label || o.text).toLowerCase() === want) ??
    opts.find((o) => o.value === value) ??
    opts.find((o) => o.value.toLowerCase() === want);
  if (!opt) {
    noOption(ref, opts);
  }
  if (opt.disabled) failure('refused', `the option of ref ${ref} that matches is disabled`, { reason: 'disabled' });
  sel.focus();
  if (sel.multiple) for (const o of opts) o.selected = o === opt;
  else sel.value = opt.value;
  opt.selected = true;
  fire(sel, 'input');
  fire(sel, 'change');
  return { kind: 'select' };
}

/** Option texts are page text: they travel in details (the daemon fences them), the message names only counts. */
function noOption(ref: string, opts: HTMLOptionElement[]): never {
  const options = opts.slice(0, 20).map((o) => collapse(o.label || o.text));
  return failure('validation_error', `no option of ref ${ref} matches the value (${opts.length} option(s))`, { reason: 'no_option', options, optionCount: opts.length });
}

function fillEditable(el: HTMLElement, value: string): FillResult {
  el.focus();
  const doc = el.ownerDocument;
  const sel = doc.getSelection();
  sel?.selectAllChildren(el);
  let done = false;
  try {
    done = value ? doc.execCommand('insertText', false, value) : doc.execCommand('delete', false);
  } catch {
    done = false;
  }
  if (!done || collapse(el.innerText) !== collapse(value)) {
    el.textContent = value;
    fire(el, 'input', value);
  }
  return { kind: 'contenteditable' };
}

export function fill(ref: string, value: string): FillResult {
  let el = elementOf(ref) as HTMLElement;
  value = String(value ?? '');
  const tag = el.localName;
  if (isDisabled(el)) failure('refused', `ref ${ref} is disabled`, { reason: 'disabled' });
  if (tag === 'select') return fillSelect(el as HTMLSelectElement, value, ref);
  if (tag === 'input') {
    const inp = el as HTMLInputElement;
    const type = inp.type;
    if (type === 'checkbox' || type === 'radio') return fillCheck(inp, value, type, ref);
    if (type === 'file') failure('validation_error', `ref ${ref} is a file input: use browser_upload`, { reason: 'not_fillable' });
    if (!TEXT_LIKE.has(type)) failure('validation_error', `ref ${ref} is an <input type=${type}>: click it instead`, { reason: 'not_fillable' });
  }
  const role = el.getAttribute('role');
  if (tag !== 'input' && tag !== 'textarea' && !el.isContentEditable) {
    if (role === 'checkbox' || role === 'switch' || role === 'radio' || role === 'menuitemcheckbox') return fillCheck(el, value, role === 'radio' ? 'radio' : 'checkbox', ref);
    // ARIA comboboxes and custom fields wrap the real input.
    const inner = el.querySelector('input:not([type=hidden]),textarea,[contenteditable=""],[contenteditable=true]') as HTMLElement | null;
    if (!inner) failure('validation_error', `ref ${ref} (${tagWord(el)}) cannot be filled; use browser_click or browser_type`, { reason: 'not_fillable' });
    el = inner;
  }
  if (el.isContentEditable && el.localName !== 'input' && el.localName !== 'textarea') return fillEditable(el, value);
  const field = el as HTMLInputElement | HTMLTextAreaElement;
  if (field.readOnly) failure('refused', `ref ${ref} is read-only`, { reason: 'readonly' });
  refuseLongEmail(field, value, `ref ${ref}`);
  field.focus();
  setNativeValue(field, value);
  fire(field, 'input', value);
  fire(field, 'change');
  const type = field.localName === 'input' ? (field as HTMLInputElement).type : 'textarea';
  const got = field.value;
  // Chromium trims email and url values, and the spaces around each comma of a multiple email field.
  const emails = (v: string) => v.split(',').map((a) => a.trim()).join(',');
  const same = type === 'email' && (field as HTMLInputElement).multiple ? emails(got) === emails(value)
    : type === 'email' || type === 'url' ? got.trim() === value.trim() : type === 'color' ? got.toLowerCase() === value.toLowerCase() : got === value;
  if (!same && type !== 'number' && type !== 'range') {
    if (type === 'textarea' || type === 'text' || type === 'search' || type === 'password' || type === 'tel') {
      // A page handler rewrote the value (masking, formatting): that is the page's business.
      return { kind: 'text', note: type === 'password' ? 'the page changed the value' : `the page changed the value to ${JSON.stringify(cut(got, 100))}` };
    }
    failure('validation_error', `the <input type=${type}> did not accept the value: it expects ${expectedFormat(type)}`, { reason: 'bad_value' });
  }
  if ((type === 'number' || type === 'range') && got === '' && value !== '') {
    failure('validation_error', `the <input type=${type}> did not accept the value: it expects ${expectedFormat(type)}`, { reason: 'bad_value' });
  }
  return { kind: 'text' };
}

// ------------------------------------------------------------------ select, geometry, scrolling

/** Selects options by visible text (case-insensitive) or value; the others are unselected. */
export function selectOptions(ref: string, values: string[]): FillResult & { selected: string[] } {
  const sel = elementOf(ref) as HTMLSelectElement;
  if (sel.localName !== 'select') failure('validation_error', `ref ${ref} is ${tagWord(sel).startsWith('<') ? `a ${tagWord(sel)}` : tagWord(sel)}, not a <select>: use browser_fill or browser_click`, { reason: 'not_fillable' });
  if (isDisabled(sel)) failure('refused', `ref ${ref} is disabled`, { reason: 'disabled' });
  values = (Array.isArray(values) ? values : [values]).map(String);
  if (!values.length) failure('validation_error', 'give at least one option', { reason: 'bad_value' });
  if (!sel.multiple && values.length > 1) failure('validation_error', `ref ${ref} takes one option (it is not a multiple select)`, { reason: 'bad_value' });
  const opts = Array.from(sel.options);
  const chosen = new Set<HTMLOptionElement>();
  for (const v of values) {
    const want = collapse(v).toLowerCase();
    const o = opts.find((x) => collapse(x.label || x.text).toLowerCase() === want) ?? opts.find((x) => x.value === v) ?? opts.find((x) => x.value.toLowerCase() === want);
    if (!o) noOption(ref, opts);
    if (o.disabled) failure('refused', `the option of ref ${ref} matching value ${values.indexOf(v) + 1} is disabled`, { reason: 'disabled' });
    chosen.add(o);
  }
  sel.focus();
  if (sel.multiple) for (const o of opts) o.selected = chosen.has(o);
  else sel.value = Array.from(chosen)[0].value;
  fire(sel, 'input');
  fire(sel, 'change');
  return { kind: 'select', selected: Array.from(sel.selectedOptions).map((o) => collapse(o.label || o.text)) };
}

/** The element's border box in top-document page coordinates (scroll offset included), after scrolling it into view. */
export function rectFor(ref: string): { x: number; y: number; width: number; height: number } {
  const el = elementOf(ref);
  if (isVisible(el, new Ctx(false))) scrollIntoViewIfNeeded(el);
  const b = el.getBoundingClientRect();
  const { dx, dy } = toTop(el.ownerDocument);
  return { x: b.left + dx + window.scrollX, y: b.top + dy + window.scrollY, width: b.width, height: b.height };
}

/** The element behind a ref itself (for callers that ask for an object id, returnByValue false). */
export function elementFor(ref: string): Element {
  return elementOf(ref);
}

function scrollable(el: Element, c: Ctx): boolean {
  const s = c.style(el);
  const canY = (s.overflowY === 'auto' || s.overflowY === 'scroll') && el.scrollHeight > el.clientHeight + 1;
  const canX = (s.overflowX === 'auto' || s.overflowX === 'scroll') && el.scrollWidth > el.clientWidth + 1;
  return canY || canX;
}

/**
 * Scroll position and limits of the page, or of the scroll container a wheel over the element moves (the
 * element itself or its nearest scrollable ancestor; the page when there is none).
 */
export function scrollState(ref?: string): { x: number; y: number; maxX: number; maxY: number } {
  let doc: Document = document;
  if (ref) {
    const el = elementOf(ref);
    const c = new Ctx(false);
    for (let e: Element | null = el; e; e = e.parentElement) {
      if (e === e.ownerDocument.documentElement || e === e.ownerDocument.body) break;
      if (scrollable(e, c)) return { x: e.scrollLeft, y: e.scrollTop, maxX: Math.max(0, e.scrollWidth - e.clientWidth), maxY: Math.max(0, e.scrollHeight - e.clientHeight) };
    }
    doc = el.ownerDocument;
  }
  const w = doc.defaultView!;
  const se = doc.scrollingElement ?? doc.documentElement;
  return { x: w.scrollX, y: w.scrollY, maxX: Math.max(0, se.scrollWidth - w.innerWidth), maxY: Math.max(0, se.scrollHeight - w.innerHeight) };
}
