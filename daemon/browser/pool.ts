/**
 * The host's browsers: one per user (and per named profile), started on first use, never shared, capped by
 * a host-wide maximum and a per-user one. When the host is full and a user below their fair share asks, the
 * idle-longest browser of a user above theirs gives way (fair-share.ts), so one user's profiles never keep
 * the last slot from another; a browser in use is never stopped. Past that: 503 browser_capacity with
 * Retry-After. A browser unused for the idle time is shut down to free its slot; its tabs stay in the store
 * and reopen when it next starts.
 */
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { BrowserInstance, instanceKey } from './instance.js';
import type { TabStore } from '../../storage/tabs.js';
import type { Config } from '../config.js';
import { BrowserdError } from '../../protocol/errors.js';
import type { HostAccess } from '../policy/host-policy.js';
import type { FileStore } from '../../storage/files.js';
import type { IdentityService } from '../identity/service.js';
import type { AdFilter } from './write-guard.js';
import type { Interception } from '../settings/request-interception.js';
import { TabStarts } from './tab-starts.js';
import { browserToStop, type Slot } from './fair-share.js';

/** A renderer's V8 heap bound (MB): one runaway page must not take the host's memory with it. */
export const RENDERER_HEAP_MB = 1024;

export class BrowserPool {
  /** Browsers the host may run at once: --max-browsers, then the admin's max_browsers setting as it changes. */
  private hostMax: number;
  private instances = new Map<string, BrowserInstance>();
  private starting = new Map<string, Promise<BrowserInstance>>();
  private lastUsed = new Map<string, number>();
  /** Calls under way per browser: a browser in use is never idle, however long one call takes. */
  private inUse = new Map<string, number>();
  private closing = false;
  /** Browsers stopped to make room, until their process is gone: the same profile does not start twice at once. */
  private stopping = new Map<string, Promise<void>>();
  private idleSweeper?: NodeJS.Timeout;
  /**
   * 'idle-closed' (key) after an idle browser was shut down; 'tab' (user, tab) for each user tab made, also one
   * reopened under its old id after a crash or restart, so whatever follows a tab can follow the new object.
   */
  readonly events = new EventEmitter();
  /** block_ads (daemon/adblock): set once the daemon has it; browsers ask it about every request of their pages. */
  adFilter?: AdFilter;
  /**
   * Which requests a user's rules need held for a verdict now (write-guard.ts RequestRules); set by the daemon.
   * Unset, tabs hold every request.
   */
  requestInterception?: (user: string) => Interception;
  /** Bytes a user may still store (quotas/storage.ts); set by the daemon. Downloads past it are cancelled. */
  storageRoom?: (user: string) => number;
  /** New tabs are built a few at a time over every browser of the host (tab-starts.ts). */
  readonly tabStarts: TabStarts;

  constructor(
    private cfg: Config,
    private tabs: TabStore,
    private log: Logger,
    private proxyPort: () => number | undefined,
    private hostAccess: (user: string, url: string) => HostAccess | 'default' = () => 'default',
    /** The users' files, where page downloads land; without it downloads are left to Chromium's default. */
    private files?: FileStore,
    /** Users' persistent identities (the browser settings say where they apply). */
    readonly identity?: IdentityService,
  ) {
    this.hostMax = cfg.maxBrowsers;
    this.tabStarts = new TabStarts(cfg.tabStarts);
    if (cfg.browserIdleMs > 0) {
      this.idleSweeper = setInterval(() => void this.closeIdle(), Math.min(30_000, Math.max(250, Math.floor(cfg.browserIdleMs / 2))));
      this.idleSweeper.unref();
    }
  }

  /** A new host maximum holds for the next browser to start; running ones above it are left to go idle. */
  setHostMax(n: number) {
    this.hostMax = n;
  }

  get maxBrowsers() {
    return this.hostMax;
  }

  get count() {
    return this.instances.size + this.starting.size;
  }

  /** The running browser for a user/profile, if any (does not start one). */
  peek(user: string, profile?: string): BrowserInstance | undefined {
    const i = this.instances.get(instanceKey(user, profile));
    return i?.alive ? i : undefined;
  }

  /** Whose browser a Chromium process is (for log lines that know only the process). */
  ownerOfPid(pid: number): { user: string; profile?: string } | undefined {
    for (const i of this.instances.values()) if (i.pid === pid) return { user: i.opts.user, profile: i.opts.profile };
    return undefined;
  }

  /** Browsers one user runs or is starting, over all profiles. */
  countFor(user: string): number {
    let n = 0;
    for (const key of [...this.instances.keys(), ...this.starting.keys()]) if (key === user || key.startsWith(`${user}/`)) n++;
    return n;
  }

