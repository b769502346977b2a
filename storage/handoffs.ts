/**
 * Hand-offs: a person asked to do one step, per user. Each has a page token, the credential of its "Your turn"
 * link: only its SHA-256 is stored, and a lookup compares it in constant time. Expiry is a matter of time, not
 * of a timer having run: a record past its expiresAt reads as expired, across restarts too.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ROUTED, routed } from './routing-key.js';
import type { Db } from './db.js';
import { valuesUnder } from './key-range.js';

export type HandoffReason = 'captcha' | 'two_factor' | 'needs_approval' | 'login' | 'other';
export type HandoffStatus = 'open' | 'resolved' | 'expired';

export interface HandoffRecord {
  id: string;
  user: string;
  reason: HandoffReason;
  message: string;
  /** As last written; read the state through handoffStatus(), which also knows the time. */
  status: HandoffStatus;
  createdAt: string;
  expiresAt: string;
  /** The whole-life cap fixed at creation: no extension goes past it. */
  capAt: string;
  note?: string;
  tab?: string;
  resolvedBy?: 'person' | 'agent';
  resolvedAt?: string;
}

interface StoredHandoff extends HandoffRecord {
  tokenHash: string;
}

/** 256 random bits, URL-safe: 43 characters. */
const TOKEN_FORM = new RegExp(`^${ROUTED}[A-Za-z0-9_-]{43}$`);

const key = (user: string, id: string) => `${user}\u0000${id}`;
/** Token hash -> owner. User names start with a letter or digit, so these keys sort apart from records. */
const tokenKey = (hash: string) => `\u0001tok\u0000${hash}`;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** The state at `nowMs`: an open hand-off whose time has come is expired whether or not anyone noticed. */
export function handoffStatus(rec: HandoffRecord, nowMs: number): HandoffStatus {
  if (rec.status === 'open' && nowMs >= Date.parse(rec.expiresAt)) return 'expired';
  return rec.status;
}

function plain(s: StoredHandoff): HandoffRecord {
  const { tokenHash: _omit, ...rec } = s;
  return rec;
}

export class HandoffStore {
  constructor(private db: Db) {}

  /** Stores a new open hand-off and returns it with its page token (shown once, in the link). */
  async create(fields: Omit<HandoffRecord, 'id' | 'status'>): Promise<{ record: HandoffRecord; token: string }> {
    let id: string;
    do id = `ho_${randomBytes(8).toString('hex')}`;
    while (this.db.handoffs.get(key(fields.user, id)));
    // The user's routing key first, so a fleet's router sends the page to their host (routing-key.ts).
    const token = routed((this.db.users.get(fields.user) as { key?: string } | undefined)?.key, randomBytes(32).toString('base64url'));
    const tokenHash = hashToken(token);
    const stored: StoredHandoff = { ...fields, id, status: 'open', tokenHash };
    await this.db.root.transaction(() => {
      this.db.handoffs.put(key(fields.user, id), stored);
      this.db.handoffs.put(tokenKey(tokenHash), { user: fields.user, id, hash: tokenHash });
    });
    // The link is handed out once this returns: the record behind it must survive a crash.
    await this.db.flushed();
    return { record: plain(stored), token };
  }

  get(user: string, id: string): HandoffRecord | undefined {
    const s = this.db.handoffs.get(key(user, id)) as StoredHandoff | undefined;
    return s && plain(s);
  }

  /** The hand-off a page token opens, or undefined for anything else (malformed, unknown, guessed). */
  byToken(token: string): HandoffRecord | undefined {
    if (!TOKEN_FORM.test(token)) return undefined;
    const h = hashToken(token);
    const ref = this.db.handoffs.get(tokenKey(h)) as { user: string; id: string; hash: string } | undefined;
    if (!ref) return undefined;
    const s = this.db.handoffs.get(key(ref.user, ref.id)) as StoredHandoff | undefined;
    if (!s || !timingSafeEqual(Buffer.from(s.tokenHash, 'hex'), Buffer.from(h, 'hex'))) return undefined;
    return plain(s);
  }

  /** A user's hand-offs, newest first. */
  list(user: string): HandoffRecord[] {
    const out: HandoffRecord[] = [];
    for (const value of valuesUnder(this.db.handoffs, [user])) out.push(plain(value as StoredHandoff));
    return out.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
  }

  /** Every hand-off still marked open, of every user (to arm expiry timers at start). */
  listOpen(): HandoffRecord[] {
    const out: HandoffRecord[] = [];
    for (const { key: k, value } of this.db.handoffs.getRange({})) {
      if (String(k).startsWith('\u0001')) continue;
      if ((value as StoredHandoff).status === 'open') out.push(plain(value as StoredHandoff));
    }
    return out;
  }

  /**
   * Changes a record as `decide` says, given the record as it is now; `decide` may throw to change nothing.
   * Reading, deciding and writing happen in one write transaction, so two changes of one hand-off (two Done
   * presses, Done and resolve) cannot both see it open. Waits until the change is on disk.
   */
  async update(user: string, id: string, decide: (rec: HandoffRecord) => Partial<Pick<HandoffRecord, 'status' | 'expiresAt' | 'note' | 'resolvedBy' | 'resolvedAt'>>): Promise<HandoffRecord> {
    const next = await this.db.root.transaction(() => {
      const s = this.db.handoffs.get(key(user, id)) as StoredHandoff | undefined;
      if (!s) throw new Error(`no hand-off ${id}`);
      const changed: StoredHandoff = { ...s, ...decide(plain(s)) };
      this.db.handoffs.put(key(user, id), changed);
      return changed;
    });
    await this.db.flushed();
    return plain(next);
  }
}
