/**
 * The compact snapshot: one line per meaningful node, 2-space indentation for structure.
 *
 *   - heading "Products" [level=2]
 *   - link "Next page" [ref=e12]
 *   - textbox "Email" [ref=e4] value="a@b.c"
 *   - checkbox "Remember me" [ref=e5] [checked]
 *   - combobox "Size" [ref=e9] value="M" options="S|M|L"
 *   - table "Prices":
 *     - Name|Price|Qty
 *     - Pears|1.20|3|Edit [ref=e20]
 *   - text: Free shipping on orders over $50
 *   - iframe "https://other.example/x" (cross-origin)
 *
 * Rules that keep it small (token size matters): refs only on interactive elements; wrappers without a role
 * print nothing (their children move up); the name of a name-from-content element (link, button, heading,
 * ...) replaces its content; a list item with one child prints just that child, an unnamed landmark around one
 * landmark or list prints nothing of its own; a group's legend is not repeated as text; text that is only
 * separators ("·", ".") is left out; table rows print on one line, cells joined by "|", a link in a cell as its
 * text and ref (`C-00042 [ref=e9]`; a row with its own ref or state prints `row [ref=e5]: ...`); a block
 * (paragraph) prints at most TEXT_MAX characters of text in all, however many links split it, then "…" (its
 * links still print); a <label> of a shown control prints nothing (its text is the control's name). aria-hidden="true" subtrees are left out (they are not in the
 * accessibility tree), unless includeHidden. With markNewSince, a line whose element had no line in the
 * previous snapshot starts with `*` (after its indentation): `  *- menuitem "Sign out" [ref=e31]`.
 */
import type { SnapshotOptions, SnapshotResult } from './api.js';
import { Ctx } from './ctx.js';
import { collapse, cut, flatChildren, frameDocument, isElement, isFrame, isText, NEVER_TEXT, visibleChars } from './dom.js';
import { commitSnapshot, frameIndexOfFrameElement, refFor, wasShown } from './refs.js';
import { accessibleName, contentText, isInteractive, NAME_FROM_CONTENT, roleOf, statesOf } from './roles.js';
import { displayOf, optionHidden, state, textHidden, visualProxy } from './visibility.js';

export const TEXT_MAX = 160;
const VALUE_MAX = 100;
const CELL_MAX = 80;

interface TextItem { k: 't'; s: string; o: Element | null }
interface LineItem {
  k: 'l';
  role: string;
  name: string;
  ref?: string;
  props: string[];
  value?: string;
  extra?: string;
  children: Item[];
  o: Element | null;
  /** Pre-rendered content (table rows). */
  inline?: string;
}
interface BreakItem { k: 'b' }
type Item = TextItem | LineItem | BreakItem;
const BRK: BreakItem = { k: 'b' };

/** Roles that print a line even without a ref (when they have a name or content). */
const STRUCTURAL = new Set([
  'heading', 'list', 'listitem', 'navigation', 'main', 'banner', 'contentinfo', 'complementary', 'region', 'search',
  'form', 'dialog', 'alertdialog', 'alert', 'article', 'group', 'tablist', 'tabpanel', 'menu', 'menubar', 'listbox',
  'radiogroup', 'tree', 'toolbar', 'tooltip', 'img', 'progressbar', 'meter', 'status', 'log', 'marquee', 'timer', 'option',
]);
/** Structural roles printed only when named (otherwise they are just wrappers). */
const ONLY_NAMED = new Set(['form', 'group', 'region', 'status', 'log', 'img']);
const TABLE_ROLES = new Set(['table', 'grid', 'treegrid']);
/** Unnamed landmarks that print nothing of their own when they hold just one landmark or list. */
const WRAPPERS = new Set(['banner', 'contentinfo', 'navigation', 'main', 'complementary', 'region', 'search', 'list']);
/** Text made of separators and punctuation only. */
const SEPARATORS_ONLY = /^[\s·•|/\\,.;:!?()[\]{}\-–—_*~]*$/u;
const CELL_ROLES = new Set(['cell', 'gridcell', 'columnheader', 'rowheader']);
/** Roles whose element has no children worth printing. */
const LEAF_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'slider', 'spinbutton', 'progressbar', 'meter', 'img', 'scrollbar', 'separator']);
const BLOCKISH = (display: string | undefined) => !!display && display !== 'inline' && display !== 'contents' && !display.startsWith('inline') && display !== '';

