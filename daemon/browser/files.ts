/** Putting files from disk into a page's <input type=file>. */
import { elementObject, type Tab } from './tab.js';

/** Chromium reads the files from disk when the page sends them, so the paths must stay until then. */
export async function setInputFiles(tab: Tab, ref: string, paths: string[]): Promise<void> {
  // A file input inside a cross-origin frame is set through that frame's own session.
  const { objectId, session } = await elementObject(tab, ref);
  await tab.sendOn('DOM.setFileInputFiles', { files: paths, objectId }, session);
}
