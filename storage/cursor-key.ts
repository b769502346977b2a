/**
 * The secret a store signs its cursors with, one per store and data dir: a caller can hand back only a cursor
 * this server gave that caller (never one it edited, or another user's).
 */
import { randomBytes } from 'node:crypto';
import type { Db } from './db.js';

export function cursorKey(db: Db, name: string): Buffer {
  let k = db.meta.get(name) as string | undefined;
  if (!k) {
    k = randomBytes(32).toString('base64');
    db.meta.putSync(name, k);
  }
  return Buffer.from(k, 'base64');
}