function hasRef(it: Item): boolean {
  return it.k === 'l' && (!!it.ref || it.children.some(hasRef));
}

export function snapshot(opts: SnapshotOptions): SnapshotResult {
  const s = new Snapshotter(new Ctx(!!opts.includeHidden), !!opts.markNewSince, opts.frameMark);
  const items: Item[] = [];
  const root = document.body ?? document.documentElement;
  if (root) s.walkRoot(root, items);
  const lines: string[] = [];
  s.render(items, 0, lines);
  commitSnapshot({ refs: s.refs, owners: s.owners });
  return { url: location.href, title: document.title, text: lines.join('\n'), refCount: s.refs.size, skippedFrames: s.skipped, ...(opts.frameMark ? { frames: s.frames } : {}) };
}

class Snapshotter {
  refs = new Set<string>();
  owners = new WeakSet<Element>();
  skipped: { url: string }[] = [];
  frames: number[] = [];
  private suppressText = 0;

  constructor(readonly c: Ctx, readonly markNew: boolean, readonly frameMark?: string) {}

  /** A document's body: its content, or one textbox when the whole body is editable (rich-text editors). */
  walkRoot(body: Element, out: Item[]) {
    if ((body as HTMLElement).isContentEditable && body.localName === 'body') out.push(this.controlLine(body, 'textbox', true));
    else this.walkChildren(body, out);
  }

  walkChildren(parent: Node, out: Item[]) {
    const owner = isElement(parent) ? parent : null;
    let ownTextHidden: boolean | undefined;
    for (const ch of Array.from(flatChildren(parent))) {
      if (isText(ch)) {
        if (this.suppressText) continue;
        if (owner) {
          if (ownTextHidden === undefined) ownTextHidden = !this.c.includeHidden && textHidden(owner, this.c);
          if (ownTextHidden) continue;
        }
        out.push({ k: 't', s: visibleChars(ch.data).replace(/\s+/g, ' '), o: owner });
      } else if (isElement(ch)) {
        this.walkElement(ch, out);
      } else if (ch.nodeType === 8 && this.c.includeHidden && (ch as Comment).data.trim()) {
        out.push(BRK, { k: 't', s: `<!-- ${collapse((ch as Comment).data)} -->`, o: owner }, BRK);
      }
    }
  }

  private walkElement(el: Element, out: Item[]) {
    const c = this.c;
    const tag = el.localName;
    if (NEVER_TEXT.has(tag)) return;
    if (tag === 'template') {
      if (c.includeHidden) {
        out.push(BRK);
        this.walkChildren((el as HTMLTemplateElement).content, out);
        out.push(BRK);
      }
      return;
    }
    if (!c.includeHidden && state(el, c).hidden) {
      // A hidden native checkbox/radio/file input styled through its visible <label>: the person uses it.
      if (tag === 'input' && visualProxy(el, c)) out.push(this.controlLine(el, roleOf(el), true));
      return;
    }
    if (!c.includeHidden && el.getAttribute('aria-hidden') === 'true') return;
    if (tag === 'br') {
      out.push(BRK);
      return;
    }
    if (isFrame(el)) return this.frame(el, out);
    const role = roleOf(el);
    if (tag === 'label' && this.labelsShownControl(el as HTMLLabelElement)) {
      // Its text is the control's name: print the rest (links in the label) only.
      this.suppressText++;
      out.push(BRK);
      this.walkChildren(el, out);
      out.push(BRK);
      this.suppressText--;
      return;
    }
    if (TABLE_ROLES.has(role) && !this.isLayoutTable(el)) return this.table(el, role, out);
    if (role === 'row') {
      const r = this.rowLine(el);
      if (r) out.push(r);
      return;
    }
    if (isInteractive(el, role, c)) {
      out.push(this.controlLine(el, role, false));
      return;
    }
    if (STRUCTURAL.has(role)) {
      const line = this.structuralLine(el, role);
      if (line) out.push(line);
      return;
    }
    const display = displayOf(el, c);
    const block = BLOCKISH(display);
    // Boxes side by side (inline-block badges, inline-flex chips) keep their words apart.
    const sep: Item | null = block ? BRK : display.startsWith('inline-') ? { k: 't', s: ' ', o: null } : null;
    if (sep) out.push(sep);
    this.walkChildren(el, out);
    if (sep) out.push(sep);
  }

