/**
 * ARIA roles (explicit, else the implicit role of the HTML element), what counts as interactive, accessible
 * names (a practical subset of accname-1.2: aria-labelledby, aria-label, native labels/alt/legend/caption,
 * content for name-from-content roles, title, placeholder) and the states the snapshot prints.
 */
import type { Ctx } from './ctx.js';
import { collapse, cut, flatChildren, flatParent, isElement, isText, NEVER_TEXT } from './dom.js';
import { state, textHidden } from './visibility.js';

export const NAME_MAX = 100;

const KNOWN_ROLES = new Set(
  (
    'alert alertdialog application article banner blockquote button caption cell checkbox code columnheader combobox ' +
    'complementary contentinfo definition deletion dialog directory document emphasis feed figure form generic grid ' +
    'gridcell group heading img insertion link list listbox listitem log main marquee math menu menubar menuitem ' +
    'menuitemcheckbox menuitemradio meter navigation none note option paragraph presentation progressbar radio ' +
    'radiogroup region row rowgroup rowheader scrollbar search searchbox separator slider spinbutton status ' +
    'strong subscript superscript switch tab table tablist tabpanel term textbox timer toolbar tooltip tree treegrid treeitem'
  ).split(' '),
);

/** Roles a person operates; they always get a ref. */
export const INTERACTIVE_ROLES = new Set([
  'button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option',
  'combobox', 'textbox', 'searchbox', 'slider', 'spinbutton', 'treeitem', 'listbox', 'scrollbar',
]);

/** Roles whose name comes from their content (ARIA 1.2), plus our pseudo-role for bare click targets. */
export const NAME_FROM_CONTENT = new Set([
  'button', 'cell', 'checkbox', 'columnheader', 'gridcell', 'heading', 'link', 'menuitem', 'menuitemcheckbox',
  'menuitemradio', 'option', 'radio', 'row', 'rowheader', 'switch', 'tab', 'tooltip', 'treeitem', 'clickable',
]);

const SECTIONING = 'article,aside,main,nav,section';

function inputRole(el: HTMLInputElement): string {
  const type = (el.getAttribute('type') || 'text').toLowerCase();
  const list = el.hasAttribute('list');
  switch (type) {
    case 'button': case 'submit': case 'reset': case 'image': case 'file': case 'color':
      return 'button';
    case 'checkbox': return 'checkbox';
    case 'radio': return 'radio';
    case 'range': return 'slider';
    case 'number': return 'spinbutton';
    case 'search': return list ? 'combobox' : 'searchbox';
    case 'hidden': return 'none';
    default: return list ? 'combobox' : 'textbox';
  }
}

export function implicitRole(el: Element): string {
  const tag = el.localName;
  switch (tag) {
    case 'a': case 'area': return el.hasAttribute('href') ? 'link' : 'generic';
    case 'article': return 'article';
    case 'aside': return 'complementary';
    case 'button': return 'button';
    case 'datalist': return 'listbox';
    case 'details': return 'group';
    case 'dialog': return 'dialog';
    case 'fieldset': return 'group';
    case 'figure': return 'figure';
    case 'footer': return el.closest(SECTIONING) ? 'generic' : 'contentinfo';
    case 'header': return el.closest(SECTIONING) ? 'generic' : 'banner';
    case 'form': return 'form';
    case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
    case 'hr': return 'separator';
    case 'img': return el.getAttribute('alt') === '' ? 'presentation' : 'img';
    case 'input': return inputRole(el as HTMLInputElement);
    case 'li': return 'listitem';
    case 'main': return 'main';
    case 'menu': case 'ol': case 'ul': return 'list';
    case 'nav': return 'navigation';
    case 'option': return 'option';
    case 'optgroup': return 'group';
    case 'output': return 'status';
    case 'p': return 'paragraph';
    case 'progress': return 'progressbar';
    case 'meter': return 'meter';
    case 'search': return 'search';
    case 'section': return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'region' : 'generic';
    case 'select': return (el as HTMLSelectElement).multiple || (el as HTMLSelectElement).size > 1 ? 'listbox' : 'combobox';
    case 'summary': return 'button';
    case 'table': return 'table';
    case 'thead': case 'tbody': case 'tfoot': return 'rowgroup';
    case 'tr': return 'row';
    case 'td': return el.closest('table')?.getAttribute('role') === 'grid' ? 'gridcell' : 'cell';
    case 'th': {
      const scope = el.getAttribute('scope');
      if (scope === 'row' || scope === 'rowgroup') return 'rowheader';
      if (scope === 'col' || scope === 'colgroup' || el.closest('thead')) return 'columnheader';
      const row = el.parentElement;
      const allTh = !!row && Array.from(row.children).every((c) => c.localName === 'th');
      return allTh ? 'columnheader' : 'rowheader';
    }
    case 'textarea': return 'textbox';
    case 'dt': return 'term';
    case 'dd': return 'definition';
    case 'blockquote': return 'blockquote';
    case 'caption': return 'caption';
    case 'svg': return el.querySelector(':scope > title') || el.hasAttribute('aria-label') ? 'img' : 'none';
    case 'iframe': case 'frame': return 'iframe';
  }
  if ((el as HTMLElement).isContentEditable && !(el.parentElement as HTMLElement | null)?.isContentEditable) return 'textbox';
  return 'generic';
}

