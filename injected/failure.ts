/**
 * How the in-page script says no. A function of the API throws an InjectedError with a code from the daemon's
 * closed set; index.ts wraps every API function once, so the world always answers the same envelope
 * ({ok: true, value} or {ok: false, code, message, details}) and the daemon decodes failures in one place
 * (Tab.call), never by reading message text.
 */
import type { InjectedFailureCode, RefError } from './api.js';
import { isRefError, resolve } from './refs.js';

export class InjectedError extends Error {
  constructor(
    readonly code: InjectedFailureCode,
    message: string,
    /** Machine-readable facts the daemon may show or use (why, the covering element, a select's options). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export function failure(code: InjectedFailureCode, message: string, details?: Record<string, unknown>): never {
  throw new InjectedError(code, message, details);
}

const HTML_NS = 'http://www.w3.org/1999/xhtml';

/**
 * An element's tag as a failure message may name it: `<input>` for an element the HTML parser knows. A custom
 * element's name (`<obey-this-page>`), an unknown tag or one made in another namespace is the page's own word,
 * so it is not repeated in a message the daemon shows as its own. (toString, not instanceof: frames are realms.)
 */
export function tagWord(el: Element): string {
  const tag = el.localName;
  const known = el.namespaceURI === HTML_NS && !tag.includes('-') && Object.prototype.toString.call(el) !== '[object HTMLUnknownElement]';
  return known ? `<${tag}>` : 'a custom element';
}

/** The element behind a ref, or a stale_ref / not_found failure. */
export function elementOf(ref: unknown): Element {
  const r = resolve(ref);
  if (isRefError(r)) failure(r.error, r.message);
  return (r as { el: Element }).el;
}

/** Turns a resolve() miss into a thrown failure (for callers that hold the raw result). */
export function throwRefError(r: RefError): never {
  return failure(r.error, r.message);
}