  private labelsShownControl(label: HTMLLabelElement): boolean {
    const ctl = label.control;
    if (!ctl) return false;
    if (this.c.includeHidden || !state(ctl, this.c).hidden) return true;
    return !!visualProxy(ctl, this.c);
  }

  private newRef(el: Element): string {
    const ref = refFor(el);
    this.refs.add(ref);
    return ref;
  }

  /** A line with a ref. */
  private controlLine(el: Element, role: string, leaf: boolean): LineItem {
    const c = this.c;
    const tag = el.localName;
    if (!NAME_FROM_CONTENT.has(role) && !STRUCTURAL.has(role) && !isNativeOrInteractiveRole(el, role)) role = 'clickable';
    if (tag === 'input' && (el as HTMLInputElement).type === 'file') role = 'button';
    const line: LineItem = { k: 'l', role, name: accessibleName(el, role, c), ref: this.newRef(el), props: statesOf(el, role), children: [], o: el };
    const v = valueOf(el, role, c);
    if (v !== undefined) line.value = v;
    if (tag === 'select') line.extra = optionsList(el as HTMLSelectElement, c);
    const isLeaf = leaf || tag === 'input' || tag === 'select' || tag === 'textarea' || (el as HTMLElement).isContentEditable ||
      (LEAF_ROLES.has(role) && !(role === 'combobox' && el.querySelector('input,textarea,[role=textbox]')));
    if (!isLeaf) {
      const kids: Item[] = [];
      this.walkChildren(el, kids);
      // The name already says what the content says: keep only nested controls.
      line.children = NAME_FROM_CONTENT.has(role) || tag === 'summary' ? kids.filter(hasRef) : kids;
    }
    return line;
  }

  private structuralLine(el: Element, role: string): LineItem | null {
    const c = this.c;
    const line: LineItem = { k: 'l', role, name: '', props: statesOf(el, role), children: [], o: el };
    if (role === 'heading' || role === 'tooltip' || role === 'option') {
      line.name = accessibleName(el, role, c);
      const kids: Item[] = [];
      this.walkChildren(el, kids);
      line.children = kids.filter(hasRef);
      return line.name || line.children.length ? line : null;
    }
    line.name = role === 'listitem' || role === 'list' ? ariaName(el) : accessibleName(el, role, c);
    if (role === 'img') return line.name ? line : null;
    if (role === 'progressbar' || role === 'meter') {
      const v = valueOf(el, role, c);
      if (v !== undefined) line.value = v;
      return line;
    }
    this.walkChildren(el, line.children);
    if (ONLY_NAMED.has(role) && !line.name) {
      // An unnamed form/group is only a wrapper.
      return { k: 'l', role: '', name: '', props: [], children: [BRK, ...line.children, BRK], o: el };
    }
    return line;
  }

  private frame(el: Element, out: Item[]) {
    const doc = frameDocument(el);
    const src = (el as HTMLIFrameElement).src || el.getAttribute('src') || 'about:blank';
    if (doc) {
      frameIndexOfFrameElement(el);
      const kids: Item[] = [];
      if (doc.body && (this.c.includeHidden || !state(doc.body, this.c).hidden)) this.walkRoot(doc.body, kids);
      if (!kids.length) return;
      const name = el.getAttribute('title') || el.getAttribute('name') || (src === 'about:blank' ? '' : src);
      out.push({ k: 'l', role: 'iframe', name: cut(name, VALUE_MAX), props: [], children: kids, o: el });
    } else if (this.frameMark) {
      // The daemon reads the frame through its own session and puts its lines under this one.
      const k = frameIndexOfFrameElement(el);
      this.frames.push(k);
      out.push({ k: 'l', role: 'iframe', name: cut(src, 300), props: [], extra: `${this.frameMark}${k}_`, children: [], o: el });
    } else {
      this.skipped.push({ url: src });
      out.push({ k: 'l', role: 'iframe', name: cut(src, 300), props: [], extra: '(cross-origin)', children: [], o: el });
    }
  }