export function isFocusable(el: Element): boolean {
  const t = el.getAttribute('tabindex');
  return t !== null && parseInt(t, 10) >= 0;
}

export function roleOf(el: Element): string {
  const explicit = el.getAttribute('role');
  if (explicit) {
    for (const r of explicit.trim().toLowerCase().split(/\s+/)) {
      if (!KNOWN_ROLES.has(r)) continue;
      // Presentational roles are ignored on focusable elements (ARIA conflict resolution).
      if ((r === 'none' || r === 'presentation') && (isFocusable(el) || isNativeControl(el))) break;
      return r === 'presentation' ? 'none' : r;
    }
  }
  return implicitRole(el);
}

function isNativeControl(el: Element): boolean {
  const t = el.localName;
  return t === 'button' || t === 'input' || t === 'select' || t === 'textarea' || (t === 'a' && el.hasAttribute('href'));
}

const CLICK_ATTRS = ['onclick', 'ondblclick', 'onmousedown', 'onpointerdown', 'onmouseup', 'onpointerup', 'oncontextmenu'];
/** Hover and drag handlers: their element is often the wrapper of the menu it opens, so it may hold controls. */
const HOVER_ATTRS = ['onmouseover', 'onmouseenter', 'onpointerover', 'onpointerenter', 'ondragstart'];
const INTERACTIVE_INSIDE = 'a[href],button,input:not([type=hidden]),select,textarea,summary,[role=button],[role=link],[role=checkbox],[role=tab],[role=menuitem],[onclick],[tabindex]:not([tabindex="-1"]),[contenteditable=""],[contenteditable=true]';
/** Bare targets with more text than this are regions (a card list with a delegated listener), not one control. */
const TARGET_TEXT_MAX = 300;

/** Whether the element gets a ref in the snapshot. */
export function isInteractive(el: Element, role: string, c: Ctx): boolean {
  const tag = el.localName;
  if ((tag === 'a' || tag === 'area') && el.hasAttribute('href')) return true;
  if (tag === 'button' || tag === 'select' || tag === 'textarea') return true;
  if (tag === 'input') return (el as HTMLInputElement).type !== 'hidden';
  if (tag === 'summary') return !!el.parentElement && el.parentElement.localName === 'details';
  if ((el as HTMLElement).isContentEditable && !(flatParent(el) as HTMLElement | null)?.isContentEditable) return true;
  if (INTERACTIVE_ROLES.has(role)) return true;
  if (tag === 'body' || tag === 'html') return false;
  // Bare targets a person hovers or drags: a hover/drag handler or a draggable box.
  const listener = c.pointerListener(el);
  const hoverTarget = listener === 'hover' || el.getAttribute('draggable') === 'true' || HOVER_ATTRS.some((a) => el.hasAttribute(a));
  // Bare click targets: an onclick attribute, a tabindex, a pointer cursor that is not inherited, or a
  // click/hover/drag listener added by page script (listeners.ts).
  const clickAttr = CLICK_ATTRS.some((a) => el.hasAttribute(a));
  if (!hoverTarget && !clickAttr && !isFocusable(el)) {
    const s = c.style(el);
    const pointer = s.cursor === 'pointer' && !(flatParent(el) && c.style(flatParent(el)!).cursor === 'pointer');
    if (!pointer && !listener) return false;
  }
  if ((el.textContent?.length ?? 0) > TARGET_TEXT_MAX) return false;
  // A container around real controls is structure, not a button; a hover target may wrap the menu it opens.
  if (!hoverTarget && el.querySelector(INTERACTIVE_INSIDE)) return false;
  return true;
}

