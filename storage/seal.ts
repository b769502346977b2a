/**
 * Sealing secrets at rest: AES-256-GCM under the vault key, which never enters LMDB. Each sealed value is
 * bound to what it is (purpose, user, name) as associated data, so a ciphertext moved to another user's key
 * or another entry's slot fails to open instead of handing one user's secret to another.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

export interface Sealed {
  v: 1;
  iv: Buffer;
  tag: Buffer;
  ct: Buffer;
}

export class SealError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SealError';
  }
}

/** Seals and opens bytes under one 32-byte key. */
export class Sealer {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new SealError('the vault key must be 32 bytes');
  }

  /** Names the key without revealing it: two hosts' fingerprints are equal exactly when their keys are. */
  fingerprint(): string {
    return createHmac('sha256', this.key).update('browserd vault key fingerprint').digest('hex').slice(0, 16);
  }

  seal(plain: Buffer, boundTo: string): Sealed {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.key, iv);
    c.setAAD(Buffer.from(boundTo, 'utf8'));
    const ct = Buffer.concat([c.update(plain), c.final()]);
    return { v: 1, iv, tag: c.getAuthTag(), ct };
  }

  open(sealed: Sealed, boundTo: string): Buffer {
    try {
      const d = createDecipheriv('aes-256-gcm', this.key, Buffer.from(sealed.iv));
      d.setAAD(Buffer.from(boundTo, 'utf8'));
      d.setAuthTag(Buffer.from(sealed.tag));
      return Buffer.concat([d.update(Buffer.from(sealed.ct)), d.final()]);
    } catch {
      throw new SealError('a sealed value did not open: wrong vault key, or the record was moved or altered');
    }
  }

  sealJson(value: unknown, boundTo: string): Sealed {
    return this.seal(Buffer.from(JSON.stringify(value), 'utf8'), boundTo);
  }

  openJson<T>(sealed: Sealed, boundTo: string): T {
    return JSON.parse(this.open(sealed, boundTo).toString('utf8')) as T;
  }
}