  // ---------------------------------------------------------------- tables

  private isLayoutTable(el: Element): boolean {
    if (el.localName !== 'table') return false;
    if (el.querySelector('table')) return true;
    const rows = (el as HTMLTableElement).rows;
    return rows.length <= 1 && (rows[0]?.cells.length ?? 0) <= 1;
  }

  private table(el: Element, role: string, out: Item[]) {
    const line: LineItem = { k: 'l', role, name: accessibleName(el, role, this.c), props: [], children: [], o: el };
    const rows: Element[] = [];
    this.collectRows(el, rows);
    for (const row of rows) {
      const r = this.rowLine(row);
      if (r) line.children.push(r);
    }
    if (line.children.length || line.name) out.push(line);
  }

  private collectRows(node: Node, rows: Element[]) {
    for (const ch of Array.from(flatChildren(node))) {
      if (!isElement(ch)) continue;
      if (!this.c.includeHidden && state(ch, this.c).hidden) continue;
      if (ch.localName === 'caption' || NEVER_TEXT.has(ch.localName)) continue;
      const r = roleOf(ch);
      if (r === 'row') rows.push(ch);
      else if (!TABLE_ROLES.has(r)) this.collectRows(ch, rows);
    }
  }

  private collectCells(node: Node, cells: Element[]) {
    for (const ch of Array.from(flatChildren(node))) {
      if (!isElement(ch)) continue;
      if (!this.c.includeHidden && state(ch, this.c).hidden) continue;
      const r = roleOf(ch);
      if (CELL_ROLES.has(r)) cells.push(ch);
      else if (r === 'generic' || r === 'none') this.collectCells(ch, cells);
    }
  }

  private rowLine(row: Element): LineItem | null {
    const c = this.c;
    const cells: Element[] = [];
    this.collectCells(row, cells);
    const parts = (cells.length ? cells : [row]).map((cell) => {
      const role = roleOf(cell);
      if (cell !== row && isInteractive(cell, role, c)) return lineHead(this.controlLine(cell, role, true));
      const items: Item[] = [];
      this.walkChildren(cell, items);
      return this.flattenInline(items);
    });
    const line: LineItem = { k: 'l', role: 'row', name: '', props: statesOf(row, 'row'), children: [], o: row, inline: parts.join('|').trimEnd() };
    if (isInteractive(row, 'row', c)) line.ref = this.newRef(row);
    if (!line.ref && !parts.some((p) => p)) return null;
    return line;
  }

  /** A cell's content on one line: text cut to CELL_MAX, controls as `link "Edit" [ref=e3]`. */
  private flattenInline(items: Item[]): string {
    const parts: string[] = [];
    for (const it of normalize(items)) {
      if (it.k === 't') parts.push(cut(it.s, CELL_MAX));
      else if (it.k === 'l') {
        if (it.ref && it.role === 'link' && it.name && !it.props.length && !normalize(it.children).length) {
          // In a row, a link is its text and its ref: `C-00042 [ref=e9]` (rows are most of a big table).
          parts.push(`${it.name} [ref=${it.ref}]`);
        } else if (it.ref || it.role === 'img' || it.role === 'iframe') {
          const kids = this.flattenInline(it.children);
          parts.push(lineHead(it) + (it.inline ? ` ${it.inline}` : '') + (kids ? ` ${kids}` : ''));
        } else if (it.role === 'heading' || it.role === 'option' || it.role === 'tooltip') {
          parts.push(cut(it.name, CELL_MAX));
          const kids = this.flattenInline(it.children);
          if (kids) parts.push(kids);
        } else {
          const kids = it.inline ?? this.flattenInline(it.children);
          if (kids) parts.push(kids);
        }
      }
    }
    return parts.join(' ');
  }

  // ---------------------------------------------------------------- output

  private mark(o: Element | null): string {
    if (!o) return '';
    this.owners.add(o);
    return this.markNew && wasShown(o) === false ? '*' : '';
  }

