/**
 * Signed cursors: a page's cursor is its position plus a MAC over the caller and what the position belongs to,
 * with a secret kept per store and data dir. A caller can hand back only a cursor this server gave that caller
 * (never one it edited, another user's, or another run's).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from './db.js';

/** A cursor that was not issued to this caller (another user's, edited or garbled). */
export class InvalidCursorError extends Error {
  constructor() {
    super('the cursor is not one this server gave you');
    this.name = 'InvalidCursorError';
  }
}

/** The store's signing secret, made on first use and kept in the meta table. */
function cursorKey(db: Db, name: string): Buffer {
  let k = db.meta.get(name) as string | undefined;
  if (!k) {
    k = randomBytes(32).toString('base64');
    db.meta.putSync(name, k);
  }
  return Buffer.from(k, 'base64');
}

export class SignedCursors {
  private readonly key: Buffer;

  /** `keyName`: the meta entry holding this store's secret (each store its own). */
  constructor(db: Db, keyName: string) {
    this.key = cursorKey(db, keyName);
  }

  private mac(scope: readonly string[], position: string): string {
    return createHmac('sha256', this.key).update([...scope, position].join('\u0000')).digest().subarray(0, 16).toString('base64url');
  }

  /** The cursor for `position` (text of the caller's choosing, no '.'), bound to `scope` (the user first). */
  issue(scope: readonly string[], position: string): string {
    return `${position}.${this.mac(scope, position)}`;
  }

  /** The position a cursor stands for, if this server issued it for this scope; `shape` is what a position looks like. */
  open(scope: readonly string[], cursor: string, shape: RegExp): string {
    const dot = cursor.lastIndexOf('.');
    const position = cursor.slice(0, dot);
    const given = cursor.slice(dot + 1);
    if (dot < 0 || !shape.test(position) || !/^[A-Za-z0-9_-]{22}$/.test(given)) throw new InvalidCursorError();
    const want = Buffer.from(this.mac(scope, position), 'base64url');
    const got = Buffer.from(given, 'base64url');
    if (got.length !== want.length || !timingSafeEqual(got, want)) throw new InvalidCursorError();
    return position;
  }
}
