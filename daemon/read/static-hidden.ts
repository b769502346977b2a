/**
 * Hidden text out of HTML read without a browser (crawl http mode). A browser decides visibility exactly from
 * computed styles (browser mode and browser_read do that in the page); here only what the HTML itself says can
 * be judged: the hidden attribute, inline styles that hide, <template>, comments, and the page's own <style>
 * rules that hide whole elements. External stylesheets are not fetched, so text they hide stays in: use mode
 * "browser" where that matters. aria-hidden is left alone: it hides from screen readers, not from eyes.
 */
import { selectAll } from 'css-select';
import type { HDocument, HElement, HNode, HParent } from './html-tree.js';

const HIDING_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)|opacity\s*:\s*0(?:\.0*)?\s*(?:!important)?\s*(?:;|$)|font-size\s*:\s*0(?:px|em|rem|%)?\s*(?:!important)?\s*(?:;|$))/i;
/** Never rendered as text, whatever the styles say. */
const NEVER_TEXT = new Set(['template', 'script', 'style', 'noscript', 'head']);
/** Zero-width and BOM characters: invisible, and a way to hide instructions inside visible words. */
export const ZERO_WIDTH = /[\u200B-\u200D\u2060\uFEFF\u00AD]/g;

function detach(node: HNode) {
  const parent = node.parent as HParent | null;
  if (!parent) return;
  const i = parent.children.indexOf(node);
  if (i >= 0) parent.children.splice(i, 1);
  // domhandler keeps sibling links too; serializers walk children, but keep the list consistent anyway.
  const n = node as unknown as { prev: HNode | null; next: HNode | null };
  const prev = n.prev as unknown as { next: unknown } | null;
  const next = n.next as unknown as { prev: unknown } | null;
  if (prev) prev.next = next;
  if (next) next.prev = prev;
  node.parent = null;
}

/** Selectors of the page's <style> rules whose declarations hide an element outright. */
function hidingSelectors(doc: HDocument): string[] {
  const out: string[] = [];
  const styles = selectAll('style', doc as never) as unknown as HElement[];
  for (const st of styles) {
    const css = st.children.map((c) => ('data' in c ? (c as { data: string }).data : '')).join('').replace(/\/\*[\s\S]*?\*\//g, '');
    // Only top-level rules: anything inside @media may or may not apply, so it is not judged.
    const flat = css.replace(/@[^{]+\{(?:[^{}]*\{[^{}]*\})*[^{}]*\}/g, '');
    for (const m of flat.matchAll(/([^{}]+)\{([^{}]*)\}/g)) {
      if (HIDING_STYLE.test(';' + m[2]!)) out.push(...m[1]!.split(',').map((s) => s.trim()).filter(Boolean));
    }
  }
  return out;
}

/** Removes, in place, every element and comment the HTML itself says a person cannot see. */
export function removeStaticallyHidden(doc: HDocument): void {
  const doomed = new Set<HNode>();
  for (const selector of hidingSelectors(doc)) {
    try {
      for (const el of selectAll(selector, doc as never) as unknown as HElement[]) doomed.add(el);
    } catch {
      // A selector css-select cannot parse (vendor pseudo-classes and the like): judged by nobody, kept.
    }
  }
  const walk = (parent: HParent) => {
    for (const child of parent.children) {
      if (child.type === 'comment') doomed.add(child);
      else if (child.type === 'tag' || child.type === 'script' || child.type === 'style') {
        const el = child as HElement;
        if (el.name === 'template' || 'hidden' in el.attribs || (el.attribs.style && HIDING_STYLE.test(';' + el.attribs.style)) || (el.name === 'input' && el.attribs.type?.toLowerCase() === 'hidden')) {
          doomed.add(el);
        } else walk(el);
      }
    }
  };
  walk(doc);
  for (const node of doomed) detach(node);
}

/** Whether text under this element is ever shown (used by link and field collection). */
export function isNeverText(el: HElement): boolean {
  return NEVER_TEXT.has(el.name);
}
