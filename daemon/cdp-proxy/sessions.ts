/**
 * Timed CDP sessions: a user asks for N minutes of raw CDP to their own browser (or a named profile's) and gets
 * a WebSocket URL on the daemon. Sessions live in memory only (they end when the daemon stops); what outlives
 * them is the usage record, written at the start and at each started minute.
 *
 * The URL's token is an HMAC of the session id under a key made at daemon start: the daemon keeps only its
 * SHA-256 (compared in constant time when a client connects) and can still show the owner their URL again
 * (browser_status), without a token on disk or in any log.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { routed } from '../../storage/routing-key.js';
import type { Logger } from 'pino';
import type { UsageStore } from '../../storage/usage.js';
import { BrowserdError } from '../../protocol/errors.js';
import type { ProxyClient } from './client.js';

export interface CdpSessionInfo {
  id: string;
  /** The named profile, absent for the user's own. */
  profile?: string;
  startedAt: string;
  expiresAt: string;
  minutes: number;
  /** CDP clients connected now. */
  clients: number;
}

export interface CdpSession {
  id: string;
  user: string;
  profile?: string;
  startedAt: number;
  expiresAt: number;
  minutes: number;
  clients: Set<ProxyClient>;
}

interface Held extends CdpSession {
  /** Whether a client ever connected: only then could the session have left code in a page. */
  connected?: boolean;
  tokenHash: Buffer;
  timers: NodeJS.Timeout[];
  ended: boolean;
}

/** Open sessions one user may hold at once: each holds a browser awake while a client is connected. */
export const MAX_SESSIONS_PER_USER = 4;
/** The hard ceiling on a session's length, whatever the configuration says (20 days). */
const MAX_SESSION_MINUTES = 20 * 24 * 60;

export class CdpSessions {
  private byId = new Map<string, Held>();
  /** When the last session a client used ended, per user and profile: code it left may still run in a page. */
  private endedAt = new Map<string, number>();
  private key = randomBytes(32);
  private closing = false;
  /** Told when a session a client used ends: the code it ran may have left anything anywhere in that browser. */
  onUsedEnd?: (user: string, profile: string | undefined, at: number) => void;
  /** Length of a metered minute. Tests shorten it to see expiry and metering without waiting minutes. */
  minuteMs = 60_000;
  readonly maxMinutes: number;

  constructor(
    private usage: UsageStore,
    private log: Logger,
    maxMinutes: number,
    /** Where clients reach the daemon (http(s)://host:port, no trailing slash); known once the server listens. */
    private baseUrl: () => string,
    /** The user's routing key, which starts their session URL's token so a fleet's router finds their host. */
    private keyOf: (user: string) => string | undefined = () => undefined,
  ) {
    // A timer cannot wait longer than about 24 days; twenty days is more than any session needs.
    this.maxMinutes = Math.min(maxMinutes, MAX_SESSION_MINUTES);
  }

  private tokenOf(id: string, user: string): string {
    return routed(this.keyOf(user), createHmac('sha256', this.key).update(id).digest('base64url'));
  }

  /** The ws:// (or wss://) URL a CDP client connects to. */
  urlOf(s: CdpSession): string {
    return `${this.baseUrl().replace(/^http/, 'ws')}/cdp/${this.tokenOf(s.id, s.user)}`;
  }

  /**
   * `refusal` is asked last, with nothing awaited between its answer and the session being open: the caller's
   * reason the browser may not have raw CDP now (it holds a filled vault value: daemon/secrets/secret-documents.ts).
   */
  async start(user: string, profile: string | undefined, minutes: number, refusal?: () => BrowserdError | undefined): Promise<CdpSession> {
    if (this.closing) throw new BrowserdError('shutting_down', 'the daemon is stopping', { next: 'Retry in a few seconds.' });
    if (minutes > this.maxMinutes) {
      throw new BrowserdError('validation_error', `minutes may be at most ${this.maxMinutes} on this host`, { next: `Ask for ${this.maxMinutes} minutes or fewer and start another session when it ends.` });
    }
    const open = this.list(user);
    if (open.length >= MAX_SESSIONS_PER_USER) {
      throw new BrowserdError('refused', `you already have ${open.length} CDP sessions open, the most one user may`, { next: `Stop one with browser_sessions{action:"stop", id:"${open[0].id}"} and retry.` });
    }
    const refused = refusal?.();
    if (refused) throw refused;
    const id = `cdp_${randomBytes(8).toString('hex')}`;
    const now = Date.now();
    const s: Held = {
      id, user, profile, minutes, startedAt: now, expiresAt: now + minutes * this.minuteMs, clients: new Set(),
      tokenHash: createHash('sha256').update(this.tokenOf(id, user)).digest(), timers: [], ended: false,
    };
    this.byId.set(id, s);
    await this.meter(s, 1);
    s.timers.push(setTimeout(() => void this.end(s, 'expired'), s.expiresAt - now));
    // Each new minute is billed as it starts, so a crash loses no started minute.
    let billed = 1;
    if (minutes > 1) s.timers.push(setInterval(() => billed < minutes && void this.meter(s, ++billed), this.minuteMs));
    for (const t of s.timers) t.unref();
    this.log.info({ user, profile, session: id, minutes }, 'cdp session started');
    return s;
  }

