/**
 * The filter lists block_ads reads, and what is wrong when they are not there. EasyList and EasyPrivacy come
 * from Debian's webext-ublock-origin-chromium (installed with chromium, upgraded with the system), so a host
 * never downloads a list and an upgrade reaches us as new files.
 */
import { statSync } from 'node:fs';
import { DEBIAN_FILTER_LISTS, DEBIAN_LISTS_PACKAGE } from '../config.js';

/** A list as found on disk: its size and mtime key the parsed cache, so a changed file is parsed again. */
export interface ListFile {
  path: string;
  size: number;
  mtimeMs: number;
}

export interface ListsProblem {
  message: string;
  next: string;
  missing: string[];
}

/** The lists that are there (regular files), or what is missing and what to do about it. */
export function findLists(paths: readonly string[]): { ok: true; files: ListFile[] } | { ok: false; problem: ListsProblem } {
  const files: ListFile[] = [];
  const missing: string[] = [];
  for (const path of paths) {
    try {
      const st = statSync(path);
      if (!st.isFile()) throw new Error('not a file');
      files.push({ path, size: st.size, mtimeMs: st.mtimeMs });
    } catch {
      missing.push(path);
    }
  }
  if (!paths.length) return { ok: false, problem: { message: 'no filter list is configured', next: `Install ${DEBIAN_LISTS_PACKAGE} or name lists in BROWSERD_FILTER_LISTS, then restart browserd.`, missing: [] } };
  if (!missing.length) return { ok: true, files };
  // Every list named must be there: blocking with half the lists would look on and quietly let trackers through.
  const debian = missing.filter((p) => DEBIAN_FILTER_LISTS.includes(p));
  const next = debian.length
    ? `Install Debian's ${DEBIAN_LISTS_PACKAGE} (apt-get install ${DEBIAN_LISTS_PACKAGE}; npm start does it when run as root), then change block_ads or restart browserd.`
    : 'Fix BROWSERD_FILTER_LISTS (colon- or comma-separated paths of readable files) and restart browserd.';
  return { ok: false, problem: { message: `filter list${missing.length > 1 ? 's' : ''} missing: ${missing.join(', ')}`, next, missing } };
}
