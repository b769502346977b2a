/**
 * A user's files (PDFs, uploads to pages, downloads, stored conversions): plain files under
 * <data>/files/<user>/, names checked. New files come in through addFile/addBytes, which keep one copy of
 * the same bytes (sha-256) and never overwrite a name that holds other bytes.
 */
import { privateDir } from './private-fs.js';
import { createReadStream, openSync, fstatSync, closeSync, readdirSync, readFileSync, statSync, writeFileSync, existsSync, renameSync, linkSync, unlinkSync, copyFileSync, chmodSync, constants, type ReadStream, type Stats } from 'node:fs';
import { createHash } from 'node:crypto';
import { join, extname } from 'node:path';
import { own } from '../protocol/own.js';

/** Letters, digits, dot, dash, underscore, space; no leading dot; no path separators. */
export const FILE_NAME = /^[A-Za-z0-9_][A-Za-z0-9 ._-]{0,199}$/;
const MAX_NAME = 200;

const MIME: Record<string, string> = {
  '.pdf': 'application/pdf', '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.txt': 'text/plain', '.csv': 'text/csv',
  '.json': 'application/json', '.html': 'text/html', '.htm': 'text/html', '.md': 'text/markdown', '.gif': 'image/gif', '.webp': 'image/webp', '.zip': 'application/zip',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.pptx': 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  '.doc': 'application/msword', '.xls': 'application/vnd.ms-excel', '.ppt': 'application/vnd.ms-powerpoint',
  '.odt': 'application/vnd.oasis.opendocument.text', '.ods': 'application/vnd.oasis.opendocument.spreadsheet',
  '.odp': 'application/vnd.oasis.opendocument.presentation', '.rtf': 'application/rtf', '.epub': 'application/epub+zip',
  '.tsv': 'text/tab-separated-values', '.xml': 'application/xml', '.rss': 'application/rss+xml', '.atom': 'application/atom+xml',
  '.svg': 'image/svg+xml', '.mp3': 'audio/mpeg', '.mp4': 'video/mp4', '.webm': 'video/webm', '.wav': 'audio/wav', '.ogg': 'audio/ogg',
  '.gz': 'application/gzip', '.tar': 'application/x-tar', '.7z': 'application/x-7z-compressed',
};

export function mimeOf(name: string): string {
  return own(MIME, extname(name).toLowerCase()) ?? 'application/octet-stream';
}

/**
 * A name a page suggested (Content-Disposition, a URL's last segment) made one the store accepts: accents
 * dropped, every other character outside FILE_NAME squeezed to `_`, no leading dot, at most 200 characters
 * with the extension kept so the MIME type and the converters still see what it is.
 */
export function safeFileName(raw: string, fallback = 'download'): string {
  const base = raw.split(/[/\\]/).pop() ?? '';
  const ascii = base.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
  let name = ascii.replace(/[^A-Za-z0-9 ._-]+/g, '_').replace(/\.{2,}/g, '.').trim();
  name = name.replace(/^[ .-]+/, '');
  let ext = extname(name);
  if (!/^\.[A-Za-z0-9]{1,16}$/.test(ext)) ext = '';
  let stem = (ext ? name.slice(0, -ext.length) : name).replace(/[ .]+$/, '');
  if (!stem || stem === '_') stem = fallback;
  stem = stem.slice(0, MAX_NAME - ext.length);
  const out = `${stem}${ext}`;
  return FILE_NAME.test(out) ? out : fallback;
}

/** `report.pdf`, then `report-2.pdf`, `report-3.pdf`...: a taken name's next candidate, still within FILE_NAME. */
export function numberedName(name: string, n: number): string {
  if (n < 2) return name;
  const ext = extname(name);
  const suffix = `-${n}`;
  const stem = (ext ? name.slice(0, -ext.length) : name).slice(0, MAX_NAME - ext.length - suffix.length);
  return `${stem}${suffix}${ext}`;
}

export interface FileInfo { name: string; size: number; mimeType: string; modifiedAt: string }

/** What addFile/addBytes did: the file as stored, and whether it was already there (same bytes, one copy). */
export interface AddedFile extends FileInfo { existing: boolean; sha256: string }

/** A file's hash is good while the file is the same one: same inode, size and modification time. */
interface HashEntry { ino: number; size: number; mtimeMs: number; sha256: string }

