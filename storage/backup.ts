/**
 * A copy of a data dir that a daemon can start from, taken while the daemon runs: the store through LMDB's own
 * copy (one read transaction, so every record is as of one instant and writers go on), then the users'
 * profiles, files, uploads and cached responses. HAR recordings (emptied at every start) and the parsed filter
 * lists (rebuilt) are not copied. The vault key is left out unless asked for: a copy holding the store and its
 * key opens every saved secret, so the two are best kept apart.
 */
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { copyStore } from './db.js';
import { bytesUnder } from './dir-bytes.js';
import { leftOutOfProfileCopy } from './profile-copy.js';
import { privateDir, privateFile } from './private-fs.js';

/** Per-user folders beside the store that the store's rows point into: files, pages' uploads, cached responses. */
const USER_DATA = ['files', 'uploads', 'cache'];

export interface BackupSummary {
  to: string;
  storeBytes: number;
  profiles: number;
  /** Bytes of files, uploads and cached responses. */
  fileBytes: number;
  vaultKey: 'copied' | 'left out' | 'none on disk';
}

export class BackupError extends Error {}

/**
 * Copies a tree that a running browser may be writing: a file that goes away between the listing and its copy
 * (a journal, a temp file) is skipped, as a crash at that instant would have left it.
 */
function copyLiveTree(from: string, to: string, skip: (name: string) => boolean): void {
  mkdirSync(to, { recursive: true, mode: 0o700 });
  let entries;
  try {
    entries = readdirSync(from, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  for (const e of entries) {
    if (skip(e.name)) continue;
    const src = join(from, e.name);
    const dst = join(to, e.name);
    if (e.isDirectory()) copyLiveTree(src, dst, skip);
    else if (e.isFile()) {
      try {
        copyFileSync(src, dst);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
  }
}

export async function backupDataDir(dataDir: string, to: string, opts: { withVaultKey?: boolean } = {}): Promise<BackupSummary> {
  const store = join(dataDir, 'browserd.lmdb');
  if (!existsSync(store)) throw new BackupError(`${dataDir} holds no browserd store (browserd.lmdb)`);
  // A copy inside what it copies would copy itself without end.
  if (`${resolve(to)}${sep}`.startsWith(`${resolve(dataDir)}${sep}`)) throw new BackupError(`${to} is inside the data dir ${dataDir}: put the copy somewhere else`);
  if (existsSync(to) && !statSync(to).isDirectory()) throw new BackupError(`${to} is a file: name a new directory for the copy`);
  if (existsSync(to) && readdirSync(to).length) throw new BackupError(`${to} is not empty: name a new directory for the copy`);
  mkdirSync(to, { recursive: true });
  privateDir(to);

  await copyStore(dataDir, join(to, 'browserd.lmdb'));
  privateFile(join(to, 'browserd.lmdb'));

  const profilesDir = join(dataDir, 'profiles');
  const profiles = existsSync(profilesDir) ? readdirSync(profilesDir).length : 0;
  if (profiles) copyLiveTree(profilesDir, join(to, 'profiles'), leftOutOfProfileCopy);
  for (const dir of USER_DATA) if (existsSync(join(dataDir, dir))) copyLiveTree(join(dataDir, dir), join(to, dir), () => false);

  const key = join(dataDir, 'vault.key');
  let vaultKey: BackupSummary['vaultKey'] = existsSync(key) ? 'left out' : 'none on disk';
  if (opts.withVaultKey && existsSync(key)) {
    cpSync(key, join(to, 'vault.key'));
    privateFile(join(to, 'vault.key'));
    vaultKey = 'copied';
  }
  return { to, storeBytes: statSync(join(to, 'browserd.lmdb')).size, profiles, fileBytes: USER_DATA.reduce((n, dir) => n + bytesUnder(join(to, dir)), 0), vaultKey };
}
