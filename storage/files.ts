/** A user's files (PDFs, uploads to pages, downloads): plain files under <data>/files/<user>/, names checked. */
import { privateDir } from './private-fs.js';
import { readdirSync, readFileSync, statSync, writeFileSync, existsSync, renameSync } from 'node:fs';
import { join, extname } from 'node:path';

/** Letters, digits, dot, dash, underscore, space; no leading dot; no path separators. */
export const FILE_NAME = /^[A-Za-z0-9_][A-Za-z0-9 ._-]{0,199}$/;

const MIME: Record<string, string> = {
  '.pdf': 'application/pdf', '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.txt': 'text/plain', '.csv': 'text/csv',
  '.json': 'application/json', '.html': 'text/html', '.md': 'text/markdown', '.gif': 'image/gif', '.webp': 'image/webp', '.zip': 'application/zip',
};

export function mimeOf(name: string): string {
  return MIME[extname(name).toLowerCase()] ?? 'application/octet-stream';
}

export interface FileInfo { name: string; size: number; mimeType: string; modifiedAt: string }

export class FileStore {
  constructor(private dataDir: string) {}

  dir(user: string): string {
    privateDir(join(this.dataDir, 'files'));
    return privateDir(join(this.dataDir, 'files', user));
  }

  validName(name: string): boolean {
    return FILE_NAME.test(name) && !name.includes('..');
  }

  path(user: string, name: string): string | undefined {
    if (!this.validName(name)) return undefined;
    return join(this.dir(user), name);
  }

  /** Writes atomically (temp file + rename) so a crash never leaves half a file under the real name. */
  write(user: string, name: string, data: Buffer): FileInfo {
    const p = this.path(user, name);
    if (!p) throw new Error(`"${name}" is not a valid file name`);
    const tmp = `${p}.${process.pid}.tmp`;
    writeFileSync(tmp, data, { mode: 0o600 });
    renameSync(tmp, p);
    return this.info(user, name)!;
  }

  read(user: string, name: string): Buffer | undefined {
    const p = this.path(user, name);
    if (!p || !existsSync(p)) return undefined;
    return readFileSync(p);
  }

  info(user: string, name: string): FileInfo | undefined {
    const p = this.path(user, name);
    if (!p || !existsSync(p)) return undefined;
    const s = statSync(p);
    return { name, size: s.size, mimeType: mimeOf(name), modifiedAt: s.mtime.toISOString() };
  }

  list(user: string): FileInfo[] {
    return readdirSync(this.dir(user))
      .filter((n) => this.validName(n) && !n.endsWith('.tmp'))
      .map((n) => this.info(user, n)!)
      .sort((a, b) => b.modifiedAt.localeCompare(a.modifiedAt));
  }
}
