/**
 * One user, whole, as a stream a host writes and another reads: every row of theirs in the store
 * (storage/user-rows.ts), then their directories (browser profiles, files, uploads, cached responses). Framed as
 * a 4-byte length and a msgpack object per frame; the last frame counts what came before it, so a stream cut
 * anywhere is refused rather than half taken.
 *
 * Chromium's own caches in a profile (HTTP, code, GPU, shaders) are left out: they rebuild themselves and are
 * most of a profile's size. Cookies, local storage, IndexedDB, history and logins go.
 */
import { createReadStream, existsSync, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readSync, closeSync, writeFileSync, appendFileSync, renameSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join, sep } from 'node:path';
import { pack, unpack } from 'msgpackr';
import { rowOwner, userRows, type UserRow } from '../../storage/user-rows.js';
import { USER_NAME } from '../../protocol/ids.js';
import type { Db } from '../../storage/db.js';
import { leftOutOfProfileCopy } from '../../storage/profile-copy.js';

export const ARCHIVE_VERSION = 1;
const CHUNK = 1 << 20;


/** The user's directories under the data dir, relative to it. */
export function userDirs(user: string): string[] {
  const cacheDir = createHash('sha256').update(user).digest('hex').slice(0, 32);
  return [join('profiles', user), join('files', user), join('uploads', user), join('cache', cacheDir)];
}

type Frame =
  | { f: 'head'; version: number; user: string; key?: string }
  | { f: 'row'; table: string; key: unknown; value: Buffer }
  | { f: 'file'; path: string; mode: number }
  | { f: 'data'; b: Buffer }
  | { f: 'end'; rows: number; files: number; bytes: number };

const frame = (o: Frame) => {
  const body = pack(o);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(body.length);
  return Buffer.concat([len, body]);
};

function* filesUnder(dataDir: string, rel: string): Generator<string> {
  const abs = join(dataDir, rel);
  if (!existsSync(abs)) return;
  for (const e of readdirSync(abs, { withFileTypes: true })) {
    if (leftOutOfProfileCopy(e.name)) continue;
    const r = join(rel, e.name);
    if (e.isDirectory()) yield* filesUnder(dataDir, r);
    else if (e.isFile()) yield r;
  }
}

/** The archive of `user`, as chunks to send. The user's browsers must be stopped: files are read as they are. */
export async function* exportUser(db: Db, dataDir: string, user: string, key: string | undefined): AsyncGenerator<Buffer> {
  yield frame({ f: 'head', version: ARCHIVE_VERSION, user, key });
  let rows = 0;
  let files = 0;
  let bytes = 0;
  for (const r of userRows(db, user)) {
    rows++;
    yield frame({ f: 'row', table: r.table, key: r.key, value: r.value });
  }
  for (const dir of userDirs(user)) {
    for (const rel of filesUnder(dataDir, dir)) {
      files++;
      yield frame({ f: 'file', path: rel.split(sep).join('/'), mode: lstatSync(join(dataDir, rel)).mode & 0o777 });
      for await (const b of createReadStream(join(dataDir, rel), { highWaterMark: CHUNK })) {
        bytes += (b as Buffer).length;
        yield frame({ f: 'data', b: b as Buffer });
      }
    }
  }
  yield frame({ f: 'end', rows, files, bytes });
}

export interface ReadArchive {
  user: string;
  /** The routing key in the user's record (the one their token carries), when the archive has that record. */
  key?: string;
  rows: UserRow[];
  files: number;
  bytes: number;
}

/**
 * Reads an archive saved at `file`: its rows in memory, its files written under `stage` (a directory beside the
 * data dir's own, moved into place by `placeFiles`). Throws for a stream that is cut, out of order or not ours.
 */
