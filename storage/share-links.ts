/**
 * Share links of stored files (`/dl/<token>`, no bearer): the token is the credential. It binds the user,
 * the file name, the file's sha-256 and an expiry, signed with HMAC-SHA-256 under a key that never leaves
 * the data dir. Nothing is stored per link: a link ends by expiring, or when the file is deleted or holds
 * other bytes than the ones it was made for.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ROUTING_KEY_SHAPE, routed } from './routing-key.js';
import { openSync, readFileSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { privateFile } from './private-fs.js';

export interface ShareLinkPayload {
  /** User id. */
  u: string;
  /** File name in that user's files. */
  f: string;
  /** sha-256 (hex) of the bytes the link was made for. */
  h: string;
  /** Expiry, unix seconds. */
  e: number;
}

const KEY_FILE = 'share-link.key';
const KEY_BYTES = 32;

const b64url = (b: Buffer) => b.toString('base64url');

/**
 * Base64url decoding that refuses anything but the one canonical spelling: Node's decoder skips stray
 * characters and ignores the spare bits of the last one, so two tokens differing in one character could
 * otherwise decode to the same bytes.
 */
function strictB64url(s: string): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(s)) return undefined;
  const b = Buffer.from(s, 'base64url');
  return b64url(b) === s ? b : undefined;
}

/**
 * Made per link made or opened, on purpose: the key file is read each time, so deleting it ends every link at
 * once without a restart (as docs/browsing.md promises).
 */
export class ShareLinks {
  private key?: Buffer;

  constructor(private dataDir: string) {}

  /** The signing key: 32 random bytes in a 0600 file, made on first use and kept across restarts. */
  private signingKey(): Buffer {
    if (this.key) return this.key;
    const path = join(this.dataDir, KEY_FILE);
    try {
      // 'wx': two daemons (or two calls) racing to make it cannot both write one; the loser reads the winner's.
      const fd = openSync(path, 'wx', 0o600);
      try {
        writeSync(fd, randomBytes(KEY_BYTES));
      } finally {
        closeSync(fd);
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    privateFile(path);
    const key = readFileSync(path);
    if (key.length !== KEY_BYTES) throw new Error(`${path} does not hold a ${KEY_BYTES}-byte key; delete it to make a new one (every share link made so far stops opening)`);
    this.key = key;
    return key;
  }

  private mac(payload: Buffer): Buffer {
    return createHmac('sha256', this.signingKey()).update(payload).digest();
  }

  /** A signed token; `key`, the user's routing key, goes first for a fleet's router (routing-key.ts). */
  make(p: ShareLinkPayload, key?: string): string {
    const payload = Buffer.from(JSON.stringify({ u: p.u, f: p.f, h: p.h, e: p.e }), 'utf8');
    return routed(key, `${b64url(payload)}.${b64url(this.mac(payload))}`);
  }

  /**
   * The payload of a token this key signed, or undefined: malformed, altered or signed by another key. Expiry
   * is the caller's check (it knows the clock it answers by), as are the file and its hash.
   */
  verify(token: string, keyOf: (user: string) => string | undefined = () => undefined): ShareLinkPayload | undefined {
    const parts = token.split('.');
    // `<key>.` before the signed part is the routing key; it must be the one of the user the payload names.
    const key = parts.length === 3 ? parts.shift()! : undefined;
    if (parts.length !== 2 || (key !== undefined && !ROUTING_KEY_SHAPE.test(key))) return undefined;
    const payload = strictB64url(parts[0]!);
    const sig = strictB64url(parts[1]!);
    if (!payload || !sig) return undefined;
    const want = this.mac(payload);
    if (sig.length !== want.length || !timingSafeEqual(sig, want)) return undefined;
    try {
      const p = JSON.parse(payload.toString('utf8')) as ShareLinkPayload;
      if (typeof p.u !== 'string' || typeof p.f !== 'string' || typeof p.h !== 'string' || !Number.isInteger(p.e)) return undefined;
      if (key !== undefined && keyOf(p.u) !== key) return undefined;
      return p;
    } catch {
      return undefined;
    }
  }
}
