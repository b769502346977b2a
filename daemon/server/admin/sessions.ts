/**
 * Admin console sessions, in memory (a restart logs the admin out, which is fine for a console): a random id in
 * an HttpOnly cookie, kept here only as its hash, ending after an hour unused or twelve hours at most, each with
 * its own CSRF token for the forms it is shown.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'browserd_admin';
export const SESSION_IDLE_MS = 60 * 60 * 1000;
export const SESSION_MAX_MS = 12 * 60 * 60 * 1000;

export interface AdminSession {
  csrf: string;
  /** Which admin key opened it (UserStore.adminKeyStamp): a replaced key ends every session it opened. */
  keyStamp: string;
  createdAt: number;
  lastSeen: number;
}

const hash = (id: string) => createHash('sha256').update(id).digest('hex');

export class AdminSessions {
  private byHash = new Map<string, AdminSession>();

  constructor(private now: () => number = Date.now) {}

  /** A new session; answers the id for the cookie (never stored) and the session. */
  create(keyStamp: string): { id: string; session: AdminSession } {
    this.sweep();
    const id = randomBytes(32).toString('base64url');
    const t = this.now();
    const session = { csrf: randomBytes(32).toString('base64url'), keyStamp, createdAt: t, lastSeen: t };
    this.byHash.set(hash(id), session);
    return { id, session };
  }

  /** The live session of a cookie value, touched; an expired one, or one of a replaced key, is forgotten. */
  get(id: string | undefined, keyStamp: string | undefined): AdminSession | undefined {
    if (!id || id.length > 200) return undefined;
    const key = hash(id);
    const s = this.byHash.get(key);
    if (!s) return undefined;
    const t = this.now();
    if (t - s.lastSeen > SESSION_IDLE_MS || t - s.createdAt > SESSION_MAX_MS || s.keyStamp !== keyStamp) {
      this.byHash.delete(key);
      return undefined;
    }
    s.lastSeen = t;
    return s;
  }

  end(id: string | undefined) {
    if (id) this.byHash.delete(hash(id));
  }

  private sweep() {
    const t = this.now();
    for (const [k, s] of this.byHash) if (t - s.lastSeen > SESSION_IDLE_MS || t - s.createdAt > SESSION_MAX_MS) this.byHash.delete(k);
  }
}

/** Whether a posted CSRF token is the session's, compared in constant time. */
export function csrfMatches(session: AdminSession, posted: string | null): boolean {
  if (!posted) return false;
  const a = Buffer.from(session.csrf);
  const b = Buffer.from(posted);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The Set-Cookie value of a session: HttpOnly, SameSite=Strict, only under /admin, Secure behind https. */
export function sessionCookie(id: string, secure: boolean, maxAgeS = SESSION_MAX_MS / 1000): string {
  return `${SESSION_COOKIE}=${id}; Path=/admin; HttpOnly; SameSite=Strict; Max-Age=${maxAgeS}${secure ? '; Secure' : ''}`;
}

export const clearedCookie = (secure: boolean) => sessionCookie('', secure, 0);
