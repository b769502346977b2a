/**
 * The live-link registry: which token opens a viewer of which user's tab, in which mode, until when. Held in
 * memory on purpose (a link lives minutes; a daemon restart ends every link). Only a hash of each token is
 * kept, so a dump of this map opens nothing, and a lookup compares hashes in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ROUTED, routed } from '../../storage/routing-key.js';
import { ScreencastHub } from './screencast.js';

export type LiveMode = 'interactive' | 'view';

export interface LinkRecord {
  user: string;
  tabId: string;
  mode: LiveMode;
  /** Epoch ms after which an unwatched link stops opening. */
  expiresAt: number;
  /** Viewer sockets open on this link right now: while any is, the link does not expire. */
  viewers: number;
}

/** Life of an unopened link: BROWSERD_LIVE_LINK_S, default 5 minutes. */
export function defaultLinkTtlMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.BROWSERD_LIVE_LINK_S;
  if (raw === undefined || raw === '') return 300_000;
  const s = Number(raw);
  if (!Number.isInteger(s) || s < 10 || s > 86_400) throw new Error(`BROWSERD_LIVE_LINK_S takes whole seconds from 10 to 86400, not "${raw}"`);
  return s * 1000;
}

/** After the last viewer leaves, the link still opens this long: a reload or a dropped connection comes back. */
export const AFTER_LAST_VIEWER_MS = 60_000;

/** 32 random bytes (256 bits) in base64url: far past guessing, and safe in a URL path segment. */
const TOKEN_BYTES = 32;
const TOKEN_SHAPE = new RegExp(`^${ROUTED}[A-Za-z0-9_-]{43}$`);

const digest = (token: string) => createHash('sha256').update(token).digest();

export class LiveLinks {
  private byHash = new Map<string, { hash: Buffer; rec: LinkRecord }>();
  /** Popups whose link was already handed out with a tab listing, per user (`user\ntab`). */
  private announced = new Set<string>();
  private sweeper: NodeJS.Timeout;
  /** How to end each connected viewer, so a stopping daemon leaves no socket open. */
  /** Each connected viewer's way to end it, with the user whose tab it shows. */
  readonly openViewers = new Map<(reason?: string) => void, string>();
  /** The screencasts viewers are watching now: one per watched tab, none when nobody watches. */
  readonly casts = new ScreencastHub();
  /** The clock; tests move it to see expiry without waiting. */
  now: () => number = () => Date.now();

  constructor(
    /** The base URL links point at (the public URL, or the address the daemon listens on). */
    private baseUrl: () => string,
    readonly ttlMs: number = defaultLinkTtlMs(),
    /** The user's routing key, which starts each of their links so a fleet's router finds their host. */
    private keyOf: (user: string) => string | undefined = () => undefined,
  ) {
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  /** A new link; the token is returned once, inside the URL, and never kept. */
  create(user: string, tabId: string, mode: LiveMode, ttlMs = this.ttlMs): { url: string; token: string; rec: LinkRecord } {
    const token = routed(this.keyOf(user), randomBytes(TOKEN_BYTES).toString('base64url'));
    const hash = digest(token);
    const rec: LinkRecord = { user, tabId, mode, expiresAt: this.now() + ttlMs, viewers: 0 };
    this.byHash.set(hash.toString('hex'), { hash, rec });
    return { url: `${this.baseUrl()}/live/${token}`, token, rec };
  }

  /** The record of a token that still opens, or undefined (unknown, malformed or expired: the caller cannot tell which). */
  lookup(token: string): LinkRecord | undefined {
    if (typeof token !== 'string' || !TOKEN_SHAPE.test(token)) return undefined;
    const hash = digest(token);
    const entry = this.byHash.get(hash.toString('hex'));
    if (!entry || !timingSafeEqual(entry.hash, hash)) return undefined;
    if (!this.isOpen(entry.rec)) {
      this.byHash.delete(hash.toString('hex'));
      return undefined;
    }
    return entry.rec;
  }

  isOpen(rec: LinkRecord): boolean {
    return rec.viewers > 0 || this.now() < rec.expiresAt;
  }

  /** A viewer connected: the link stays open for as long as it is. */
  attach(rec: LinkRecord) {
    rec.viewers++;
  }

  /** A viewer left: when it was the last, the link opens for a short while more, then expires as usual. */
  detach(rec: LinkRecord) {
    rec.viewers = Math.max(0, rec.viewers - 1);
    if (rec.viewers === 0) rec.expiresAt = Math.max(rec.expiresAt, this.now() + AFTER_LAST_VIEWER_MS);
  }

  /** True the first time a popup tab of a user is asked about: its link goes with that one listing. */
  firstListing(user: string, tabId: string): boolean {
    const key = `${user}\n${tabId}`;
    if (this.announced.has(key)) return false;
    this.announced.add(key);
    return true;
  }

  private sweep() {
    for (const [k, { rec }] of this.byHash) if (!this.isOpen(rec)) this.byHash.delete(k);
  }

  /** Ends every link and disconnects every viewer (daemon shutdown). */
  close() {
    clearInterval(this.sweeper);
    this.byHash.clear();
    for (const end of [...this.openViewers.keys()]) end();
    this.openViewers.clear();
  }

  /** The users someone is watching now. */
  viewerUsers(): string[] {
    return [...new Set(this.openViewers.values())];
  }

  /** Disconnects everyone watching one user's tabs (the account was disabled). */
  endViewersOf(user: string) {
    for (const [end, owner] of [...this.openViewers]) if (owner === user) end('the account was disabled');
  }
}
