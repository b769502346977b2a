/**
 * Reading one page in a read-mode tab of the user's own profile: navigate, then the page's visible HTML (the
 * in-page visibility check already ran, so hidden text is out unless asked).
 * OWNER: part "output". Interface fixed by the lead; body to be written.
 */
import type { Tab } from '../browser/tab.js';
import type { PageInput } from './types.js';

export async function readInBrowser(_tab: Tab, _url: string, _opts: { includeHidden: boolean }): Promise<PageInput> {
  throw new Error('browser-reader: not built yet');
}
