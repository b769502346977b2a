/**
 * Saved sessions: a signed-in state (cookies and local storage of some sites) kept under a name per user, so it
 * can be put back into another tab, context or profile later. The contents are sealed with the vault key
 * (seal.ts) and bound to user and name: a record copied into another user's slot, or renamed, does not open.
 * What stays readable is only what a listing may show: name, sites, counts and when it was saved.
 */
import type { Db } from './db.js';
import { SealError, type Sealer } from './seal.js';
import { SealedTable } from './sealed-table.js';
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


export class SavedSessionStore {
  private records: SealedTable<SavedSessionInfo, SessionContents>;

  /** `sealer` answers the vault key's sealer, or throws the vault's not_configured error while it is locked. */
  constructor(db: Db, sealer: () => Sealer) {
    this.records = new SealedTable(db, db.savedSessions, 'saved-session', sealer);
  }

  list(user: string): SavedSessionInfo[] {
    return this.records.list(user);
  }

  info(user: string, name: string): SavedSessionInfo | undefined {
    return this.records.info(user, name);
  }

  /** The cookies and storage, for putting them back into a browser. Never for a response. */
  open(user: string, name: string): SessionContents | undefined {
    try {
      return this.records.open(user, name);
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
    const replaced = this.records.has(user, name);
    const info: SavedSessionInfo = {
      name,
      sites: [...sites].sort(),
      cookies: contents.cookies.length,
      storageOrigins: contents.origins.map((o) => o.origin).sort(),
      savedAt: new Date().toISOString(),
    };
    await this.records.put(user, info, contents);
    return { info, replaced };
  }

  async delete(user: string, name: string): Promise<boolean> {
    return this.records.remove(user, name);
  }
}