  /** True when a call for this user would need a new browser and none may start. */
  wouldExceed(user: string, profile?: string): boolean {
    const key = instanceKey(user, profile);
    if (this.instances.get(key)?.alive || this.starting.has(key)) return false;
    if (this.countFor(user) >= this.cfg.maxBrowsersPerUser) return true;
    return this.count >= this.hostMax && this.browserToGiveWay(user) === undefined;
  }

  /** The refusal for a browser that may not start: the user's own limit when that is what is reached. */
  capacityError(user?: string): BrowserdError {
    const idleMin = Math.round(this.cfg.browserIdleMs / 60000);
    if (user !== undefined && this.countFor(user) >= this.cfg.maxBrowsersPerUser) {
      return new BrowserdError('browser_capacity', `you already run ${this.countFor(user)} browsers, the most one user may (per-user limit ${this.cfg.maxBrowsersPerUser}); the default profile and each named profile count`, {
        next: `Keep working in a profile that is running, or wait ${this.cfg.capacityRetryAfterS} seconds for one to go idle${this.cfg.browserIdleMs > 0 ? ` (idle browsers stop after ${idleMin || '<1'} min)` : ''} and retry; an admin can raise --max-browsers-per-user.`,
        retryAfterS: this.cfg.capacityRetryAfterS,
        details: { perUserLimit: this.cfg.maxBrowsersPerUser },
      });
    }
    return new BrowserdError('browser_capacity', `this host already runs all the browsers it may (${this.hostMax}), and none can give way: each is in use, or no user holds more than their fair share`, {
      next: `Wait ${this.cfg.capacityRetryAfterS} seconds and retry; an admin can raise --max-browsers or give the host more memory.`,
      retryAfterS: this.cfg.capacityRetryAfterS,
      details: { hostLimit: this.hostMax },
    });
  }

  /**
   * The host is full and `user` asks for a browser: when they hold less than their fair share, the browser idle
   * the longest of a user above theirs is stopped (fair-share.ts) and true returned. Its slot is free at once
   * (the caller starts the new browser in the same turn, so no one else takes it); its tabs stay in the store
   * and reopen on its owner's next call, as after an idle stop.
   */
  private makeRoomFor(user: string): boolean {
    if (this.countFor(user) >= this.cfg.maxBrowsersPerUser || this.count < this.hostMax) return false;
    const key = this.browserToGiveWay(user);
    const inst = key === undefined ? undefined : this.instances.get(key);
    if (!key || !inst) return false;
    this.instances.delete(key);
    this.lastUsed.delete(key);
    this.log.info({ browser: key, for: user, hostLimit: this.hostMax }, "stopping the idle-longest browser of a user above their fair share, so another user's browser can start");
    const gone = inst
      .close()
      .catch((e) => this.log.warn({ browser: key, err: String(e) }, 'browser did not close cleanly'))
      .finally(() => {
        this.stopping.delete(key);
        this.events.emit('idle-closed', key);
      });
    this.stopping.set(key, gone);
    return true;
  }

  /** The running browser that would give way to `user` on a full host (fair-share.ts), if any. */
  private browserToGiveWay(user: string): string | undefined {
    const slots: Slot[] = [
      ...[...this.instances].map(([key, i]) => ({ key, user: i.opts.user, lastUsed: this.lastUsed.get(key) ?? 0, busy: !!this.inUse.get(key) })),
      ...[...this.starting.keys()].map((key) => ({ key, user: key.split('/')[0], lastUsed: Date.now(), busy: true })),
    ];
    return browserToStop(slots, user, this.hostMax);
  }

  /** Shuts down browsers nobody used for the idle time. Their tab records stay, so nothing is lost. */
  async closeIdle(now = Date.now()): Promise<string[]> {
    const closed: string[] = [];
    for (const [key, inst] of [...this.instances]) {
      if (this.inUse.get(key) || now - (this.lastUsed.get(key) ?? now) < this.cfg.browserIdleMs) continue;
      this.instances.delete(key);
      this.lastUsed.delete(key);
      closed.push(key);
      this.log.info({ browser: key, idleS: Math.round(this.cfg.browserIdleMs / 1000) }, 'closing an idle browser');
      await inst.close().catch((e) => this.log.warn({ browser: key, err: String(e) }, 'idle browser did not close cleanly'));
      this.events.emit('idle-closed', key);
    }
    return closed;
  }

  /**
   * Marks a browser in use for the length of a call; the returned function ends the use, and the idle clock
   * starts again from then.
   */
  hold(user: string, profile?: string): () => void {
    const key = instanceKey(user, profile);
    this.inUse.set(key, (this.inUse.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.inUse.get(key) ?? 1) - 1;
      if (left > 0) this.inUse.set(key, left);
      else this.inUse.delete(key);
      this.lastUsed.set(key, Date.now());
    };
  }

