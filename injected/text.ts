/**
 * The visible text of the page in reading order: blocks on their own lines, inline runs joined, whitespace
 * collapsed (kept in <pre> and other pre-formatted text), table cells of a row joined with " | ", open shadow
 * roots and same-origin frames included. The same walk feeds readText, findText (blocks with a map back to
 * the text nodes), query's text/regex (element spans over one string) and check().
 */
import { Ctx } from './ctx.js';
import { elementOf } from './failure.js';
import { frameIndexOfFrameElement } from './refs.js';
import { collapse, flatChildren, visibleChars, frameDocument, isElement, isFrame, isText, NEVER_TEXT, OPAQUE_CONTROLS } from './dom.js';
import { displayOf, state, textHidden } from './visibility.js';

export interface Seg { node: Text | null; start: number; end: number }
export interface Block { text: string; segs: Seg[] }
export interface Span { el: Element; start: number; end: number; parent: number }

type WsMode = 'collapse' | 'pre' | 'pre-line';

const INLINE = new Set(['inline', 'contents', 'ruby', 'ruby-base', 'ruby-text']);
const INLINE_BOX = new Set(['inline-block', 'inline-flex', 'inline-grid']);

export class TextCollector {
  blocks: Block[] = [];
  spans: Span[] = [];
  private text = '';
  private segs: Seg[] = [];
  private cellDepth = 0;
  private rowCells: number[] = [];
  /** single: one string, blocks separated by "\n" (for element spans); otherwise a list of blocks. */
  constructor(readonly single = false) {}

  add(node: Text | null, s: string, mode: WsMode) {
    s = visibleChars(s);
    if (mode === 'collapse') s = s.replace(/\s+/g, ' ');
    else if (mode === 'pre-line') s = s.replace(/[ \t\u00a0]+/g, ' ').replace(/\r\n?/g, '\n');
    else s = s.replace(/\r\n?/g, '\n').replace(/\u00a0/g, ' ');
    if (mode === 'collapse' && s.charCodeAt(0) === 32) {
      // (A regex anchored at $ would scan the whole growing string: quadratic on big pages.)
      const last = this.text.charCodeAt(this.text.length - 1);
      if (!this.text || last === 32 || last === 10) s = s.slice(1);
    }
    if (!s) return;
    this.segs.push({ node, start: this.text.length, end: this.text.length + s.length });
    this.text += s;
  }

  brk() {
    if (this.cellDepth > 0) return this.add(null, ' ', 'collapse');
    if (this.single) {
      if (this.text && !this.text.endsWith('\n')) {
        let end = this.text.length;
        while (end > 0 && this.text.charCodeAt(end - 1) === 32) end--;
        if (end < this.text.length) this.text = this.text.slice(0, end);
        this.text += '\n';
      }
      return;
    }
    const t = this.text.replace(/\s+$/, '');
    if (t.trim()) this.blocks.push({ text: t, segs: this.segs.map((s) => ({ ...s, end: Math.min(s.end, t.length) })).filter((s) => s.start < s.end) });
    this.text = '';
    this.segs = [];
  }

  get offset(): number {
    return this.text.length;
  }

  /** The whole text (single mode). */
  get all(): string {
    return this.text;
  }

  enterRow() {
    this.brk();
    this.rowCells.push(0);
  }
  leaveRow() {
    this.rowCells.pop();
    this.brk();
  }
  enterCell() {
    const n = this.rowCells.length ? this.rowCells[this.rowCells.length - 1]++ : 0;
    if (n > 0) this.add(null, ' | ', 'pre');
    this.cellDepth++;
  }
  leaveCell() {
    this.cellDepth--;
  }

  finish(): this {
    const d = this.cellDepth;
    this.cellDepth = 0;
    this.brk();
    this.cellDepth = d;
    return this;
  }
}

export interface WalkOpts {
  frames: boolean;
  /** Record element spans (single-string collectors). */
  spans?: boolean;
  /** Frames this script cannot enter are written as a line `<frameMark><K>_`, K added to frameList (api.ts FrameMarkOptions). */
  frameMark?: string;
  frameList?: number[];
}

function wsMode(ws: string): WsMode {
  if (ws === 'pre' || ws === 'pre-wrap' || ws === 'break-spaces') return 'pre';
  if (ws === 'pre-line') return 'pre-line';
  return 'collapse';
}

