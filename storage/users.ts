/** Users and their tokens. Only token hashes are stored; lookups compare in constant time. */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from './db.js';
import { newRoutingKey, routed } from './routing-key.js';
import { BrowserdError } from '../protocol/errors.js';

/** What a user being moved between hosts of a fleet is told to wait before retrying. */
const MOVE_RETRY_AFTER_S = 5;

/**
 * The answer to any call of a user held for a move (`moving`): nothing runs here now, and the router sends the
 * next try to the new host. One wording for the HTTP door and for calls started inside the daemon.
 */
export function movingRefusal(user: string): BrowserdError {
  return new BrowserdError('browser_capacity', `the account ${user} is being moved to another host; nothing was done`, {
    next: `Retry in ${MOVE_RETRY_AFTER_S} seconds: the move takes seconds to a few minutes, and your tabs, files and logins move with it.`,
    retryAfterS: MOVE_RETRY_AFTER_S,
  });
}

export interface UserRecord {
  id: string;
  name: string;
  createdAt: string;
  /** Settings an admin sets per user. */
  approvals: boolean;
  takeover: boolean;
  /** Set by an admin: the token is refused everywhere (401) until the user is enabled again; nothing is deleted. */
  disabled?: boolean;
  /** What the user's token and links start with, for a router to find their home host (routing-key.ts). */
  key?: string;
  /**
   * Set while the user is being moved to another host of a fleet (the host named): everything of theirs is
   * stopped and their calls are told to retry shortly, as the router then sends them to the new host.
   */
  moving?: string;
}

const TOKEN_PREFIX = 'bd_';
const ADMIN_PREFIX = 'bda_';

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A new token; a user's carries their routing key (`bd_<key>.<secret>`), the admin key none. */
export function newToken(prefix = TOKEN_PREFIX, key?: string): string {
  return prefix + routed(key, randomBytes(24).toString('base64url'));
}

/** Meta key counting user additions: what tells a kept list of ids that it is out of date. */
const USERS_VERSION_KEY = 'usersVersion';

export class UserStore {
  private idCache?: { version: number; ids: string[] };

  constructor(private db: Db) {}

  get(name: string): UserRecord | undefined {
    return this.db.users.get(name);
  }

  list(): UserRecord[] {
    return [...this.db.users.getRange({})].map((e) => e.value as UserRecord);
  }

  /**
   * Every user's id. The log scrub asks on every line it writes, and walking the store with a cursor cost more
   * than the rest of the line: the list is kept and read again only when the count of additions (bumped in the
   * same transaction as each add, by the daemon or the CLI) has moved. Users are never removed, only disabled.
   */
  ids(): string[] {
    const version = (this.db.meta.get(USERS_VERSION_KEY) as number | undefined) ?? 0;
    if (!this.idCache || this.idCache.version !== version) this.idCache = { version, ids: [...this.db.users.getKeys({})] as string[] };
    return this.idCache.ids;
  }

  /**
   * Creates a user and returns its token (shown once). Throws if the name is taken. A user moved in from another
   * host of a fleet keeps the routing key it had there (`key`); a new one draws its own.
   */
  async add(name: string, key = newRoutingKey()): Promise<{ user: UserRecord; token: string }> {
    if (this.db.users.get(name)) throw new Error(`user ${name} already exists; use 'browserd user token ${name}' to replace its token`);
    const user: UserRecord = { id: name, name, createdAt: new Date().toISOString(), approvals: false, takeover: true, key };
    const token = newToken(TOKEN_PREFIX, key);
    await this.db.root.transaction(() => {
      this.db.users.put(name, user);
      this.db.meta.put(USERS_VERSION_KEY, ((this.db.meta.get(USERS_VERSION_KEY) as number | undefined) ?? 0) + 1);
      this.db.tokens.put(hashToken(token), { user: name, hash: hashToken(token), createdAt: user.createdAt });
      this.db.tokens.put(`user:${name}`, hashToken(token));
    });
    await this.db.flushed();
    return { user, token };
  }

