/**
 * The parsed lists, serialized in the data dir: a start with the same lists loads them in a few milliseconds
 * instead of parsing for half a second. The file's name carries a hash of everything the parse depends on
 * (engine version, options, each list's path, size and mtime), so an upgraded package or an edited list of
 * our own is parsed again, and a stale file is never read.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { privateDir } from '../../storage/private-fs.js';
import type { ListFile } from './lists.js';

const PREFIX = 'engine-';
const SUFFIX = '.bin';

export function cacheDir(dataDir: string): string {
  return join(dataDir, 'adblock');
}

/** engineVersion: the adblocker package's ENGINE_VERSION (passed in: the package loads only once block_ads is used). */
export function cacheKey(files: ListFile[], options: object, engineVersion: number): string {
  const h = createHash('sha256');
  h.update(JSON.stringify({ engine: engineVersion, options, files: files.map((f) => [f.path, f.size, Math.round(f.mtimeMs)]) }));
  return h.digest('hex').slice(0, 24);
}

export function cachePath(dataDir: string, key: string): string {
  return join(cacheDir(dataDir), `${PREFIX}${key}${SUFFIX}`);
}

/** The cached engine bytes for this key, or undefined when there are none. */
export async function readCached(dataDir: string, key: string): Promise<Uint8Array | undefined> {
  try {
    return new Uint8Array(await readFile(cachePath(dataDir, key)));
  } catch {
    return undefined;
  }
}

/** Writes the bytes whole (a crash mid-write leaves no half file under the real name) and drops older keys. */
export async function writeCached(dataDir: string, key: string, bytes: Uint8Array): Promise<void> {
  const dir = cacheDir(dataDir);
  privateDir(dir);
  const final = cachePath(dataDir, key);
  const tmp = `${final}.${process.pid}.tmp`;
  await writeFile(tmp, bytes);
  await rename(tmp, final);
  for (const name of await readdir(dir)) {
    if (name.startsWith(PREFIX) && join(dir, name) !== final) await rm(join(dir, name), { force: true });
  }
}