/** Walks `root`'s flat-tree children into the collector. */
export function walkText(root: Node, c: Ctx, col: TextCollector, opts: WalkOpts, parentSpan = -1) {
  const owner = isElement(root) ? root : null;
  let ownTextHidden: boolean | undefined;
  let mode: WsMode | undefined;
  for (const ch of Array.from(flatChildren(root))) {
    if (isText(ch)) {
      if (!owner) {
        col.add(ch, ch.data, 'collapse');
        continue;
      }
      if (ownTextHidden === undefined) ownTextHidden = !c.includeHidden && textHidden(owner, c);
      if (ownTextHidden) continue;
      if (mode === undefined) mode = wsMode(c.style(owner).whiteSpace);
      col.add(ch, ch.data, mode);
      continue;
    }
    if (ch.nodeType === 8) {
      if (c.includeHidden && (ch as Comment).data.trim()) {
        col.brk();
        col.add(null, `<!-- ${collapse((ch as Comment).data)} -->`, 'pre');
        col.brk();
      }
      continue;
    }
    if (!isElement(ch)) continue;
    const tag = ch.localName;
    if (NEVER_TEXT.has(tag)) continue;
    if (tag === 'template') {
      if (c.includeHidden) {
        col.brk();
        walkText((ch as HTMLTemplateElement).content, c, col, opts, parentSpan);
        col.brk();
      }
      continue;
    }
    if (!c.includeHidden && state(ch, c).hidden) continue;
    if (tag === 'br') {
      col.brk();
      continue;
    }
    let span = -1;
    if (opts.spans) {
      span = col.spans.length;
      col.spans.push({ el: ch, start: col.offset, end: col.offset, parent: parentSpan });
    }
    if (isFrame(ch)) {
      const d = opts.frames ? frameDocument(ch) : null;
      if (d?.body) {
        col.brk();
        walkText(d.body, c, col, opts, span);
        col.brk();
      } else if (opts.frames && opts.frameMark && !frameDocument(ch)) {
        const k = frameIndexOfFrameElement(ch);
        opts.frameList?.push(k);
        col.brk();
        col.add(null, `${opts.frameMark}${k}_`, 'pre');
        col.brk();
      }
    } else if (!OPAQUE_CONTROLS.has(tag)) {
      const display = displayOf(ch, c) || 'inline';
      if (display === 'table-row') {
        col.enterRow();
        walkText(ch, c, col, opts, span);
        col.leaveRow();
      } else if (display === 'table-cell') {
        col.enterCell();
        walkText(ch, c, col, opts, span);
        col.leaveCell();
      } else if (INLINE.has(display)) {
        walkText(ch, c, col, opts, span);
      } else if (INLINE_BOX.has(display)) {
        // Separate boxes side by side: keep their words apart.
        col.add(null, ' ', 'collapse');
        walkText(ch, c, col, opts, span);
        col.add(null, ' ', 'collapse');
      } else {
        col.brk();
        walkText(ch, c, col, opts, span);
        col.brk();
      }
    }
    if (span >= 0) col.spans[span].end = col.offset;
  }
}

/** The page's (or an element's) text as lines. */
export function textLines(root: Element, c: Ctx, frames = true, marks: Pick<WalkOpts, 'frameMark' | 'frameList'> = {}): string {
  const col = new TextCollector();
  if (root.localName === 'html') {
    const body = root.ownerDocument.body;
    walkText(body ?? root, c, col, { frames, ...marks });
  } else {
    walkText(root, c, col, { frames, ...marks });
  }
  col.finish();
  return col.blocks.map((b) => b.text).join('\n');
}

/** Visible text of one element, whitespace collapsed to single spaces. */
export function elementText(el: Element, c: Ctx): string {
  const col = new TextCollector(true);
  walkText(el, c, col, { frames: true });
  return collapse(col.all);
}

/** The API's readText: the page (or one element) as visible text, one block per line. */
export function readText(opts: { includeHidden?: boolean; ref?: string; frameMark?: string }): { text: string; title: string; url: string; frames?: number[] } {
  const c = new Ctx(!!opts.includeHidden);
  let root: Element | null = document.documentElement;
  if (opts.ref) {
    root = elementOf(opts.ref);
    if (!c.includeHidden && state(root, c).hidden) return { text: '', title: document.title, url: location.href };
  }
  const frames: number[] = [];
  const text = root ? textLines(root, c, true, opts.frameMark ? { frameMark: opts.frameMark, frameList: frames } : {}) : '';
  return { text, title: document.title, url: location.href, ...(opts.frameMark ? { frames } : {}) };
}
