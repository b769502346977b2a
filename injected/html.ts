/**
 * visibleHtml: the document as HTML with everything a person cannot see left out, for Markdown conversion.
 * Built by walking the flat tree (no clone): hidden subtrees and hidden text are skipped, as are script,
 * style, noscript, template, comments and <svg> drawings; open shadow roots are inlined in place of the
 * host's light children (slots replaced by what they show) and same-origin frames' bodies are inlined in a
 * <div data-frame-src>; cross-origin frames stay as <iframe src> (with frameMark, a marked <div data-frame-src>
 * the daemon fills with the frame's own reading). URLs (href, src, action, poster, ...) are
 * absolute; style, event handlers and srcset are dropped, and data-* attributes too unless dataAttrs (a model writing
 * selectors, and the check of its selectors, need them: bounded in number and length); form fields carry their current
 * value (never a password's). <head> keeps the title, meta name/property tags and the canonical link.
 * includeHidden keeps hidden elements, text, comments and template content.
 */
import { Ctx } from './ctx.js';
import { absoluteUrl, collapse, flatChildren, frameDocument, isElement, isFrame, isText, visibleChars } from './dom.js';
import { optionHidden, state, textHidden } from './visibility.js';
import { frameIndexOfFrameElement } from './refs.js';

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr']);
const SKIP = new Set(['script', 'style', 'noscript', 'link', 'meta', 'base', 'title', 'head', 'param']);
const URL_ATTRS = new Set(['href', 'src', 'action', 'formaction', 'poster', 'cite', 'data', 'background']);

function escText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function escAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
}

/** With dataAttrs: data-* attributes kept per element, and the characters of each value kept (a cut value still matches [data-x]). */
const DATA_ATTRS_MAX = 20;
const DATA_VALUE_CHARS = 200;

class HtmlWriter {
  out: string[] = [];
  frames: number[] = [];
  constructor(readonly c: Ctx, readonly dataAttrs = false, readonly frameMark?: string) {}

  attrs(el: Element): string {
    let s = '';
    const tag = el.localName;
    let data = 0;
    for (const a of Array.from(el.attributes)) {
      const n = a.name.toLowerCase();
      if (n === 'style' || n.startsWith('on') || n === 'srcset' || n === 'value' || n === 'checked' || n === 'selected') continue;
      // data-frame-src is this writer's own marker of an inlined frame: a page's attribute of that name is not kept.
      if (n.startsWith('data-') && (!this.dataAttrs || n === 'data-frame-src' || ++data > DATA_ATTRS_MAX)) continue;
      let v = n.startsWith('data-') ? a.value.slice(0, DATA_VALUE_CHARS) : a.value;
      if (URL_ATTRS.has(n)) {
        if (/^\s*javascript:/i.test(v)) continue;
        v = absoluteUrl(v, el.baseURI) ?? v;
      }
      s += ` ${a.name}="${escAttr(visibleChars(v))}"`;
    }
    if (tag === 'img' && (el as HTMLImageElement).currentSrc && !el.hasAttribute('src')) s += ` src="${escAttr((el as HTMLImageElement).currentSrc)}"`;
    if (tag === 'input') {
      const inp = el as HTMLInputElement;
      if (inp.type === 'checkbox' || inp.type === 'radio') {
        if (inp.checked) s += ' checked';
      } else if (inp.type !== 'password' && inp.type !== 'file' && inp.value) s += ` value="${escAttr(inp.value)}"`;
    }
    if (tag === 'option' && (el as HTMLOptionElement).selected) s += ' selected';
    return s;
  }

  children(parent: Node) {
    const owner = isElement(parent) ? parent : null;
    let hiddenText: boolean | undefined;
    for (const ch of Array.from(flatChildren(parent))) {
      if (isText(ch)) {
        if (owner) {
          if (hiddenText === undefined) hiddenText = !this.c.includeHidden && textHidden(owner, this.c);
          if (hiddenText) continue;
        }
        this.out.push(escText(visibleChars(ch.data)));
      } else if (isElement(ch)) {
        this.element(ch);
      } else if (ch.nodeType === 8 && this.c.includeHidden) {
        this.out.push(`<!--${(ch as Comment).data.replace(/--/g, '- -')}-->`);
      }
    }
  }