export function isDisabled(el: Element): boolean {
  try {
    if (el.matches(':disabled')) return true;
  } catch {
    /* not a form element */
  }
  return !!el.closest('[aria-disabled="true"]');
}

// ------------------------------------------------------------------ names

/** Visible text of a subtree for names: inline, with image alt text, without form controls' contents. */
export function contentText(el: Element, c: Ctx, max = NAME_MAX * 3, skipControls = false): string {
  const out: string[] = [];
  let len = 0;
  const walk = (n: Node) => {
    for (const ch of Array.from(flatChildren(n))) {
      if (len > max) return;
      if (isText(ch)) {
        if (c.includeHidden || !textHidden(n as Element, c)) {
          out.push(ch.data);
          len += ch.data.length;
        }
        continue;
      }
      if (!isElement(ch)) continue;
      const tag = ch.localName;
      if (NEVER_TEXT.has(tag) || tag === 'template') continue;
      if (!c.includeHidden && state(ch, c).hidden) continue;
      // A bare target's own words, not those of the controls it wraps (a hover menu's links have lines of their own).
      if (skipControls && ch.matches(INTERACTIVE_INSIDE)) continue;
      if (tag === 'img' || tag === 'area') {
        out.push(' ', ch.getAttribute('alt') ?? '', ' ');
        continue;
      }
      if (tag === 'input') {
        const inp = ch as HTMLInputElement;
        if (inp.type === 'button' || inp.type === 'submit' || inp.type === 'reset') out.push(' ', inp.value, ' ');
        continue;
      }
      if (tag === 'svg') {
        // Icon buttons: the icon's own label is the name.
        const label = ch.getAttribute('aria-label') || ch.querySelector(':scope > title')?.textContent;
        if (label && ch.getAttribute('aria-hidden') !== 'true') out.push(' ', label, ' ');
        continue;
      }
      if (tag === 'select' || tag === 'textarea' || tag === 'iframe') continue;
      const al = ch.getAttribute('aria-label');
      if (al && al.trim() && (ch.getAttribute('role') || tag === 'button' || tag === 'a')) {
        out.push(' ', al, ' ');
        continue;
      }
      const block = c.style(ch).display !== 'inline';
      if (block) out.push(' ');
      walk(ch);
      if (block) out.push(' ');
    }
  };
  walk(el);
  return collapse(out.join(''));
}

function byIds(el: Element, ids: string): Element[] {
  const root = el.getRootNode() as Document | ShadowRoot;
  const out: Element[] = [];
  for (const id of ids.trim().split(/\s+/)) {
    const e = (root as Document).getElementById?.(id) ?? el.ownerDocument.getElementById(id);
    if (e) out.push(e);
  }
  return out;
}

function labelsText(el: Element, c: Ctx): string {
  const labels = (el as HTMLInputElement).labels;
  if (!labels || !labels.length) return '';
  return collapse(Array.from(labels).map((l) => contentText(l, c)).join(' '));
}

/** The accessible name, cut to NAME_MAX characters. */
export function accessibleName(el: Element, role: string, c: Ctx): string {
  return cut(rawName(el, role, c), NAME_MAX);
}

