// Our own DOM walk: htmlparser2 tree -> Markdown blocks.
//
// The walk works in two registers. `blocks()` produces top-level blocks
// (paragraphs, headings, lists, tables, code, quotes, rules); runs of inline
// content between block elements become paragraphs. `inline()` renders text
// with emphasis, code spans, links and images; a hard line break is "\n", and
// a block element met in inline context (a <div> inside a heading or a table
// cell) just contributes line breaks, which each caller maps to what fits
// (a space in headings and link text, <br> in table cells).
//
// The HTML we get has already had everything a person cannot see removed by the
// in-page script, so nothing here tries to judge visibility; we only drop
// elements that never show text (script, style, svg, form controls, ...) and,
// in article mode, navigation-like chrome.
import { type HElement, type HNode, isElement, collapseWs, textContent } from './html-tree.js';
import { codeFence, codeSpan, escapeBrackets, escapeLineStart, wrapMarks } from './md-text.js';
import type { Block } from './block.js';
import { renderTable } from './md-table.js';
import type { Resolver } from './url.js';

export interface WalkOptions {
  resolve: Resolver;
  /** Article mode: leave out nav/aside/banner/footer chrome. */
  dropChrome: boolean;
}

// Elements that never render readable text, or whose text is not content
// (form controls show state, not prose; media fallbacks show only when the media fails).
const NEVER = new Set([
  'script', 'style', 'noscript', 'template', 'svg', 'canvas', 'iframe', 'frame', 'frameset',
  'object', 'embed', 'audio', 'video', 'map', 'area', 'head', 'title', 'meta', 'link', 'base',
  'input', 'select', 'option', 'optgroup', 'textarea', 'datalist', 'param', 'source', 'track',
]);

// Block-level elements: they end the current paragraph.
const BLOCK = new Set([
  'html', 'body', 'main', 'article', 'section', 'div', 'header', 'footer', 'nav', 'aside', 'form',
  'fieldset', 'legend', 'figure', 'figcaption', 'details', 'summary', 'address', 'hgroup', 'center',
  'search', 'dialog', 'p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'menu', 'li', 'dl', 'dt',
  'dd', 'table', 'caption', 'thead', 'tbody', 'tfoot', 'tr', 'td', 'th', 'pre', 'blockquote', 'hr',
  'xmp', 'listing',
]);