  private async meter(s: Held, minutes: number) {
    await this.usage
      .put({ user: s.user, kind: 'cdp_session', id: s.id, minutes, at: new Date(s.startedAt).toISOString() })
      .catch((e) => this.log.error({ session: s.id, err: String(e) }, 'usage write failed'));
  }

  /** The session a presented token opens, if any: every open session's hash is compared, in constant time. */
  find(token: string): CdpSession | undefined {
    const h = createHash('sha256').update(token).digest();
    let found: Held | undefined;
    for (const s of this.byId.values()) if (timingSafeEqual(h, s.tokenHash) && !s.ended) found = s;
    return found;
  }

  /** The users with a session open. */
  users(): string[] {
    return [...new Set([...this.byId.values()].filter((s) => !s.ended).map((s) => s.user))];
  }

  list(user: string): CdpSessionInfo[] {
    return [...this.byId.values()].filter((s) => s.user === user && !s.ended).sort((a, b) => b.startedAt - a.startedAt).map(info);
  }

  get(user: string, id: string): CdpSession | undefined {
    const s = this.byId.get(id);
    return s && s.user === user && !s.ended ? s : undefined;
  }

  /** The newest open session on the user's own profile (for browser_status). */
  ownProfileSession(user: string): CdpSession | undefined {
    return [...this.byId.values()].filter((s) => s.user === user && !s.profile && !s.ended).sort((a, b) => b.startedAt - a.startedAt)[0];
  }

  /** Stops one of the user's sessions; false when there is none by that id. */
  async stop(user: string, id: string): Promise<boolean> {
    const s = this.byId.get(id);
    if (!s || s.user !== user || s.ended) return false;
    await this.end(s, 'stopped');
    return true;
  }

  /** Ends every session (daemon shutdown): clients are disconnected and the minutes recorded. */
  /** When the last session that a client used ended on this user's browser (profile), if one did. */
  lastUsedEndedAt(user: string, profile?: string): number | undefined {
    return this.endedAt.get(`${user}\u0000${profile ?? ''}`);
  }

  /** Marks a session as used by a client (server/cdp-route.ts, on connect). */
  markConnected(id: string): void {
    const s = this.byId.get(id);
    if (s) s.connected = true;
  }

  async closeAll(): Promise<void> {
    this.closing = true;
    await Promise.all([...this.byId.values()].map((s) => this.end(s, 'the daemon is stopping')));
  }

  private async end(s: Held, why: string) {
    if (s.ended) return;
    s.ended = true;
    this.byId.delete(s.id);
    for (const t of s.timers) clearTimeout(t); // clears intervals too
    for (const c of [...s.clients]) c.end(why === 'expired' ? 4001 : 4000, `the CDP session ${why === 'expired' ? 'ran out of time' : why}`);
    if (s.connected || s.clients.size) {
      const at = Date.now();
      this.endedAt.set(`${s.user}\u0000${s.profile ?? ''}`, at);
      this.onUsedEnd?.(s.user, s.profile, at);
    }
    s.clients.clear();
    // Billed by the started minute, never past the minutes asked for.
    const used = Math.min(s.minutes, Math.max(1, Math.ceil((Date.now() - s.startedAt) / this.minuteMs)));
    await this.meter(s, used);
    this.log.info({ user: s.user, profile: s.profile, session: s.id, why, minutes: used }, 'cdp session ended');
  }
}

function info(s: CdpSession): CdpSessionInfo {
  return { id: s.id, ...(s.profile ? { profile: s.profile } : {}), startedAt: new Date(s.startedAt).toISOString(), expiresAt: new Date(s.expiresAt).toISOString(), minutes: s.minutes, clients: s.clients.size };
}