function rawName(el: Element, role: string, c: Ctx): string {
  const lb = el.getAttribute('aria-labelledby');
  if (lb) {
    const t = collapse(byIds(el, lb).map((e) => (e === el ? contentText(e, c) : e.textContent ?? '')).join(' '));
    if (t) return t;
  }
  const al = el.getAttribute('aria-label');
  if (al && al.trim()) return collapse(al);
  const tag = el.localName;
  if (tag === 'input') {
    const inp = el as HTMLInputElement;
    const type = inp.type;
    if (type === 'button' || type === 'submit' || type === 'reset') return inp.value || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : '');
    if (type === 'image') return inp.alt || inp.value || 'Submit';
  }
  if (tag === 'input' || tag === 'select' || tag === 'textarea' || tag === 'meter' || tag === 'progress' || tag === 'output' || tag === 'button') {
    const t = labelsText(el, c);
    if (t) return t;
  }
  if (tag === 'fieldset') {
    const lg = el.querySelector(':scope > legend');
    if (lg) return contentText(lg, c);
  }
  if (tag === 'table') {
    const cap = (el as HTMLTableElement).caption;
    if (cap) return contentText(cap, c);
  }
  if (tag === 'figure') {
    const fc = el.querySelector(':scope > figcaption');
    if (fc) return contentText(fc, c);
  }
  if (tag === 'img' || tag === 'area') {
    const alt = el.getAttribute('alt');
    if (alt && alt.trim()) return collapse(alt);
  }
  if (tag === 'svg') {
    const t = el.querySelector(':scope > title');
    if (t?.textContent?.trim()) return collapse(t.textContent);
  }
  if (NAME_FROM_CONTENT.has(role) || tag === 'summary') {
    const t = contentText(el, c, NAME_MAX * 3, role === 'clickable');
    if (t) return t;
  }
  const title = el.getAttribute('title');
  if (title && title.trim()) return collapse(title);
  const ph = el.getAttribute('placeholder') || el.getAttribute('aria-placeholder');
  if (ph && ph.trim()) return collapse(ph);
  return '';
}

// ------------------------------------------------------------------ states

/** `[checked]`, `[disabled]`, `[level=2]`, ... as printed in the snapshot (without brackets). */
export function statesOf(el: Element, role: string): string[] {
  const out: string[] = [];
  const tag = el.localName;
  if (role === 'heading') {
    const m = /^h([1-6])$/.exec(tag);
    const level = el.getAttribute('aria-level') || (m ? m[1] : '2');
    out.push(`level=${level}`);
  }
  if (tag === 'input' && ((el as HTMLInputElement).type === 'checkbox' || (el as HTMLInputElement).type === 'radio')) {
    const inp = el as HTMLInputElement;
    if (inp.indeterminate) out.push('checked=mixed');
    else if (inp.checked) out.push('checked');
  } else {
    const ac = el.getAttribute('aria-checked');
    if (ac === 'true') out.push('checked');
    else if (ac === 'mixed') out.push('checked=mixed');
  }
  if (isDisabled(el)) out.push('disabled');
  if (el.getAttribute('draggable') === 'true') out.push('draggable');
  if (tag === 'summary' && el.parentElement?.localName === 'details') {
    out.push((el.parentElement as HTMLDetailsElement).open ? 'expanded' : 'expanded=false');
  } else {
    const ae = el.getAttribute('aria-expanded');
    if (ae === 'true') out.push('expanded');
    else if (ae === 'false') out.push('expanded=false');
  }
  if (el.getAttribute('aria-selected') === 'true') out.push('selected');
  const ap = el.getAttribute('aria-pressed');
  if (ap === 'true') out.push('pressed');
  else if (ap === 'mixed') out.push('pressed=mixed');
  const cur = el.getAttribute('aria-current');
  if (cur && cur !== 'false') out.push('current');
  if (el.getAttribute('aria-invalid') === 'true') out.push('invalid');
  if ((el as HTMLInputElement).required || el.getAttribute('aria-required') === 'true') out.push('required');
  if ((tag === 'input' || tag === 'textarea') && (el as HTMLInputElement).readOnly) out.push('readonly');
  if (role === 'dialog' || role === 'alertdialog') {
    let modal = el.getAttribute('aria-modal') === 'true';
    try {
      modal = modal || el.matches(':modal');
    } catch {
      /* older engines */
    }
    if (modal) out.push('modal');
  }
  if (tag === 'input') {
    const type = (el as HTMLInputElement).type;
    if (SHOWN_TYPES.has(type)) out.push(`type=${type}`);
  }
  return out;
}

/** Input types worth naming in the snapshot: they change what a value must look like or how it is set. */
const SHOWN_TYPES = new Set(['password', 'email', 'tel', 'url', 'date', 'datetime-local', 'month', 'week', 'time', 'color', 'file']);
