/**
 * An error kept inside a result as a line (a URL of browser_read that failed, a crawl item, a task, a replay
 * step) instead of thrown: our words, safe on a trusted line, and apart from them the page's words it carries.
 * A BrowserdError's pageText, the whole addresses its message named, and the message of any other thrown value
 * (a CDP or parser error can quote anything) go to `pageText`, which callers keep in a field marked PageText
 * (fenced over MCP) or show with `out.page`. Never the page's words on the line itself.
 */
import { BrowserdError, toBrowserdError } from '../../protocol/errors.js';
import { cutUrls } from './trusted-text.js';

export interface ErrorLine {
  code: string;
  /** Our words: no page text, every address cut to scheme and host. */
  message: string;
  /** The page's words the error is about, whole addresses included; absent when there are none. */
  pageText?: string;
}

/** Any thrown value as an ErrorLine. */
export function errorLine(e: unknown): ErrorLine {
  const err = toBrowserdError(e);
  let message = err.message;
  let quoted = err.pageText;
  // A thrown value that is not ours (storage_full aside, whose words are ours): its message is not known to be.
  if (!(e instanceof BrowserdError) && err.code === 'internal_error') {
    quoted = message;
    message = 'an unexpected error (its words are the page text of this error)';
  }
  if (quoted && message.includes(quoted)) message = message.split(quoted).join('(page text)');
  const cut = cutUrls(message);
  const page = [...(quoted ? [quoted] : []), ...cut.urls];
  return { code: err.code, message: cut.text, ...(page.length ? { pageText: page.join('\n') } : {}) };
}

/** `code: message`, for a field that holds an error as one string (its page text kept in a field beside it). */
export const errorString = (l: ErrorLine): string => `${l.code}: ${l.message}`;

/**
 * The two fields a result keeps for an error: `error` (our words) and `errorPageText` (the page's), the latter
 * only when there is page text.
 */
export function errorFields(e: unknown): { error: string; errorPageText?: string } {
  const l = errorLine(e);
  return { error: errorString(l), ...(l.pageText !== undefined ? { errorPageText: l.pageText } : {}) };
}

/** The same fields for a reason in our words that may name addresses (a refused redirect's hops): they are cut. */
export function reasonFields(reason: string): { error: string; errorPageText?: string } {
  const cut = cutUrls(reason);
  return { error: cut.text, ...(cut.urls.length ? { errorPageText: cut.urls.join('\n') } : {}) };
}

/**
 * An error's message and its page text as one string, for a field that is page text as a whole (a recording's
 * or a replay's step message): nothing of the error is lost, and the field is fenced where it is shown.
 */
export function messageWithPageText(e: { message: string; pageText?: string }): string {
  return e.pageText ? `${e.message} (page text: ${e.pageText})` : e.message;
}
