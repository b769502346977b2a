/** How many bytes a directory tree holds on disk: the storage quota counts users by it, and backups report with it. */
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Bytes under a directory, its subdirectories included (symlinks are not followed); 0 when it does not exist. */
export function bytesUnder(dir: string, except?: string): number {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  let n = 0;
  for (const e of entries) {
    const p = join(dir, e.name);
    if (p === except) continue;
    if (e.isDirectory()) n += bytesUnder(p, except);
    else {
      try {
        n += lstatSync(p).size;
      } catch {
        // removed meanwhile: it no longer counts
      }
    }
  }
  return n;
}