  element(el: Element) {
    const c = this.c;
    const tag = el.localName;
    if (SKIP.has(tag)) return;
    if (tag === 'template') {
      if (c.includeHidden) {
        this.out.push('<template>');
        this.children((el as HTMLTemplateElement).content);
        this.out.push('</template>');
      }
      return;
    }
    const isSelectPart = tag === 'option' || tag === 'optgroup';
    if (!c.includeHidden && (isSelectPart ? optionHidden(el, c) : state(el, c).hidden)) return;
    if (tag === 'svg') {
      const label = el.getAttribute('aria-label') || el.querySelector(':scope > title')?.textContent;
      if (label) this.out.push(`<svg aria-label="${escAttr(collapse(label))}"></svg>`);
      return;
    }
    if (tag === 'slot') {
      // Only what the slot shows, not the slot itself.
      this.children(el);
      return;
    }
    if (isFrame(el)) {
      const d = frameDocument(el);
      const src = d?.URL || (el as HTMLIFrameElement).src || 'about:blank';
      if (d?.body) {
        this.out.push(`<div data-frame-src="${escAttr(src)}">`);
        if (c.includeHidden || !state(d.body, c).hidden) this.children(d.body);
        this.out.push('</div>');
      } else if (this.frameMark) {
        // The daemon puts the frame's own visible HTML where the mark is (read through the frame's session).
        const k = frameIndexOfFrameElement(el);
        this.frames.push(k);
        this.out.push(`<div data-frame-src="${escAttr(src)}">${this.frameMark}${k}_</div>`);
      } else {
        this.out.push(`<iframe src="${escAttr(src)}"></iframe>`);
      }
      return;
    }
    const name = el.namespaceURI === 'http://www.w3.org/1999/xhtml' ? tag : el.tagName;
    this.out.push(`<${name}${this.attrs(el)}>`);
    if (VOID.has(tag)) return;
    if (tag === 'textarea') this.out.push(escText((el as HTMLTextAreaElement).value));
    else this.children(el);
    this.out.push(`</${name}>`);
  }
}

function headHtml(doc: Document): string {
  const parts = [`<title>${escText(doc.title)}</title>`];
  for (const m of Array.from(doc.querySelectorAll('head meta[name], head meta[property]'))) {
    const key = m.hasAttribute('name') ? 'name' : 'property';
    parts.push(`<meta ${key}="${escAttr(m.getAttribute(key) ?? '')}" content="${escAttr(m.getAttribute('content') ?? '')}">`);
  }
  const canon = doc.querySelector('head link[rel=canonical]');
  if (canon?.getAttribute('href')) parts.push(`<link rel="canonical" href="${escAttr(absoluteUrl(canon.getAttribute('href'), doc.baseURI) ?? '')}">`);
  return `<head>${parts.join('')}</head>`;
}

/**
 * One element as visible HTML (the same writer as visibleHtml: hidden parts out, URLs absolute), or '' when
 * the element itself is hidden. scrollUntil keeps list items this way.
 */
export function elementHtml(el: Element, c: Ctx): string {
  const w = new HtmlWriter(c);
  w.element(el);
  return w.out.join('');
}

export function visibleHtml(opts: { includeHidden?: boolean; dataAttrs?: boolean; bodyOnly?: boolean; frameMark?: string }): { html: string; url: string; title: string; frames?: number[] } {
  const c = new Ctx(!!opts.includeHidden);
  const w = new HtmlWriter(c, !!opts.dataAttrs, opts.frameMark);
  const marked = opts.frameMark ? { frames: w.frames } : {};
  if (opts.bodyOnly) {
    // A frame's content, for the daemon to put inside its parent's reading.
    const b = document.body;
    if (b && (c.includeHidden || !state(b, c).hidden)) w.children(b);
    return { html: w.out.join(''), url: location.href, title: document.title, ...marked };
  }
  const html = document.documentElement;
  const lang = html?.getAttribute('lang');
  w.out.push(`<!DOCTYPE html><html${lang ? ` lang="${escAttr(lang)}"` : ''}>`, headHtml(document));
  const body = document.body;
  if (body) {
    w.out.push(`<body${w.attrs(body)}>`);
    if (c.includeHidden || !state(body, c).hidden) w.children(body);
    w.out.push('</body>');
  }
  w.out.push('</html>');
  return { html: w.out.join(''), url: location.href, title: document.title, ...marked };
}
