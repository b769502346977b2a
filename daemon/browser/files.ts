/** Putting files from disk into a page's <input type=file>. */
import { elementObjectId, type Tab } from './tab.js';

/** Chromium reads the files from disk when the page sends them, so the paths must stay until then. */
export async function setInputFiles(tab: Tab, ref: string, paths: string[]): Promise<void> {
  const objectId = await elementObjectId(tab, ref);
  await tab.send('DOM.setFileInputFiles', { files: paths, objectId });
}