const CHROME_ROLES = /^(navigation|banner|contentinfo|complementary|search)$/i;
const HEADING = /^h([1-6])$/;
const LANG_CLASS = /(?:^|\s)(?:lang(?:uage)?-)([\w#+.-]+)/;

export class MarkdownWalker {
  /** Links written so far (images are not counted). */
  links = 0;
  private holdsBlockMemo = new Map<HElement, boolean>();
  private inLink = false;
  private inStrong = false;
  private inEm = false;

  constructor(private readonly opts: WalkOptions) {}

  // ---------- block register ----------

  blocks(nodes: HNode[], out: Block[] = []): Block[] {
    let buf = '';
    const flush = () => {
      const text = paragraph(buf);
      if (text) out.push({ kind: 'p', text });
      buf = '';
    };
    for (const n of nodes) {
      if (n.type === 'text') {
        buf += this.text(n.data);
        continue;
      }
      if (!isElement(n) || this.skipped(n)) continue;
      if (BLOCK.has(n.name)) {
        flush();
        this.block(n, out);
      } else if (this.holdsBlock(n)) {
        // An inline element wrapping blocks (a card link around a heading and a price).
        flush();
        if (n.name === 'a') this.blockLink(n, out);
        else this.blocks(n.children, out);
      } else {
        buf += this.inline(n);
      }
    }
    flush();
    return out;
  }

  private block(el: HElement, out: Block[]): void {
    const h = HEADING.exec(el.name);
    if (h) {
      const text = oneLine(this.inlineOf(el.children));
      if (text) out.push({ kind: 'heading', text: '#'.repeat(Number(h[1])) + ' ' + text });
      return;
    }
    switch (el.name) {
      case 'ul':
      case 'ol':
      case 'menu':
        this.list(el, out);
        return;
      case 'table':
        renderTable(el, this, out);
        return;
      case 'pre':
      case 'xmp':
      case 'listing':
        this.codeBlock(el, out);
        return;
      case 'blockquote': {
        const inner = joinBlocks(this.blocks(el.children));
        if (inner) out.push({ kind: 'quote', text: inner.split('\n').map((l) => (l ? '> ' + l : '>')).join('\n') });
        return;
      }
      case 'hr':
        out.push({ kind: 'hr', text: '---' });
        return;
      case 'dt': {
        const text = oneLine(this.inlineOf(el.children));
        if (text) out.push({ kind: 'p', text: this.inStrong ? text : `**${text}**` });
        return;
      }
      default:
        // p, div, section, li outside a list, stray table parts...: just their content.
        this.blocks(el.children, out);
    }
  }

  private list(el: HElement, out: Block[]): void {
    const ordered = el.name === 'ol';
    const reversed = ordered && 'reversed' in el.attribs;
    const items: { num: number; blocks: Block[] }[] = [];
    const lis = countItems(el);
    let num = parseInt(el.attribs.start ?? '', 10);
    if (!Number.isFinite(num)) num = reversed ? lis : 1;

    const visit = (parent: HElement) => {
      for (const c of parent.children) {
        if (c.type === 'text') {
          // Stray text inside a list still shows; give it its own item.
          const p = paragraph(this.text(c.data));
          if (p) items.push({ num: num++, blocks: [{ kind: 'p', text: p }] });
          continue;
        }
        if (!isElement(c) || this.skipped(c)) continue;
        if (c.name === 'li') {
          const v = parseInt(c.attribs.value ?? '', 10);
          if (Number.isFinite(v)) num = v;
          items.push({ num, blocks: this.blocks(c.children) });
          num += reversed ? -1 : 1;
        } else if ((c.name === 'ul' || c.name === 'ol') && items.length) {
          // <ul><li>a</li><ul>..</ul></ul>: a common mistake meaning "nested under a".
          this.list(c, items[items.length - 1].blocks);
        } else if (countItems(c) > 0 && !BLOCK_LISTS.has(c.name)) {
          visit(c); // wrappers around <li>s (frameworks love a <div> here)
        } else {
          const blocks = this.blocks([c]);
          if (blocks.length) items.push({ num: num++, blocks });
        }
      }
    };
    visit(el);

    const lines: string[] = [];
    for (const item of items) {
      if (!item.blocks.length) continue;
      const marker = ordered ? `${item.num}.` : '-';
      const indent = ' '.repeat(marker.length + 1);
      // A nested list hugs its parent line; further paragraphs get a blank line.
      const body = item.blocks
        .map((b, i) => (i === 0 ? b.text : (b.kind === 'list' ? '\n' : '\n\n') + b.text))
        .join('');
      body.split('\n').forEach((l, i) => lines.push(i === 0 ? `${marker} ${l}` : l ? indent + l : ''));
    }
    if (lines.length) out.push({ kind: 'list', text: lines.join('\n') });
  }

  private codeBlock(el: HElement, out: Block[]): void {
    const code = preText(el)
      .replace(/^[ \t]*\n/, '') // the newline right after <pre> is not content
      .replace(/\s+$/, '');
    if (!code.trim()) return;
    out.push({ kind: 'code', text: codeFence(code, codeLang(el)) });
  }

  /** A link around block content: link the first heading (else paragraph) it holds. */
  private blockLink(a: HElement, out: Block[]): void {
    const href = this.opts.resolve(a.attribs.href);
    const prev = this.inLink;
    this.inLink = true;
    const inner = this.blocks(a.children);
    this.inLink = prev;
    if (href && !prev) {
      const target = inner.find((b) => b.kind === 'heading') ?? inner.find((b) => b.kind === 'p');
      if (target) {
        if (target.kind === 'heading') {
          const m = /^(#+ )(.*)$/.exec(target.text)!;
          target.text = `${m[1]}[${m[2]}](${href})`;
        } else {
          const [first, ...rest] = target.text.split('\n');
          target.text = [`[${first}](${href})`, ...rest].join('\n');
        }
        this.links++;
      }
    }
    out.push(...inner);
  }

  // ---------- inline register ----------

  inlineOf(nodes: HNode[]): string {
    let s = '';
    for (const n of nodes) s += this.inline(n);
    return s;
  }

  private inline(n: HNode): string {
    if (n.type === 'text') return this.text(n.data);
    if (!isElement(n) || this.skipped(n)) return '';
    switch (n.name) {
      case 'br':
        return '\n';
      case 'img':
        return this.image(n);
      case 'a':
        return this.link(n);
      case 'strong':
      case 'b':
        return this.marked(n, '**', 'inStrong');
      case 'em':
      case 'i':
      case 'cite':
      case 'dfn':
      case 'var':
        return this.marked(n, '*', 'inEm');
      case 'del':
      case 's':
      case 'strike':
        return wrapMarks(this.inlineOf(n.children), '~~');
      case 'code':
      case 'kbd':
      case 'samp':
      case 'tt': {
        const code = collapseWs(textContent(n));
        // Keep the edge spaces outside the backticks so words around do not glue together.
        const m = /^( ?)(.*?)( ?)$/.exec(code)!;
        return m[1] + codeSpan(m[2]) + m[3];
      }
      case 'q':
        return '"' + this.inlineOf(n.children) + '"';
      case 'pre':
      case 'xmp':
      case 'listing':
        return '\n' + preText(n) + '\n';
      case 'td':
      case 'th':
        return ' ' + this.inlineOf(n.children) + ' ';
      default:
        if (BLOCK.has(n.name)) return '\n' + this.inlineOf(n.children) + '\n';
        return this.inlineOf(n.children);
    }
  }

  private text(data: string): string {
    const t = collapseWs(data);
    return this.inLink ? escapeBrackets(t) : t;
  }

  private marked(el: HElement, mark: string, flag: 'inStrong' | 'inEm'): string {
    if (this[flag]) return this.inlineOf(el.children); // no ****doubled**** markers
    this[flag] = true;
    const inner = this.inlineOf(el.children);
    this[flag] = false;
    return wrapMarks(inner, mark);
  }

  private link(a: HElement): string {
    const href = this.inLink ? null : this.opts.resolve(a.attribs.href);
    // Links cannot nest; javascript: or missing href: keep the words only.
    if (!href) return this.inlineOf(a.children);
    this.inLink = true;
    const raw = this.inlineOf(a.children).replace(/\s*\n\s*/g, ' ');
    this.inLink = false;
    const m = /^(\s*)([\s\S]*?)(\s*)$/.exec(raw)!;
    const text = m[2].replace(/ {2,}/g, ' ');
    if (!text) return m[1] || m[3] ? ' ' : ''; // icon-only links show nothing to read
    this.links++;
    return `${m[1] ? ' ' : ''}[${text}](${href})${m[3] ? ' ' : ''}`;
  }

  private image(img: HElement): string {
    const alt = collapseWs(img.attribs.alt ?? '').trim();
    if (!alt) return ''; // decorative or unlabeled: nothing a reader can use
    const src = this.opts.resolve(img.attribs.src || img.attribs['data-src'] || firstSrcset(img.attribs.srcset));
    if (!src) return '';
    return `![${escapeBrackets(alt)}](${src})`;
  }

  // ---------- classification ----------

  private skipped(el: HElement): boolean {
    if (NEVER.has(el.name)) return true;
    return this.opts.dropChrome && isChrome(el);
  }

  private holdsBlock(el: HElement): boolean {
    let v = this.holdsBlockMemo.get(el);
    if (v === undefined) {
      v = el.children.some((c) => isElement(c) && !this.skipped(c) && (BLOCK.has(c.name) || this.holdsBlock(c)));
      this.holdsBlockMemo.set(el, v);
    }
    return v;
  }
}

const BLOCK_LISTS = new Set(['ul', 'ol', 'menu', 'table']);

function isChrome(el: HElement): boolean {
  if (el.name === 'nav' || el.name === 'aside') return true;
  if (el.attribs.role && CHROME_ROLES.test(el.attribs.role)) return true;
  if (el.name === 'header' || el.name === 'footer') {
    // An article's own header holds its title and byline; only the site's is chrome.
    for (let p = el.parent; p && p.type !== 'root'; p = p.parent) {
      if (p.name === 'article' || p.name === 'main') return false;
    }
    return true;
  }
  return false;
}

function countItems(el: HElement): number {
  let n = 0;
  for (const c of el.children) {
    if (!isElement(c)) continue;
    if (c.name === 'li') n++;
    else if (!BLOCK_LISTS.has(c.name)) n += countItems(c);
  }
  return n;
}

/** Text of a <pre>, keeping its whitespace; <br> and per-line block wrappers become newlines. */
function preText(el: HElement): string {
  let s = '';
  for (const c of el.children) {
    if (c.type === 'text') s += c.data;
    else if (isElement(c) && !NEVER.has(c.name)) {
      if (c.name === 'br') s += '\n';
      else {
        s += preText(c);
        if (BLOCK.has(c.name) && !s.endsWith('\n')) s += '\n';
      }
    }
  }
  return s;
}

function codeLang(pre: HElement): string {
  const code = pre.children.find((c): c is HElement => isElement(c) && c.name === 'code');
  for (const el of [pre, code]) {
    if (!el) continue;
    const a = el.attribs;
    const lang = a['data-lang'] || a['data-language'] || LANG_CLASS.exec(a.class ?? '')?.[1];
    if (lang) return lang.toLowerCase();
  }
  return '';
}

function firstSrcset(srcset: string | undefined): string | undefined {
  return srcset?.trim().split(/\s+/)[0] || undefined;
}

/** Inline buffer -> paragraph text: spaces collapsed, lines trimmed, at most one blank line. */
function paragraph(buf: string): string {
  if (!buf.trim()) return '';
  return buf
    .split('\n')
    .map((l) => escapeLineStart(l.replace(/ {2,}/g, ' ').trim()))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

export function joinBlocks(blocks: Block[]): string {
  return blocks.map((b) => b.text).join('\n\n');
}
