/**
 * A compact outline of a page's visible HTML for a model that writes CSS selectors: one line per element with
 * its tag, id, classes and the attributes selectors key on, and a short piece of its own text. Scripts, styles
 * and SVG innards are left out, and long runs of look-alike siblings (product cards, table rows) are shown a
 * few times and counted, so a large page fits a model turn while its structure stays visible.
 */
import { isElement, type HDocument, type HElement, type HNode, type HParent } from '../read/html-tree.js';

const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'link', 'meta']);
/** Elements whose insides a selector never needs. */
const OPAQUE = new Set(['svg', 'iframe', 'video', 'audio', 'canvas', 'picture', 'object']);
const KEEP_ATTRS = ['href', 'src', 'itemprop', 'itemtype', 'itemscope', 'datetime', 'content', 'name', 'role', 'aria-label', 'title', 'alt', 'type', 'rel', 'for'];
/** data-* attributes shown per element: selectors key on them (span[data-price]), and they are often several. */
const DATA_ATTRS_SHOWN = 8;
const SAME_SIBLINGS_SHOWN = 3;
const TEXT_CHARS = 80;
const ATTR_CHARS = 80;
const MAX_DEPTH = 40;

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);
const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

function ownText(el: HElement): string {
  let t = '';
  for (const c of el.children) if (c.type === 'text') t += c.data;
  return squash(t);
}

function head(el: HElement): string {
  let s = el.name;
  if (el.attribs.id) s += `#${clip(el.attribs.id, ATTR_CHARS)}`;
  const classes = (el.attribs.class ?? '').split(/\s+/).filter(Boolean).slice(0, 5);
  if (classes.length) s += `.${classes.join('.')}`;
  const attrs: string[] = [];
  for (const a of KEEP_ATTRS) if (el.attribs[a] !== undefined) attrs.push(`${a}="${clip(squash(el.attribs[a]), ATTR_CHARS)}"`);
  for (const a of Object.keys(el.attribs).filter((k) => k.startsWith('data-')).slice(0, DATA_ATTRS_SHOWN)) attrs.push(`${a}="${clip(squash(el.attribs[a]), ATTR_CHARS)}"`);
  return attrs.length ? `${s} ${attrs.join(' ')}` : s;
}

/** Siblings that look alike: same tag and classes. */
const signature = (el: HElement) => `${el.name}.${(el.attribs.class ?? '').trim()}`;

export function htmlOutline(doc: HDocument, maxChars = 40000): string {
  const lines: string[] = [];
  let used = 0;
  let full = false;
  const push = (depth: number, text: string) => {
    if (full) return;
    const line = `${'  '.repeat(Math.min(depth, 20))}${text}`;
    if (used + line.length + 1 > maxChars) {
      lines.push('[outline cut here: the page is longer]');
      full = true;
      return;
    }
    lines.push(line);
    used += line.length + 1;
  };
  const walk = (parent: HParent, depth: number) => {
    const kids = parent.children.filter((c: HNode): c is HElement => isElement(c) && !SKIP.has(c.name));
    let i = 0;
    while (i < kids.length && !full) {
      const el = kids[i];
      let run = 1;
      while (i + run < kids.length && signature(kids[i + run]) === signature(el)) run++;
      const shown = run > SAME_SIBLINGS_SHOWN + 1 ? SAME_SIBLINGS_SHOWN : run;
      for (let k = 0; k < shown; k++) visit(kids[i + k], depth);
      if (shown < run) push(depth, `… ${run - shown} more <${signature(el).replace(/\.$/, '')}> like these`);
      i += run;
    }
  };
  const visit = (el: HElement, depth: number) => {
    const text = ownText(el);
    push(depth, `<${head(el)}>${text ? ` ${JSON.stringify(clip(text, TEXT_CHARS))}` : ''}`);
    if (!OPAQUE.has(el.name) && depth < MAX_DEPTH) walk(el, depth + 1);
  };
  const body = doc.children.find((c): c is HElement => isElement(c) && c.name === 'html');
  walk(body ?? doc, 0);
  return lines.join('\n');
}
