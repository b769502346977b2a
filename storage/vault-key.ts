/**
 * Where the vault key comes from, and proof that it is the key the vault was sealed with.
 *
 * The key is 32 bytes, from BROWSERD_VAULT_KEY (64 hex characters or base64) or else the 0600 file
 * `<data>/vault.key`. A fresh data dir gets a new key file. Once anything has been sealed, the store keeps a
 * key check (a known text sealed under the key): a missing or different key is then reported as such and the
 * vault stays locked. It is never re-keyed silently, which would orphan every saved secret without a word.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from './db.js';
import { Sealer, SealError, type Sealed } from './seal.js';
import { privateFile } from './private-fs.js';

const CHECK_TEXT = 'browserd vault key check v1';
const CHECK_BOUND = 'vault-key-check';
const CHECK_META = 'vaultKeyCheck';

export type VaultKeyState = { ok: true; sealer: Sealer; source: string } | { ok: false; problem: 'missing' | 'wrong' | 'malformed'; message: string; next: string };

export function vaultKeyPath(dataDir: string): string {
  return join(dataDir, 'vault.key');
}

/** Reads a key written as 64 hex characters or as base64 of 32 bytes; undefined when it is neither. */
export function parseVaultKey(text: string): Buffer | undefined {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(t)) {
    const b = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (b.length === 32) return b;
  }
  return undefined;
}

/**
 * Opens (or, on a data dir that has sealed nothing yet, creates) the vault key and checks it against the
 * store. Never throws for a key problem: the caller keeps serving everything but the vault and says why.
 */
export function loadVaultKey(db: Db, dataDir: string, envKey: string | undefined = process.env.BROWSERD_VAULT_KEY): VaultKeyState {
  return openVaultKey(db, dataDir, envKey, true) as VaultKeyState;
}

/** The key's state as `browserd doctor` reports it, creating nothing: 'empty' when no vault exists yet. */
export function peekVaultKey(db: Pick<Db, 'meta'>, dataDir: string, envKey: string | undefined = process.env.BROWSERD_VAULT_KEY): VaultKeyState | { ok: 'empty' } {
  return openVaultKey(db, dataDir, envKey, false);
}

function openVaultKey(db: Pick<Db, 'meta'>, dataDir: string, envKey: string | undefined, create: boolean): VaultKeyState | { ok: 'empty' } {
  const file = vaultKeyPath(dataDir);
  const check = db.meta.get(CHECK_META) as Sealed | undefined;
  let key: Buffer | undefined;
  let source: string;
  if (envKey !== undefined && envKey !== '') {
    source = 'BROWSERD_VAULT_KEY';
    key = parseVaultKey(envKey);
    if (!key) return { ok: false, problem: 'malformed', message: 'BROWSERD_VAULT_KEY is not 32 bytes as 64 hex characters or base64', next: 'Set it to the key the vault was created with (64 hex characters), or unset it to use the key file.' };
  } else if (existsSync(file)) {
    source = file;
    key = parseVaultKey(readFileSync(file, 'utf8'));
    privateFile(file);
    if (!key) return { ok: false, problem: 'malformed', message: `the vault key file ${file} does not hold a 32-byte key`, next: `Restore ${file} from your backup.` };
  } else if (check) {
    return {
      ok: false,
      problem: 'missing',
      message: `the vault key is missing: ${file} is gone and BROWSERD_VAULT_KEY is not set, but the vault holds sealed secrets`,
      next: `Restore ${file} (or set BROWSERD_VAULT_KEY) from your backup; without the key the saved secrets and sessions cannot be read.`,
    };
  } else if (!create) {
    return { ok: 'empty' };
  } else {
    source = file;
    key = randomBytes(32);
    writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  }
  const sealer = new Sealer(key);
  if (check) {
    try {
      if (sealer.open(check, CHECK_BOUND).toString('utf8') !== CHECK_TEXT) throw new SealError('check text differs');
    } catch {
      return {
        ok: false,
        problem: 'wrong',
        message: `the vault key from ${source} is not the key this vault was sealed with`,
        next: 'Restore the original key (key file or BROWSERD_VAULT_KEY); the saved secrets and sessions stay locked until then.',
      };
    }
  } else if (create) {
    db.meta.putSync(CHECK_META, sealer.seal(Buffer.from(CHECK_TEXT), CHECK_BOUND));
  }
  return { ok: true, sealer, source };
}
