/**
 * Which elements have pointer listeners (click, hover, drag) added by page script. Our isolated world cannot see
 * listeners the page adds with addEventListener or `el.onclick = ...`, so a tiny script in the page's main
 * world (LISTENER_MARKER_SOURCE, installed by the daemon with Page.addScriptToEvaluateOnNewDocument before any
 * page script runs) remembers those elements. It never touches the DOM (no attributes, no mutation records):
 * when asked, it dispatches one `browserd:listener` event on each remembered element, and the isolated world,
 * listening on the document while it asks, collects the targets. Events are the one channel both worlds share
 * without leaving a trace in the page; the cost is one event per marked element per read, not per element.
 *
 * A page can fake marks (dispatch the event itself): that only gives its own elements a ref, as an onclick
 * attribute would. Without the main-world script (a page loaded before the daemon attached) nothing is marked
 * and the other signals (cursor, tabindex, on* attributes, draggable) still hold.
 */

const ASK = 'browserd:listeners?';
const MARK = 'browserd:listener';
const MARK_HOVER = 'browserd:hover-listener';

/** Event types that make an element something a person clicks. */
export const CLICK_EVENTS = ['click', 'dblclick', 'auxclick', 'contextmenu', 'mousedown', 'mouseup', 'pointerdown', 'pointerup', 'touchstart'];
/** ... or hovers or drags (such an element is often the wrapper of the menu it opens). */
export const HOVER_EVENTS = ['mouseover', 'mouseenter', 'pointerover', 'pointerenter', 'dragstart'];

/**
 * The main-world script. Kept as plain ES2020 in a string: it is not bundled, and runs before the page, in
 * every frame, so it must be small and must not throw.
 */
export const LISTENER_MARKER_SOURCE = `(() => {
  const CLICK = new Set(${JSON.stringify(CLICK_EVENTS)});
  const HOVER = new Set(${JSON.stringify(HOVER_EVENTS)});
  const kinds = [{ refs: new Set(), seen: new WeakSet(), name: ${JSON.stringify(MARK)} }, { refs: new Set(), seen: new WeakSet(), name: ${JSON.stringify(MARK_HOVER)} }];
  const mark = (t, type) => {
    const k = CLICK.has(type) ? kinds[0] : HOVER.has(type) ? kinds[1] : null;
    if (!k || !(t instanceof Element) || k.seen.has(t)) return;
    k.seen.add(t);
    k.refs.add(new WeakRef(t));
  };
  const proto = EventTarget.prototype;
  const add = proto.addEventListener;
  // Same name and length as the original, so the page sees the method it expects.
  const patched = { addEventListener(type, listener) {
    if (listener) mark(this, type);
    return add.apply(this, arguments);
  } }.addEventListener;
  Object.defineProperty(proto, 'addEventListener', { value: patched, writable: true, configurable: true, enumerable: true });
  for (const type of [...CLICK, ...HOVER]) {
    const d = Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'on' + type);
    if (!d || !d.set) continue;
    const set = d.set;
    Object.defineProperty(HTMLElement.prototype, 'on' + type, { ...d, set(v) { if (v) mark(this, type); set.call(this, v); } });
  }
  add.call(document, ${JSON.stringify(ASK)}, () => {
    for (const k of kinds) {
      for (const r of k.refs) {
        const el = r.deref();
        if (!el) { k.refs.delete(r); continue; }
        if (el.isConnected) el.dispatchEvent(new Event(k.name, { composed: true }));
      }
    }
  });
})();`;

export interface ListenerMarks { click: WeakSet<Element>; hover: WeakSet<Element> }

/**
 * The elements of `doc` the main-world script marked. Empty when it is not installed. Open shadow roots are
 * included (the mark events are composed); closed ones hide their elements from us, as from everyone.
 */
export function listenerMarks(doc: Document): ListenerMarks {
  const out: ListenerMarks = { click: new WeakSet(), hover: new WeakSet() };
  const collect = (e: Event) => {
    const t = e.composedPath()[0];
    if (t && (t as Node).nodeType === 1) (e.type === MARK ? out.click : out.hover).add(t as Element);
  };
  doc.addEventListener(MARK, collect, true);
  doc.addEventListener(MARK_HOVER, collect, true);
  try {
    doc.dispatchEvent(new Event(ASK));
  } finally {
    doc.removeEventListener(MARK, collect, true);
    doc.removeEventListener(MARK_HOVER, collect, true);
  }
  return out;
}
