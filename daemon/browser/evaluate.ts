/**
 * Running an agent's script in the page's own world (browser_evaluate), bounded in time, with every way it can
 * go wrong given a code: a throw is action_failed with the script's message, a value that cannot travel as
 * JSON (window, DOM nodes, circular objects) is action_failed saying so, and a script that does not finish
 * (a promise that never settles) is a timeout.
 */
import { BrowserdError } from '../../protocol/errors.js';
import { CdpError } from '../cdp/connection.js';
import type { Tab } from './tab.js';

export const EVALUATE_DEFAULT_TIMEOUT_MS = 30000;

export interface Evaluated {
  /** The JavaScript type Chromium reports (string, number, object, undefined...). */
  type: string;
  /** The value as text: a string as it is, anything else as JSON (or its literal: NaN, 1n, undefined). */
  text: string;
}

export async function evaluateScript(tab: Tab, js: string, timeoutMs = EVALUATE_DEFAULT_TIMEOUT_MS): Promise<Evaluated> {
  let r;
  try {
    // `timeout` stops a synchronous loop inside the page; the send bound covers a promise that never settles.
    r = await tab.send('Runtime.evaluate', { expression: js, returnByValue: true, awaitPromise: true, userGesture: true, timeout: timeoutMs }, undefined, timeoutMs + 500);
  } catch (e) {
    if (e instanceof CdpError && e.kind === 'timeout') {
      throw new BrowserdError('timeout', `the script did not finish within ${timeoutMs} ms (a promise that never settles?)`, {
        next: 'Make the script finish sooner (resolve or reject every promise), or pass a larger timeoutMs.',
      });
    }
    if (e instanceof CdpError && e.kind === 'protocol') {
      throw new BrowserdError('action_failed', `the script ran but its value cannot be returned as JSON (${e.message})`, {
        next: 'Return plain data: a string, a number, or an object of such fields (not window, a DOM node, or an object that refers to itself).',
      });
    }
    throw e;
  }
  if (r.exceptionDetails) {
    // What was thrown is page text: the page's own scripts can throw into the agent's (a getter, a patched
    // builtin), and an agent's message often quotes the page. It travels as the error's page text (fenced over
    // MCP, details.pageText over REST), never in the message.
    const msg = r.exceptionDetails.exception?.description?.split('\n')[0] ?? r.exceptionDetails.text;
    throw new BrowserdError('action_failed', 'the script threw an error; what it threw is the page text of this error', {
      next: 'Fix the script; take a browser_snapshot to see the page.',
      pageText: msg,
    });
  }
  const res = r.result;
  if (res.unserializableValue !== undefined) return { type: res.type, text: res.unserializableValue };
  if (res.type === 'undefined') return { type: res.type, text: 'undefined' };
  if (res.type === 'symbol' || res.type === 'function' || (res.value === undefined && res.type === 'object' && res.subtype !== 'null')) {
    throw new BrowserdError('action_failed', `the script returned a ${res.subtype ?? res.type}, which cannot be returned as JSON`, {
      next: 'Return plain data: a string, a number, or an object of such fields (String(x) for a symbol).',
    });
  }
  const v = res.value;
  return { type: res.type, text: typeof v === 'string' ? v : JSON.stringify(v) ?? String(v) };
}
