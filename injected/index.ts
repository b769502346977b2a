/**
 * Entry of the in-page script: installs `globalThis.__browserd` (see api.ts) once per world. The bundle is
 * wrapped by scripts/build-injected.ts so a second evaluation in the same world changes nothing (the refs of
 * the first stay valid). Every function is wrapped here, once, so the world always answers the envelope of
 * api.ts: a value, or a failure with a code the daemon understands without reading the message.
 */
import type { InjectedAnswer, InjectedApi, InjectedFunctionName, InjectedWorld } from './api.js';
import { checkTyping, clickDom, elementFor, fill, focus, pointFor, rectFor, scrollState, selectOptions } from './actions.js';
import { crossFrames, frameBox, frameHit, frameOwner, reserveFrame } from './cross-frames.js';
import { extract } from './extract.js';
import { InjectedError } from './failure.js';
import { findText } from './find.js';
import { visibleHtml } from './html.js';
import { changed, listItems, watchChange } from './list-items.js';
import { fileLinks } from './file-links.js';
import { elementInfo, elementInfoAt, focusedInfo } from './info.js';
import { documentStamp, loginView, maskSecret, remaskSecrets, secretTarget, submitFor } from './login-fields.js';
import { check, query } from './query.js';
import { similar } from './similar.js';
import { snapshot } from './snapshot.js';
import { readText } from './text.js';

const functions: Omit<InjectedApi, 'version'> = {
  snapshot,
  pointFor,
  clickDom,
  focus,
  checkTyping,
  fill,
  rectFor,
  elementFor,
  selectOptions,
  scrollState,
  focusedInfo,
  elementInfo,
  elementInfoAt,
  readText,
  findText,
  query,
  similar,
  extract,
  check,
  visibleHtml,
  loginView,
  submitFor,
  secretTarget,
  maskSecret,
  documentStamp,
  remaskSecrets,
  listItems,
  watchChange,
  changed,
  fileLinks,
  crossFrames,
  frameOwner,
  frameBox,
  frameHit,
  reserveFrame,
};

function answering<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => InjectedAnswer<R> {
  return (...args) => {
    try {
      const value = fn(...args);
      // An async function (changed) answers the same envelope once it settles; Tab.call awaits the promise.
      if (value instanceof Promise) return value.then((v) => ({ ok: true, value: v }), failed) as unknown as InjectedAnswer<R>;
      return { ok: true, value };
    } catch (e) {
      return failed(e);
    }
  };
}

function failed(e: unknown): Extract<InjectedAnswer<never>, { ok: false }> {
  if (e instanceof InjectedError) return { ok: false, code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) };
  // A bug of ours or a DOM exception we did not foresee: still an answer, never a bare throw.
  return { ok: false, code: 'action_failed', message: `in-page script failed: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}` };
}

const api = { version: '1' } as Record<string, unknown>;
for (const name of Object.keys(functions) as InjectedFunctionName[]) api[name] = answering(functions[name] as (...a: unknown[]) => unknown);

const g = globalThis as unknown as { __browserd?: InjectedWorld };
if (!g.__browserd) Object.defineProperty(g, '__browserd', { value: Object.freeze(api), configurable: false, enumerable: false, writable: false });