  render(items: Item[], depth: number, out: string[], normalized = false) {
    const indent = '  '.repeat(depth);
    const list = normalized ? (items as (TextItem | LineItem)[]) : normalize(items);
    for (let i = 0; i < list.length; i++) {
      const it = list[i];
      if (it.k === 't') {
        // Adjacent text blocks share one line: a card's price, rating and blurb cost one "- text:" prefix,
        // not three (the snapshot is the result a model reads most).
        // Separators alone ("·" between footer links, the "." after a link) say nothing: left out.
        let marks = this.mark(it.o);
        const parts = SEPARATORS_ONLY.test(it.s) ? [] : [cut(trimSeparators(it.s), TEXT_MAX)];
        while (i + 1 < list.length && list[i + 1].k === 't') {
          const next = list[++i] as TextItem;
          const m = this.mark(next.o);
          marks = marks || m;
          if (!SEPARATORS_ONLY.test(next.s)) parts.push(cut(trimSeparators(next.s), TEXT_MAX));
        }
        if (parts.length) out.push(`${indent}${marks}- text: ${parts.join(' · ')}`);
        continue;
      }
      const kids = normalize(it.children);
      // A legend or caption printed as the group's name is not printed again as its first text.
      if (it.name && kids[0]?.k === 't' && collapse(kids[0].s) === it.name) {
        this.mark(kids[0].o);
        kids.shift();
      }
      const plain = !it.name && !it.ref && !it.props.length && it.inline === undefined;
      if (it.role === '' || (it.role === 'listitem' && kids.length <= 1 && !it.props.length && !it.ref) ||
        (plain && WRAPPERS.has(it.role) && kids.length === 1 && kids[0].k === 'l' && kids[0].role !== '')) {
        // Unnamed wrappers, one-child list items and landmarks around one landmark (banner > navigation):
        // the children stand in their place.
        this.mark(it.o);
        this.render(kids, depth, out, true);
        continue;
      }
      if (!kids.length && it.inline === undefined && !it.ref && !it.name && !it.extra && it.value === undefined && (STRUCTURAL.has(it.role) || TABLE_ROLES.has(it.role))) continue;
      const lead = `${indent}${this.mark(it.o)}- `;
      if (it.inline !== undefined) out.push(it.role === 'row' && !it.ref && !it.props.length ? `${lead}${it.inline}` : `${lead}${lineHead(it)}: ${it.inline}`);
      else if (!kids.length) out.push(`${lead}${lineHead(it)}`);
      else if (kids.length === 1 && kids[0].k === 't') {
        this.mark(kids[0].o);
        out.push(`${lead}${lineHead(it)}: ${cut(kids[0].s, TEXT_MAX)}`);
      } else if (kids.length === 1 && kids[0].k === 'l' && !normalize(kids[0].children).length && kids[0].inline === undefined && !it.ref && it.role === 'heading') {
        // `- heading [level=2]: link "Title" [ref=e3]` rather than two lines saying "Title" twice.
        const k = kids[0];
        this.mark(k.o);
        out.push(`${lead}${lineHead(it.name === k.name ? { ...it, name: '' } : it)}: ${lineHead(k)}`);
      } else {
        out.push(`${lead}${lineHead(it)}:`);
        this.render(kids, depth + 1, out, true);
      }
    }
  }
}

/** "© Shop ·" -> "© Shop", ". Read the" -> "Read the": separators at the edges belonged to links now on their own lines. */
function trimSeparators(s: string): string {
  return s.replace(/^(?:[\s·•|]|[.,;:](?=\s|$))+|[\s·•|]+$/gu, '');
}

function ariaName(el: Element): string {
  const al = el.getAttribute('aria-label');
  return al ? cut(collapse(al), 100) : '';
}

function isNativeOrInteractiveRole(el: Element, role: string): boolean {
  const tag = el.localName;
  if (tag === 'a' || tag === 'button' || tag === 'input' || tag === 'select' || tag === 'textarea' || tag === 'summary' || tag === 'area') return true;
  if ((el as HTMLElement).isContentEditable) return true;
  return role !== 'generic' && role !== 'none' && role !== 'paragraph' && role !== 'blockquote' && role !== 'code' &&
    role !== 'term' && role !== 'definition' && role !== 'caption' && role !== 'figure' && role !== 'strong' && role !== 'emphasis';
}

