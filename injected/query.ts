/**
 * Exact extraction (browser_query) and the wait condition (check).
 *
 * query: exactly one of css (across open shadow roots and same-origin frames; ` >>> ` chains scopes), xpath
 * (the top document only: XPath cannot pierce shadow roots), text (case-insensitive, whitespace collapsed) or
 * regex (flags from i, m, s, u). text and regex return the *deepest* elements whose visible text contains or
 * matches: an element whose descendant already matches is not returned. `scope` (CSS, same syntax as css)
 * limits the search to descendants of its matches (text/regex also consider the scope element itself).
 * Hidden elements are left out unless includeHidden. Each match: a ref (valid while its element lives), tag,
 * visible text (cut to 300), the asked attributes (null when absent; href, src, action, formaction, poster
 * and cite resolved to absolute URLs) and a verified unique locator.
 */
import type { QueryMatch, QueryOptions, QueryResult } from './api.js';
import { Ctx } from './ctx.js';
import { absoluteUrl, collapse, cut } from './dom.js';
import { type LocatorCache, locatorFor, selectAll, validateCss } from './locator.js';
import { grant } from './refs.js';
import { failure } from './failure.js';
import { elementText, textLines, TextCollector, walkText } from './text.js';
import { isVisible } from './visibility.js';

const URL_ATTRS = new Set(['href', 'src', 'action', 'formaction', 'poster', 'cite']);
const TEXT_MAX = 300;

export function query(o: QueryOptions): QueryResult {
  const given = (['css', 'xpath', 'text', 'regex'] as const).filter((k) => typeof o[k] === 'string' && o[k] !== '');
  if (given.length !== 1) failure('validation_error', 'give exactly one of css, xpath, text or regex');
  const limit = Math.max(1, Math.min(500, Math.floor(o.limit ?? 50)));
  const c = new Ctx(!!o.includeHidden);
  let scopes: (Document | Element)[] = [document];
  if (o.scope) {
    const err = validateCss(o.scope.split('>>>')[0].trim());
    if (err) failure('validation_error', `scope: ${err}`);
    try {
      scopes = selectAll(o.scope).filter((e) => c.includeHidden || isVisible(e, c));
    } catch (e) {
      failure('validation_error', `scope: ${(e as Error).message}`);
    }
    if (!scopes.length) failure('validation_error', `scope ${JSON.stringify(o.scope)} matches no visible element`);
  }
  let found: Element[];
  try {
    if (given[0] === 'css') found = selectAll(o.css!, scopes).filter((e) => c.includeHidden || isVisible(e, c));
    else if (given[0] === 'xpath') found = byXPath(o.xpath!, scopes).filter((e) => c.includeHidden || isVisible(e, c));
    else {
      let test: (s: string) => boolean;
      if (given[0] === 'text') {
        const needle = collapse(o.text!).toLowerCase();
        test = (s) => s.toLowerCase().includes(needle);
      } else {
        const flags = o.flags ?? '';
        if (!/^[imsu]*$/.test(flags)) failure('validation_error', `invalid regex flags ${JSON.stringify(flags)}: use any of i, m, s, u`);
        let re: RegExp;
        try {
          re = new RegExp(o.regex!, flags);
        } catch (e) {
          failure('validation_error', `invalid regex: ${(e as Error).message}`);
        }
        test = (s) => re.test(s);
      }
      found = deepestMatching(scopes, c, test);
    }
  } catch (e) {
    failure('validation_error', (e as Error).message);
  }
  const cache: LocatorCache = new Map();
  const matches: QueryMatch[] = found.slice(0, limit).map((el) => ({
    ref: grant(el),
    tag: el.localName,
    text: cut(elementText(el, c) || controlText(el), TEXT_MAX),
    attrs: attrsOf(el, o.attr ?? []),
    locator: locatorFor(el, cache),
  }));
  return { matches, total: found.length };
}

function controlText(el: Element): string {
  const tag = el.localName;
  if (tag === 'input' && (el as HTMLInputElement).type !== 'password') return (el as HTMLInputElement).value;
  if (tag === 'textarea') return (el as HTMLTextAreaElement).value;
  if (tag === 'select') return Array.from((el as HTMLSelectElement).selectedOptions).map((o) => o.text).join(', ');
  return '';
}

function attrsOf(el: Element, names: string[]): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const n of names.slice(0, 20)) {
    const v = el.getAttribute(n);
    out[n] = v !== null && URL_ATTRS.has(n.toLowerCase()) ? absoluteUrl(v, el.baseURI) : v;
  }
  return out;
}

function byXPath(xpath: string, scopes: (Document | Element)[]): Element[] {
  const out = new Set<Element>();
  for (const scope of scopes) {
    const doc = scope.nodeType === 9 ? (scope as Document) : (scope as Element).ownerDocument;
    let r: XPathResult;
    try {
      r = doc.evaluate(xpath, scope, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    } catch (e) {
      throw new Error(`invalid XPath ${JSON.stringify(xpath)}: ${(e as Error).message.split('\n')[0]}`);
    }
    for (let i = 0; i < r.snapshotLength; i++) {
      const n = r.snapshotItem(i);
      if (!n) continue;
      const el = n.nodeType === 1 ? (n as Element) : n.nodeType === 2 ? (n as Attr).ownerElement : n.parentElement;
      if (el) out.add(el);
    }
  }
  return Array.from(out);
}

/** Deepest elements whose visible text passes `test`, in document order. */
function deepestMatching(scopes: (Document | Element)[], c: Ctx, test: (s: string) => boolean): Element[] {
  const out: Element[] = [];
  for (const scope of scopes) {
    const root = scope.nodeType === 9 ? ((scope as Document).body ?? (scope as Document).documentElement) : (scope as Element);
    const col = new TextCollector(true);
    walkText(root, c, col, { frames: true, spans: true });
    const all = col.all;
    const spans = col.spans;
    const matched = new Uint8Array(spans.length);
    const below = new Uint8Array(spans.length);
    let anyBelowRoot = false;
    for (let i = spans.length - 1; i >= 0; i--) {
      const sp = spans[i];
      if (!below[i] && sp.end > sp.start && test(collapse(all.slice(sp.start, sp.end)))) matched[i] = 1;
      if (matched[i] || below[i]) {
        if (sp.parent >= 0) below[sp.parent] = 1;
        else anyBelowRoot = true;
      }
    }
    // The scope element itself (text directly inside it) when nothing deeper matches.
    if (scope.nodeType === 1 && !anyBelowRoot && test(collapse(all))) out.push(root);
    for (let i = 0; i < spans.length; i++) if (matched[i]) out.push(spans[i].el);
  }
  return Array.from(new Set(out));
}

/** True once the visible text contains `text` / a visible element matches `selector` (or, with gone, once not). */
export function check(o: { text?: string; selector?: string; gone?: boolean }): boolean {
  const c = new Ctx(false);
  let present = true;
  if (o.selector) {
    let found: Element[] = [];
    try {
      found = selectAll(o.selector);
    } catch (e) {
      failure('validation_error', (e as Error).message);
    }
    present = found.some((e) => isVisible(e, c));
  }
  if (present && o.text) {
    const page = collapse(textLines(document.documentElement, c)).toLowerCase();
    present = page.includes(collapse(o.text).toLowerCase());
  }
  return o.gone ? !present : present;
}
