/**
 * elementInfo: what the sensitive-action classifier needs to judge an action on a ref: the element (tag, role,
 * name, text, type, href, disabled, editable), its form (action, method, and every field's name, type,
 * autocomplete and label) and the page's h1-h3 headings. An element outside any <form> (single-page apps)
 * gets the fields of the nearest ancestor (up to 6 levels) that holds other fields.
 */
import type { ElementInfo } from './api.js';
import { Ctx } from './ctx.js';
import { absoluteUrl, collapse, cut, deepActiveElement } from './dom.js';
import { elementOf, failure } from './failure.js';
import { accessibleName, contentText, isDisabled, roleOf } from './roles.js';
import { elementText } from './text.js';
import { isVisible } from './visibility.js';

const FIELDS = 'input:not([type=hidden]),select,textarea';
const MAX_FIELDS = 50;

function fieldLabel(f: Element, c: Ctx): string {
  const labels = (f as HTMLInputElement).labels;
  const fromLabels = labels ? collapse(Array.from(labels).map((l) => contentText(l, c)).join(' ')) : '';
  return cut(fromLabels || collapse(f.getAttribute('aria-label') || f.getAttribute('placeholder') || f.getAttribute('title') || ''), 100);
}

function fieldsOf(container: Element | HTMLFormElement, c: Ctx): ElementInfo['formFields'] {
  const els = container.localName === 'form'
    ? Array.from((container as HTMLFormElement).elements).filter((e) => e.matches(FIELDS) || e.localName === 'button')
    : Array.from(container.querySelectorAll(`${FIELDS},button`));
  return els.slice(0, MAX_FIELDS).map((f) => ({
    name: f.getAttribute('name') ?? '',
    type: f.localName === 'input' ? (f as HTMLInputElement).type : f.localName === 'select' ? ((f as HTMLSelectElement).multiple ? 'select-multiple' : 'select-one') : f.localName === 'button' ? `button:${(f as HTMLButtonElement).type}` : f.localName,
    autocomplete: f.getAttribute('autocomplete') ?? '',
    label: f.localName === 'button' ? cut(contentText(f, c), 100) : fieldLabel(f, c),
  }));
}

export function elementInfo(ref: string): ElementInfo {
  return infoOf(elementOf(ref));
}

/** elementInfo of the element that has focus (through shadow roots and frames): where Enter goes. */
export function focusedInfo(): ElementInfo {
  const el = deepActiveElement();
  if (!el || el === document.body || el === document.documentElement) failure('not_found', 'no element has focus');
  return infoOf(el);
}

/** What a click at a point would land on, for elements that do their work on behalf of their content. */
const ACTIONABLE = 'button,a[href],area[href],input,select,textarea,summary,label,[role=button],[role=link],[role=menuitem],[role=tab],[role=checkbox],[role=switch],[onclick]';

/**
 * elementInfo of what a real pointer at viewport point (x, y) would hit: through open shadow roots and
 * same-origin frames, climbing from the hit (a <span> in a button) to the element that acts. A point over a
 * frame from another site cannot be looked into: not_found, so the gate treats it as unknown.
 */
export function elementInfoAt(x: number, y: number): ElementInfo {
  let doc: Document = document;
  let ox = 0;
  let oy = 0;
  for (let depth = 0; depth < 10; depth++) {
    let hit = doc.elementFromPoint(x - ox, y - oy);
    while (hit?.shadowRoot) {
      const inner = hit.shadowRoot.elementFromPoint(x - ox, y - oy);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    if (!hit) break;
    if (hit.localName !== 'iframe' && hit.localName !== 'frame') return infoOf(hit.closest(ACTIONABLE) ?? hit);
    let inner: Document | null = null;
    try {
      inner = (hit as HTMLIFrameElement).contentDocument;
    } catch {
      inner = null;
    }
    if (!inner) failure('not_found', `(${x}, ${y}) is inside a frame from another site`);
    const r = hit.getBoundingClientRect();
    const style = getComputedStyle(hit);
    ox += r.left + hit.clientLeft + parseFloat(style.paddingLeft || '0');
    oy += r.top + hit.clientTop + parseFloat(style.paddingTop || '0');
    doc = inner;
  }
  return failure('not_found', `nothing is at (${x}, ${y})`);
}

function infoOf(el: Element): ElementInfo {
  const c = new Ctx(false);
  const tag = el.localName;
  const role = roleOf(el);
  const form = (el as HTMLInputElement).form ?? (el.closest('form') as HTMLFormElement | null);
  const info: ElementInfo = {
    tag,
    role,
    name: accessibleName(el, role, c),
    text: cut(elementText(el, c), 200),
    disabled: isDisabled(el),
    formFields: [],
    headings: [],
    isEditable: isEditable(el),
  };
  if (tag === 'input' || tag === 'button') info.type = (el as HTMLInputElement).type;
  const a = el.closest('a[href],area[href]');
  if (a) info.href = absoluteUrl(a.getAttribute('href'), a.baseURI) ?? undefined;
  if (form) {
    const fa = el.getAttribute('formaction');
    info.formAction = fa !== null ? absoluteUrl(fa, el.baseURI) ?? undefined : form.action;
    info.formMethod = (el.getAttribute('formmethod') || form.getAttribute('method') || 'get').toLowerCase();
    info.formFields = fieldsOf(form, c);
  } else {
    let box: Element | null = el.parentElement;
    for (let i = 0; box && i < 6; i++, box = box.parentElement) {
      if (Array.from(box.querySelectorAll(FIELDS)).some((f) => f !== el)) {
        info.formFields = fieldsOf(box, c);
        break;
      }
    }
  }
  for (const h of Array.from(el.ownerDocument.querySelectorAll('h1,h2,h3'))) {
    if (info.headings.length >= 20) break;
    if (!isVisible(h, c)) continue;
    const t = cut(elementText(h, c), 100);
    if (t) info.headings.push(t);
  }
  return info;
}

function isEditable(el: Element): boolean {
  if ((el as HTMLElement).isContentEditable) return true;
  if (el.localName === 'textarea') return !(el as HTMLTextAreaElement).disabled && !(el as HTMLTextAreaElement).readOnly;
  if (el.localName === 'input') {
    const i = el as HTMLInputElement;
    return !i.disabled && !i.readOnly && !['checkbox', 'radio', 'button', 'submit', 'reset', 'image', 'file', 'hidden', 'range', 'color'].includes(i.type);
  }
  return false;
}
