/**
 * Entry of the in-page script: installs `globalThis.__browserd` (see api.ts) once per world. The bundle is
 * wrapped by scripts/build-injected.ts so a second evaluation in the same world changes nothing (the refs of
 * the first stay valid).
 */
import type { InjectedApi } from './api.js';
import { clickDom, elementFor, fill, focus, pointFor, rectFor, scrollState, selectOptions } from './actions.js';
import { extract } from './extract.js';
import { findText } from './find.js';
import { visibleHtml } from './html.js';
import { elementInfo, focusedInfo } from './info.js';
import { check, query } from './query.js';
import { similar } from './similar.js';
import { snapshot } from './snapshot.js';
import { readText } from './text.js';

const api: InjectedApi = {
  version: '1',
  snapshot,
  pointFor,
  clickDom,
  focus,
  fill,
  rectFor,
  elementFor,
  selectOptions,
  scrollState,
  focusedInfo,
  elementInfo,
  readText,
  findText,
  query,
  similar,
  extract,
  check,
  visibleHtml,
};

const g = globalThis as unknown as { __browserd?: InjectedApi };
if (!g.__browserd) Object.defineProperty(g, '__browserd', { value: Object.freeze(api), configurable: false, enumerable: false, writable: false });