export async function sha256OfFile(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}

export class FileStore {
  /** sha-256 of files already hashed, by path: a download compares against same-size files without re-reading them. */
  private hashes = new Map<string, HashEntry>();
  /** Per user, the tail of the additions under way: one at a time, so two cannot pick the same free name. */
  private adding = new Map<string, Promise<unknown>>();

  /**
   * Set by the daemon (quotas/storage.ts): throws when `bytes` more would pass the user's storage quota. `staged`
   * is a file already on disk that the store moves in, so it is counted once. Asked before anything is written.
   */
  guard?: (user: string, bytes: number, staged?: string) => void;

  constructor(private dataDir: string) {}

  /** Drops the hashes kept of the user's files (their directory was replaced or removed by a move). */
  forget(user: string): void {
    const under = `${join(this.dataDir, 'files', user)}/`;
    for (const path of [...this.hashes.keys()]) if (path.startsWith(under)) this.hashes.delete(path);
  }

  dir(user: string): string {
    privateDir(join(this.dataDir, 'files'));
    return privateDir(join(this.dataDir, 'files', user));
  }

  /**
   * Where a browser's downloads are written until they are complete: inside the user's files dir (so the move
   * into it is a rename on one filesystem, never a copy) yet under a dot name no tool or route can address or list.
   */
  stagingDir(user: string, browser: string): string {
    privateDir(join(this.dir(user), '.downloading'));
    return privateDir(join(this.dir(user), '.downloading', browser));
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
    // The file it replaces goes: only the growth counts.
    this.guard?.(user, data.length - (this.info(user, name)?.size ?? 0));
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

  /** The file's bytes as a stream (downloads can be a gigabyte: never read whole), or undefined when absent. */
  stream(user: string, name: string): ReadStream | undefined {
    const p = this.path(user, name);
    if (!p || !existsSync(p)) return undefined;
    return createReadStream(p, { highWaterMark: 64 * 1024 });
  }

  info(user: string, name: string): FileInfo | undefined {
    const p = this.path(user, name);
    if (!p || !existsSync(p)) return undefined;
    const s = statSync(p);
    if (!s.isFile()) return undefined;
    return { name, size: s.size, mimeType: mimeOf(name), modifiedAt: s.mtime.toISOString() };
  }

  list(user: string): FileInfo[] {
    return readdirSync(this.dir(user))
      .filter((n) => this.validName(n) && !n.endsWith('.tmp'))
      .map((n) => this.info(user, n))
      .filter((f): f is FileInfo => !!f)
      .sort((a, b) => b.modifiedAt.localeCompare(a.modifiedAt));
  }

  /** The sha-256 of a stored file (hashed once per version of the file), or undefined when there is none. */
  async sha256(user: string, name: string): Promise<string | undefined> {
    const p = this.path(user, name);
    if (!p) return undefined;
    let s: Stats;
    try {
      s = statSync(p);
    } catch {
      return undefined;
    }
    if (!s.isFile()) return undefined;
    const known = this.hashes.get(p);
    if (known && known.ino === s.ino && known.size === s.size && known.mtimeMs === s.mtimeMs) return known.sha256;
    const sha256 = await sha256OfFile(p);
    this.hashes.set(p, { ino: s.ino, size: s.size, mtimeMs: s.mtimeMs, sha256 });
    return sha256;
  }

  /**
   * Moves a finished file (a browser download) into the user's files under `name` made safe. The same bytes
   * already stored: the new copy is dropped and the stored one answered. The name taken by other bytes: the
   * next free `name-2.ext`. The bytes never pass through memory (hashed streaming, moved by link/rename).
   */
  addFile(user: string, name: string, stagedPath: string): Promise<AddedFile> {
    return this.serial(user, async () => {
      const size = statSync(stagedPath).size;
      const sha256 = await sha256OfFile(stagedPath);
      const same = await this.findSame(user, size, sha256, safeFileName(name));
      if (same) {
        unlinkSync(stagedPath);
        return { ...this.info(user, same)!, existing: true, sha256 };
      }
      this.guard?.(user, size, stagedPath);
      const placed = this.place(user, safeFileName(name), (target) => moveNoClobber(stagedPath, target));
      return this.added(user, placed, sha256);
    });
  }

  /** As addFile for bytes held in memory (a stored conversion): one copy of the same bytes, a free name. */
  addBytes(user: string, name: string, data: Buffer): Promise<AddedFile> {
    return this.serial(user, async () => {
      const sha256 = createHash('sha256').update(data).digest('hex');
      const same = await this.findSame(user, data.length, sha256, safeFileName(name));
      if (same) return { ...this.info(user, same)!, existing: true, sha256 };
      this.guard?.(user, data.length);
      const placed = this.place(user, safeFileName(name), (target) => {
        const tmp = `${target}.${process.pid}.tmp`;
        writeFileSync(tmp, data, { mode: 0o600 });
        try {
          moveNoClobber(tmp, target);
        } finally {
          if (existsSync(tmp)) unlinkSync(tmp);
        }
      });
      return this.added(user, placed, sha256);
    });
  }

  /**
   * The file as a stream, only if it still holds the bytes with this sha-256 (a share link's promise). The
   * check and the stream are about one and the same file: the descriptor is opened first and must be the very
   * version that was hashed, so a file replaced between the check and the read cannot be sent instead.
   */
  async openIfHash(user: string, name: string, sha256: string): Promise<{ stream: ReadStream; size: number } | undefined> {
    const p = this.path(user, name);
    if (!p || (await this.sha256(user, name)) !== sha256) return undefined;
    let fd: number;
    try {
      fd = openSync(p, 'r');
    } catch {
      return undefined;
    }
    const s = fstatSync(fd);
    const h = this.hashes.get(p);
    if (!h || h.sha256 !== sha256 || h.ino !== s.ino || h.size !== s.size || h.mtimeMs !== s.mtimeMs) {
      closeSync(fd);
      return undefined;
    }
    return { stream: createReadStream('', { fd, highWaterMark: 64 * 1024 }), size: s.size };
  }

  /** Deletes a stored file; false when there was none. */
  remove(user: string, name: string): boolean {
    const p = this.path(user, name);
    if (!p || !existsSync(p)) return false;
    unlinkSync(p);
    this.hashes.delete(p);
    return true;
  }

  private added(user: string, name: string, sha256: string): AddedFile {
    const p = this.path(user, name)!;
    chmodSync(p, 0o600);
    const s = statSync(p);
    this.hashes.set(p, { ino: s.ino, size: s.size, mtimeMs: s.mtimeMs, sha256 });
    return { ...this.info(user, name)!, existing: false, sha256 };
  }

  /** A stored file with these bytes (the wanted name first); only files of the same size are hashed. */
  private async findSame(user: string, size: number, sha256: string, wanted: string): Promise<string | undefined> {
    const candidates = this.list(user).filter((f) => f.size === size).map((f) => f.name);
    candidates.sort((a, b) => (a === wanted ? -1 : b === wanted ? 1 : 0));
    for (const n of candidates) if ((await this.sha256(user, n)) === sha256) return n;
    return undefined;
  }

  /** Puts a file under the first free name of name, name-2, name-3...; `put` must fail with EEXIST on a taken one. */
  private place(user: string, name: string, put: (target: string) => void): string {
    for (let n = 1; n < 10000; n++) {
      const candidate = numberedName(name, n);
      try {
        put(join(this.dir(user), candidate));
        return candidate;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
    }
    throw new Error(`no free name for ${name}`);
  }

  private serial<T>(user: string, job: () => Promise<T>): Promise<T> {
    const prev = this.adding.get(user) ?? Promise.resolve();
    const run = prev.then(job, job);
    const tail = run.catch(() => undefined);
    this.adding.set(user, tail);
    void tail.then(() => {
      if (this.adding.get(user) === tail) this.adding.delete(user);
    });
    return run;
  }
}

/**
 * Moves a file to `target` only if nothing is there (EEXIST otherwise): link + unlink is atomic about the
 * name, where rename would silently replace a file stored meanwhile. Across filesystems (EXDEV) the kernel
 * copies it (copyFile, exclusive), still never through our memory.
 */
function moveNoClobber(from: string, target: string) {
  try {
    linkSync(from, target);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'ENOTSUP') throw e;
    copyFileSync(from, target, constants.COPYFILE_EXCL);
  }
  unlinkSync(from);
}