  async get(user: string, profile?: string): Promise<BrowserInstance> {
    if (this.closing) throw new BrowserdError('shutting_down', 'the daemon is stopping', { next: 'Retry in a few seconds.' });
    const key = instanceKey(user, profile);
    // This very browser was just stopped to make room: its profile is free once its process is gone.
    const leaving = this.stopping.get(key);
    if (leaving) await leaving;
    this.lastUsed.set(key, Date.now());
    const existing = this.instances.get(key);
    if (existing?.alive) return existing;
    if (existing) this.instances.delete(key);
    const pending = this.starting.get(key);
    if (pending) return pending;
    // A full host starts this one only once a browser of a user above their fair share has given way.
    if (this.wouldExceed(user, profile) || (this.count >= this.hostMax && !this.makeRoomFor(user))) throw this.capacityError(user);
    const inst = new BrowserInstance({
      user,
      profile,
      dataDir: this.cfg.dataDir,
      chrome: this.cfg.chrome,
      headless: this.cfg.headless,
      proxyPort: this.proxyPort(),
      // Ours first, so an admin's own --js-flags in BROWSERD_CHROME_ARGS comes later and wins.
      chromeArgs: [`--js-flags=--max-old-space-size=${RENDERER_HEAP_MB}`, ...this.cfg.chromeArgs],
      maxTabsPerUser: this.cfg.maxTabsPerUser,
      tabStarts: this.tabStarts,
      tabs: this.tabs,
      log: this.log,
      hostAccess: (url) => this.hostAccess(user, url),
      adFilter: (req) => this.adFilter?.(req),
      interception: () => this.requestInterception?.(user) ?? 'all',
      // 'download' (user, outcome): each page download's end, for the download.finished webhook.
      downloads: this.files ? { files: this.files, maxBytes: this.cfg.downloadMaxBytes, onSettled: (o) => this.events.emit('download', user, o), room: this.storageRoom && (() => this.storageRoom!(user)) } : undefined,
      onExit: (i) => {
        if (this.instances.get(i.key) === i) this.instances.delete(i.key);
      },
      onTab: (tab) => this.events.emit('tab', user, tab),
      identity: this.identity?.forUser(user),
    });
    const p = inst
      .start()
      .then(() => {
        // A slow start is not idleness: the clock starts when the browser is ready.
        this.lastUsed.set(key, Date.now());
        this.instances.set(key, inst);
        return inst;
      })
      .catch(async (e) => {
        await inst.close().catch(() => undefined);
        // The host's trouble, not the caller's: said with its own code, and in full (stderr lines) to the operator.
        this.log.error({ browser: key, err: e instanceof Error ? e.message : String(e) }, 'browser did not start');
        if (e instanceof BrowserdError && e.code === 'browser_unavailable') throw e;
        throw new BrowserdError('browser_unavailable', 'the browser did not start on this host', { next: 'Try again in a moment; if it keeps failing, the admin of this host can run `browserd doctor`.' });
      })
      .finally(() => this.starting.delete(key));
    this.starting.set(key, p);
    return p;
  }

  /**
   * After a change to a user's request rules (no user: everyone's), before the change is acknowledged: every tab
   * of theirs, in browsers running or starting, holds what the rules could now refuse.
   */
  async requestRulesChanged(user?: string): Promise<void> {
    const starting = await Promise.all([...this.starting.values()].map((p) => p.catch(() => undefined)));
    const all = new Set([...this.instances.values(), ...starting].filter((i): i is BrowserInstance => !!i && (!user || i.opts.user === user)));
    await Promise.all([...all].map((i) => i.requestRulesChanged()));
  }

  /**
   * Stops every browser of one user, all profiles (an admin disabled the account). Gracefully, so cookies reach
   * the profile; the tab records stay, as after an idle stop, and come back if the account is enabled again.
   */
  async stopUser(user: string): Promise<string[]> {
    const mine = (key: string) => key === user || key.startsWith(`${user}/`);
    await Promise.allSettled([...this.starting].filter(([key]) => mine(key)).map(([, p]) => p));
    const stopped: string[] = [];
    for (const [key, inst] of [...this.instances]) {
      if (!mine(key)) continue;
      this.instances.delete(key);
      this.lastUsed.delete(key);
      stopped.push(key);
      await inst.close().catch((e) => this.log.warn({ browser: key, err: String(e) }, 'browser did not close cleanly'));
    }
    return stopped;
  }

  /** The users with a browser running (any profile). */
  runningUsers(): string[] {
    return [...new Set([...this.instances.values()].map((i) => i.opts.user))];
  }

  list(): BrowserInstance[] {
    return [...this.instances.values()];
  }

  async closeAll(): Promise<void> {
    this.closing = true;
    clearInterval(this.idleSweeper);
    await Promise.allSettled([...this.starting.values()]);
    await Promise.allSettled(this.list().map((i) => i.close()));
    this.instances.clear();
  }
}
