/**
 * The part of an identity that has no CDP override, set in the page's own world before its scripts run:
 * navigator.webdriver, languages and deviceMemory, screen sizes, and the WebGL strings a page reads through
 * WEBGL_debug_renderer_info. Each value is a getter on the prototype where the browser defines it (never an own
 * property of navigator), that first calls the browser's own getter, so a wrong receiver still throws "Illegal
 * invocation", and whose source reads "function get x() { [native code] }". Workers, canvas, audio, fonts and
 * the GPU itself are left as they are.
 */
import type { EffectiveIdentity } from './merge.js';

const UNMASKED_VENDOR_WEBGL = 0x9245;
const UNMASKED_RENDERER_WEBGL = 0x9246;

export function identityScript(identity: EffectiveIdentity): string {
  const values = {
    languages: identity.languages,
    deviceMemory: identity.deviceMemory,
    screen: identity.screen,
    webgl: identity.webgl,
  };
  return `(() => {
  const I = ${JSON.stringify(values)};
  const nativeToString = Function.prototype.toString;
  const sources = new WeakMap();
  const asNative = (fn, name) => (sources.set(fn, 'function ' + name + '() { [native code] }'), fn);
  const toString = asNative({ toString() { return sources.has(this) ? sources.get(this) : nativeToString.call(this); } }.toString, 'toString');
  Object.defineProperty(Function.prototype, 'toString', { ...Object.getOwnPropertyDescriptor(Function.prototype, 'toString'), value: toString });
  const getter = (proto, name, value) => {
    const d = proto && Object.getOwnPropertyDescriptor(proto, name);
    if (!d || !d.get) return;
    const own = d.get;
    const get = asNative(Object.getOwnPropertyDescriptor({ get [name]() { own.call(this); return value; } }, name).get, 'get ' + name);
    Object.defineProperty(proto, name, { ...d, get });
  };
  if (typeof Navigator === 'function') {
    getter(Navigator.prototype, 'webdriver', false);
    const languages = Object.freeze([...I.languages]);
    getter(Navigator.prototype, 'languages', languages);
    getter(Navigator.prototype, 'language', languages[0]);
    getter(Navigator.prototype, 'deviceMemory', I.deviceMemory);
  }
  if (typeof Screen === 'function') {
    const s = I.screen;
    for (const [name, value] of [['width', s.width], ['height', s.height], ['availWidth', s.availWidth], ['availHeight', s.availHeight], ['availLeft', 0], ['availTop', 0], ['colorDepth', s.colorDepth], ['pixelDepth', s.colorDepth]]) {
      getter(Screen.prototype, name, value);
    }
  }
  if (I.screen.devicePixelRatio !== undefined && typeof window === 'object') getter(window, 'devicePixelRatio', I.screen.devicePixelRatio);
  for (const ctx of [globalThis.WebGLRenderingContext, globalThis.WebGL2RenderingContext]) {
    if (typeof ctx !== 'function') continue;
    const own = ctx.prototype.getParameter;
    const getParameter = asNative({ getParameter(p) {
      const value = own.apply(this, arguments);
      // Only where the browser itself answers (the extension is on): a null stays null.
      if (value === null || value === undefined) return value;
      if (p === ${UNMASKED_VENDOR_WEBGL}) return I.webgl.vendor;
      if (p === ${UNMASKED_RENDERER_WEBGL}) return I.webgl.renderer;
      return value;
    } }.getParameter, 'getParameter');
    Object.defineProperty(ctx.prototype, 'getParameter', { ...Object.getOwnPropertyDescriptor(ctx.prototype, 'getParameter'), value: getParameter });
  }
})();`;
}
