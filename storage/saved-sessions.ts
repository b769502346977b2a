/**
 * Saved sessions: a signed-in state (cookies and local storage of some sites) kept under a name per user, so it
 * can be put back into another tab, context or profile later. The contents are sealed with the vault key
 * (seal.ts) and bound to user and name: a record copied into another user's slot, or renamed, does not open.
 * What stays readable is only what a listing may show: name, sites, counts and when it was saved.
 */
import type { Db } from './db.js';
import { SealError, type Sealed, type Sealer } from './seal.js';
import { BrowserdError } from '../protocol/errors.js';

/** One cookie as Chromium reports it, with what is needed to set it again exactly (scheme and port binding). */
export interface SavedCookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  /** Seconds since the epoch; absent for a session cookie. */
  expires?: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite?: 'Strict' | 'Lax' | 'None';
  priority?: 'Low' | 'Medium' | 'High';
  sourceScheme?: 'Unset' | 'NonSecure' | 'Secure';
  sourcePort?: number;
  partitionKey?: { topLevelSite: string; hasCrossSiteAncestor: boolean };
}

/** The local storage of one origin, as key/value pairs. */
export interface SavedOriginStorage {
  origin: string;
  localStorage: [string, string][];
}

/** The sealed part: every value that must stay out of results, logs and the audit. */
export interface SessionContents {
  cookies: SavedCookie[];
  origins: SavedOriginStorage[];
}

/** What may be shown about a saved session: never a value. */
export interface SavedSessionInfo {
  name: string;
  /** Registrable domains the session covers. */
  sites: string[];
  cookies: number;
  /** Origins whose local storage is kept (names only). */
  storageOrigins: string[];
  savedAt: string;
}

interface StoredSession extends SavedSessionInfo {
  sealed: Sealed;
}

const key = (user: string, name: string) => `${user}\u0000${name}`;
const bound = (user: string, name: string) => `saved-session:${user}:${name}`;

export class SavedSessionStore {
  /** `sealer` answers the vault key's sealer, or throws the vault's not_configured error while it is locked. */
  constructor(private db: Db, private sealer: () => Sealer) {}

  list(user: string): SavedSessionInfo[] {
    const out: SavedSessionInfo[] = [];
    for (const { value } of this.db.savedSessions.getRange({ start: key(user, ''), end: `${user}\u0001` })) {
      const { sealed: _sealed, ...info } = value as StoredSession;
      out.push(info);
    }
    return out;
  }

  info(user: string, name: string): SavedSessionInfo | undefined {
    const stored = this.db.savedSessions.get(key(user, name)) as StoredSession | undefined;
    if (!stored) return undefined;
    const { sealed: _sealed, ...info } = stored;
    return info;
  }

  /** The cookies and storage, for putting them back into a browser. Never for a response. */
  open(user: string, name: string): SessionContents | undefined {
    const stored = this.db.savedSessions.get(key(user, name)) as StoredSession | undefined;
    if (!stored) return undefined;
    const sealer = this.sealer();
    try {
      return sealer.openJson<SessionContents>(stored.sealed, bound(user, name));
    } catch (e) {
      if (!(e instanceof SealError)) throw e;
      // The key check passed (the sealer exists), so this record itself was altered or moved here.
      throw new BrowserdError('internal_error', `saved session ${name} could not be opened: it was altered or does not belong to this user`, {
        next: `Delete it with browser_session_delete and save the session again.`,
      });
    }
  }

  /** Saves (replacing a session of the same name); says whether one was replaced. */
  async save(user: string, name: string, sites: string[], contents: SessionContents): Promise<{ info: SavedSessionInfo; replaced: boolean }> {
    const sealer = this.sealer();
    const replaced = this.db.savedSessions.get(key(user, name)) !== undefined;
    const info: SavedSessionInfo = {
      name,
      sites: [...sites].sort(),
      cookies: contents.cookies.length,
      storageOrigins: contents.origins.map((o) => o.origin).sort(),
      savedAt: new Date().toISOString(),
    };
    const stored: StoredSession = { ...info, sealed: sealer.sealJson(contents, bound(user, name)) };
    await this.db.savedSessions.put(key(user, name), stored);
    // The caller is told it is saved: it must be on disk first.
    await this.db.flushed();
    return { info, replaced };
  }

  async delete(user: string, name: string): Promise<boolean> {
    if (this.db.savedSessions.get(key(user, name)) === undefined) return false;
    await this.db.savedSessions.remove(key(user, name));
    await this.db.flushed();
    return true;
  }
}
