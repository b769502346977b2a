/**
 * Locators: how a recorded step finds its element again in a later page, where refs mean nothing. We keep a CSS
 * selector, checked at record time to match exactly that one element (test ids, then a unique #id, then unique
 * attribute combinations, then a path of :nth-of-type steps from the nearest ancestor with a unique id), and the
 * element's role and name for people reading a script. A replay asks browser_query for the selector and uses the
 * one element it matches; none or several is a failed step, never a guess. Elements inside frames or shadow roots
 * get no locator: such a step is kept but cannot be replayed.
 */
import type { Tab } from '../browser/tab.js';
import { elementObjectId } from '../browser/tab.js';
import type { Locator } from '../../storage/records.js';

/** Runs in the page with `this` = the element; a selector that matches only it, or null. */
const CSS_FOR_ELEMENT = `function () {
  const el = this, doc = el.ownerDocument;
  if (el.getRootNode() !== doc || doc !== document) return null;
  const str = (v) => '"' + String(v).replace(/["\\\\]/g, '\\\\$&').replace(/\\n/g, '\\\\a ') + '"';
  const only = (sel) => { try { const all = doc.querySelectorAll(sel); return all.length === 1 && all[0] === el; } catch { return false; } };
  const tag = el.localName;
  for (const a of ['data-testid', 'data-test', 'data-qa', 'data-cy']) {
    const v = el.getAttribute(a);
    if (v && only('[' + a + '=' + str(v) + ']')) return '[' + a + '=' + str(v) + ']';
  }
  if (el.id && !/\\d{4,}|^[0-9]/.test(el.id) && only('#' + CSS.escape(el.id))) return '#' + CSS.escape(el.id);
  const attrs = ['name', 'aria-label', 'placeholder', 'title', 'alt', 'href', 'type', 'value', 'role'];
  const have = attrs.filter((a) => el.getAttribute(a));
  for (const a of have) { const s = tag + '[' + a + '=' + str(el.getAttribute(a)) + ']'; if (only(s)) return s; }
  for (let i = 0; i < have.length; i++) for (let j = i + 1; j < have.length; j++) {
    const s = tag + '[' + have[i] + '=' + str(el.getAttribute(have[i])) + '][' + have[j] + '=' + str(el.getAttribute(have[j])) + ']';
    if (only(s)) return s;
  }
  const parts = [];
  let n = el;
  while (n && n !== doc.documentElement) {
    if (n !== el && n.id && doc.querySelectorAll('#' + CSS.escape(n.id)).length === 1) { parts.unshift('#' + CSS.escape(n.id)); break; }
    let i = 1, s = n;
    while ((s = s.previousElementSibling)) if (s.localName === n.localName) i++;
    parts.unshift(n.localName + ':nth-of-type(' + i + ')');
    n = n.parentElement;
  }
  if (n === doc.documentElement) parts.unshift('html');
  const sel = parts.join(' > ');
  return only(sel) ? sel : null;
}`;

/** The locator of a ref's element now, or undefined (stale ref, inside a frame or shadow root). */
export async function locatorFor(tab: Tab, ref: string): Promise<Locator | undefined> {
  try {
    const info = await tab.call('elementInfo', ref);
    const objectId = await elementObjectId(tab, ref);
    const r = await tab.send('Runtime.callFunctionOn', { objectId, functionDeclaration: CSS_FOR_ELEMENT, returnByValue: true });
    const css = r.result?.value;
    if (typeof css !== 'string' || !css) return undefined;
    return { css, ...(info.role ? { role: info.role } : {}), ...(info.name ? { name: info.name.slice(0, 200) } : {}) };
  } catch {
    // A ref that does not resolve fails the call itself (stale_ref); the step says so, with no locator.
    return undefined;
  }
}
