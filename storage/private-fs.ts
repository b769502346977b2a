/**
 * The data dir holds profiles (cookies, logins), tokens and user files: only the daemon's own OS user may read
 * any of it, whatever the umask the daemon was started with.
 */
import { chmodSync, existsSync, mkdirSync } from 'node:fs';

/** Creates a directory (and missing parents) readable by its owner only; tightens one that exists. */
export function privateDir(path: string): string {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  chmodSync(path, 0o700);
  return path;
}

/** Makes an existing file readable and writable by its owner only. */
export function privateFile(path: string): void {
  if (existsSync(path)) chmodSync(path, 0o600);
}