  /** Replaces a user's token: the old one stops working at once. */
  async replaceToken(name: string): Promise<string> {
    const user = this.db.users.get(name) as UserRecord | undefined;
    if (!user) throw new Error(`no user ${name}; add it with 'browserd user add ${name}'`);
    // A user from before routing keys draws one now: the new token is the first to carry it.
    const key = user.key ?? newRoutingKey();
    const token = newToken(TOKEN_PREFIX, key);
    const old = this.db.tokens.get(`user:${name}`) as string | undefined;
    await this.db.root.transaction(() => {
      if (!user.key) this.db.users.put(name, { ...(this.db.users.get(name) as UserRecord), key });
      if (old) this.db.tokens.remove(old);
      this.db.tokens.put(hashToken(token), { user: name, hash: hashToken(token), createdAt: new Date().toISOString() });
      this.db.tokens.put(`user:${name}`, hashToken(token));
    });
    await this.db.flushed();
    return token;
  }

  /**
   * Users from before routing keys draw one: their links carry it from now on, and their token once replaced
   * (the token they hold stays valid on this host, but a fleet's router cannot read a key from it).
   */
  async ensureRoutingKeys(): Promise<void> {
    const keyless = this.list().filter((u) => !u.key);
    if (!keyless.length) return;
    await this.db.root.transaction(() => {
      for (const u of keyless) this.db.users.put(u.id, { ...u, key: newRoutingKey() });
    });
    await this.db.flushed();
  }

  /**
   * Users came or went by another way than add() (a move between fleet hosts writes and removes their rows
   * directly): the kept id list is read again, so the log scrub covers a user who just arrived.
   */
  async noteUsersChanged(): Promise<void> {
    await this.db.meta.put(USERS_VERSION_KEY, ((this.db.meta.get(USERS_VERSION_KEY) as number | undefined) ?? 0) + 1);
    await this.db.flushed();
  }

  /** The user's routing key, if they have one: what their links start with (routing-key.ts). */
  routingKey(name: string): string | undefined {
    return (this.db.users.get(name) as UserRecord | undefined)?.key;
  }

  /** The account exists and is not disabled: what every door that opens by link (not token) asks. */
  isActive(name: string): boolean {
    const u = this.get(name);
    return !!u && !u.disabled && !u.moving;
  }

  async update(name: string, patch: Partial<Pick<UserRecord, 'approvals' | 'takeover' | 'disabled' | 'moving'>>): Promise<UserRecord> {
    const u = this.get(name);
    if (!u) throw new Error(`no user ${name}`);
    const next = { ...u, ...patch };
    await this.db.users.put(name, next);
    await this.db.flushed();
    return next;
  }

  /**
   * The user a bearer token belongs to, or undefined. The hash is the key; the stored hash is compared in
   * constant time. A disabled user is returned as such (`disabled: true`): the caller refuses it, and can say why.
   */
  authenticate(token: string | undefined): UserRecord | undefined {
    if (!token || !token.startsWith(TOKEN_PREFIX)) return undefined;
    const h = hashToken(token);
    const rec = this.db.tokens.get(h) as { user: string; hash: string } | undefined;
    if (!rec) return undefined;
    if (!timingSafeEqual(Buffer.from(rec.hash, 'hex'), Buffer.from(h, 'hex'))) return undefined;
    return this.get(rec.user);
  }

  // ---- the admin key: one per host, distinct in form and store from user tokens ----

  async ensureAdminKey(): Promise<string | undefined> {
    if (this.db.meta.get('adminKeyHash')) return undefined;
    return this.replaceAdminKey();
  }

  async replaceAdminKey(): Promise<string> {
    const key = newToken(ADMIN_PREFIX);
    await this.db.meta.put('adminKeyHash', hashToken(key));
    await this.db.flushed();
    return key;
  }

  /** Names the admin key in force without revealing it (its hash): a console session remembers which key opened it. */
  adminKeyStamp(): string | undefined {
    return this.db.meta.get('adminKeyHash') as string | undefined;
  }

  isAdminKey(key: string | undefined): boolean {
    if (!key || !key.startsWith(ADMIN_PREFIX)) return false;
    const stored = this.db.meta.get('adminKeyHash') as string | undefined;
    if (!stored) return false;
    return timingSafeEqual(Buffer.from(stored, 'hex'), Buffer.from(hashToken(key), 'hex'));
  }
}