function lineHead(it: LineItem): string {
  let s = it.role;
  if (it.name) s += ` ${JSON.stringify(it.name)}`;
  if (it.ref) s += ` [ref=${it.ref}]`;
  for (const p of it.props) s += ` [${p}]`;
  if (it.value !== undefined) s += ` value=${JSON.stringify(cut(it.value, VALUE_MAX))}`;
  if (it.extra) s += ` ${it.extra}`;
  return s;
}

/**
 * Merges adjacent text, drops breaks and empty text. Text is budgeted per block (between breaks): a paragraph
 * prints at most TEXT_MAX characters of text however many links split it, then "…"; its links still print.
 */
function normalize(items: Item[]): (TextItem | LineItem)[] {
  const out: (TextItem | LineItem)[] = [];
  let pending: TextItem | null = null;
  let used = 0;
  let lastText: TextItem | null = null;
  const flush = () => {
    if (!pending) return;
    let s = collapse(pending.s);
    pending = null;
    if (!s) return;
    const left = TEXT_MAX - used;
    if (left < 20) {
      if (lastText && !lastText.s.endsWith('…')) lastText.s += '…';
      return;
    }
    s = cut(s, left);
    used += s.length;
    lastText = { k: 't', s, o: (pendingOwner as Element | null) };
    out.push(lastText);
  };
  let pendingOwner: Element | null = null;
  for (const it of items) {
    if (it.k === 'b') {
      flush();
      used = 0;
      lastText = null;
    } else if (it.k === 't') {
      if (pending) {
        (pending as TextItem).s += it.s;
        pendingOwner = pendingOwner ?? it.o;
      } else {
        pending = { k: 't', s: it.s, o: it.o };
        pendingOwner = it.o;
      }
    } else {
      flush();
      out.push(it);
    }
  }
  flush();
  return out;
}

function valueOf(el: Element, role: string, c: Ctx): string | undefined {
  const tag = el.localName;
  if (tag === 'input') {
    const inp = el as HTMLInputElement;
    switch (inp.type) {
      case 'checkbox': case 'radio': case 'button': case 'submit': case 'reset': case 'image': case 'hidden':
        return undefined;
      case 'file':
        return inp.files && inp.files.length ? Array.from(inp.files).map((f) => f.name).join(', ') : undefined;
      case 'password':
        // Never put a secret into the model's context; say only that there is one.
        return inp.value ? '••••' : undefined;
    }
    return inp.value ? inp.value : undefined;
  }
  if (tag === 'textarea') return (el as HTMLTextAreaElement).value || undefined;
  if (tag === 'select') {
    const sel = Array.from((el as HTMLSelectElement).selectedOptions).map((o) => collapse(o.label || o.text));
    return sel.length ? sel.join(', ') : undefined;
  }
  if (tag === 'progress' || tag === 'meter') return String((el as HTMLProgressElement).value);
  const vt = el.getAttribute('aria-valuetext') ?? el.getAttribute('aria-valuenow');
  if (vt !== null && (role === 'slider' || role === 'spinbutton' || role === 'progressbar' || role === 'meter' || role === 'scrollbar')) return vt;
  if ((el as HTMLElement).isContentEditable || ((role === 'textbox' || role === 'searchbox' || role === 'combobox') && !el.querySelector('input,textarea'))) {
    const t = contentText(el, c, VALUE_MAX * 2);
    return t || undefined;
  }
  return undefined;
}

/** Short option lists are worth their tokens: the agent can pick without another call. */
function optionsList(sel: HTMLSelectElement, c: Ctx): string | undefined {
  const opts = Array.from(sel.options).filter((o) => c.includeHidden || !optionHidden(o, c));
  if (!opts.length || opts.length > 10) return opts.length > 10 ? `options=${opts.length}` : undefined;
  const texts = opts.map((o) => collapse(o.label || o.text));
  const s = texts.join('|');
  return s.length <= 150 ? `options=${JSON.stringify(s)}` : `options=${opts.length}`;
}