export function readArchive(file: string, stage: string): ReadArchive {
  const fd = openSync(file, 'r');
  let position = 0;
  const read = (n: number): Buffer | undefined => {
    const b = Buffer.alloc(n);
    let got = 0;
    while (got < n) {
      const k = readSync(fd, b, got, n - got, null);
      position += k;
      if (!k) {
        if (got) throw new Error('the archive ends inside a frame: it was cut');
        return undefined;
      }
      got += k;
    }
    return b;
  };
  const size = fstatSync(fd).size;
  const next = (): Frame | undefined => {
    const len = read(4);
    if (!len) return undefined;
    // A length past what the file still holds is a cut or forged frame: refused before a buffer of it is made
    // (four bytes could otherwise ask for 4 GB).
    const n = len.readUInt32BE();
    if (n > size - position) throw new Error('a frame of the archive is longer than what follows it: it was cut');
    const body = read(n);
    if (!body) throw new Error('the archive ends inside a frame: it was cut');
    return unpack(body) as Frame;
  };
  try {
    const head = next();
    if (head?.f !== 'head' || head.version !== ARCHIVE_VERSION) throw new Error('not a browserd user archive of this version');
    // The name becomes directory names here: only a well-formed user name is taken.
    if (typeof head.user !== 'string' || !USER_NAME.test(head.user)) throw new Error('the archive names no valid user');
    const out: ReadArchive = { user: head.user, rows: [], files: 0, bytes: 0 };
    let current: string | undefined;
    for (;;) {
      const f = next();
      if (!f) throw new Error('the archive has no end frame: it was cut');
      if (f.f === 'row') {
        // Every row must be this user's by its table's own rule: an archive cannot write another user's data.
        const row = { table: f.table, key: f.key, value: Buffer.from(f.value) };
        const v = unpack(row.value) as unknown;
        if (rowOwner(row, v) !== out.user) throw new Error(`the archive holds a row of ${f.table} that is not ${out.user}'s`);
        // The key's owner is not enough: the daemon reads who a record is from inside it too (a users row's id is
        // who its token acts as; a record's `user` is whose it is). A users row of mallory saying id "alice" made
        // mallory's token act as alice (test/attacks/fleet-import.test.ts).
        if (v && typeof v === 'object' && !Buffer.isBuffer(v)) {
          const rec = v as { user?: unknown; id?: unknown; name?: unknown; key?: unknown };
          if (rec.user !== undefined && rec.user !== out.user) throw new Error(`the archive holds a row of ${f.table} whose record names another user`);
          if (f.table === 'users' && (rec.id !== out.user || rec.name !== out.user)) throw new Error(`the archive's user record is not ${out.user}'s`);
          // The routing key that counts is the one in the user's record, whatever the head says.
          if (f.table === 'users') out.key = typeof rec.key === 'string' ? rec.key : undefined;
        } else if (f.table === 'users') throw new Error(`the archive's user record is not ${out.user}'s`);
        out.rows.push(row);
      }
      else if (f.f === 'file') {
        const parts = f.path.split('/');
        if (parts.some((p) => p === '..' || p === '' || p === '.') || !userDirs(out.user).some((d) => f.path.startsWith(`${d.split(sep).join('/')}/`))) {
          throw new Error(`the archive names a file outside the user's directories: ${f.path}`);
        }
        current = join(stage, ...parts);
        mkdirSync(dirname(current), { recursive: true, mode: 0o700 });
        writeFileSync(current, '', { mode: f.mode & 0o700 });
        out.files++;
      } else if (f.f === 'data') {
        if (!current) throw new Error('file data before any file in the archive');
        appendFileSync(current, f.b);
        out.bytes += f.b.length;
      } else if (f.f === 'end') {
        if (f.rows !== out.rows.length || f.files !== out.files || f.bytes !== out.bytes) throw new Error(`the archive's count does not match what it held (${out.rows.length} rows, ${out.files} files, ${out.bytes} bytes)`);
        return out;
      } else throw new Error('an unknown frame in the archive');
    }
  } finally {
    closeSync(fd);
  }
}

/** Moves staged directories into the data dir, replacing what is there (nothing, for a user new to this host). */
export function placeFiles(stage: string, dataDir: string, user: string): void {
  for (const dir of userDirs(user)) {
    const from = join(stage, dir);
    if (!existsSync(from)) continue;
    const to = join(dataDir, dir);
    rmSync(to, { recursive: true, force: true });
    mkdirSync(dirname(to), { recursive: true, mode: 0o700 });
    renameSync(from, to);
  }
}

/** Removes the user's directories (after they moved away). */
export function removeUserDirs(dataDir: string, user: string): void {
  for (const dir of userDirs(user)) rmSync(join(dataDir, dir), { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
}
