/**
 * What a tool handler may touch: the caller, its browser and tabs (resolved, locked and started here), the
 * daemon's platform, the feature services it declares by key, and the pipeline to run another tool. Tabs
 * resolved through the context are locked for the rest of the call.
 */
import type { Platform } from '../platform.js';
import type { CallTool, CallVia } from './call.js';
import type { ServiceKey, Services } from './services.js';
import type { UserRecord } from '../../storage/users.js';
import type { BrowserInstance } from '../browser/instance.js';
import type { Tab } from '../browser/tab.js';
import type { PointResult } from '../../injected/api.js';
import { BrowserdError } from '../../protocol/errors.js';
import { parseTabId } from '../../protocol/ids.js';
import { KeyedLock } from './lock.js';
import { Progress } from './progress.js';

const tabLocks = new KeyedLock();

export type { CallVia } from './call.js';

/** What every call of one daemon shares, handed to the pipeline once by main.ts. */
export interface CallScope {
  /** Configuration, storage, browsers, the vault, the guard: what every feature may use. */
  env: Platform;
  /** The feature services built on the pipeline (crawls, tasks, recordings, monitors), reached by key. */
  services: Services;
  /** One more call through the whole pipeline, as the same user (act runs the steps its model chose here). */
  callTool: CallTool;
}

export class ToolContext {
  private releases: (() => void)[] = [];
  /** Tabs already resolved and locked in this call, by id: asking again (pipeline, then handler) is free. */
  private resolved = new Map<string, Tab>();
  /** The tab the call's default (no id) resolved to: the same one for the rest of the call. */
  private defaultTab?: Tab;
  /** Click points asked for while the gate looked at the element, by ref: each is used once, by the click. */
  private pointsAhead = new Map<string, Promise<PointResult | undefined>>();
  /** Browsers this call holds in use (so the idle sweeper leaves them alone until the call ends), by profile. */
  private held = new Set<string>();
  /** Tabs this call touched, for the audit entry and for write-log reporting. */
  readonly touched: Tab[] = [];
  /** Each touched tab's write-log position when the call reached it: what came after is this call's doing. */
  readonly logMarks = new Map<Tab, number>();

  /** The daemon's platform (CallScope.env). */
  readonly env: Platform;

  constructor(
    readonly scope: CallScope,
    readonly user: UserRecord,
    readonly signal: AbortSignal,
    readonly via: CallVia,
    /**
     * The caller's model provider key (X-Model-Key), for this call only: handed to daemon/models, sent only to
     * the chosen model's provider, never stored, logged, audited or returned.
     */
    readonly modelKey?: string,
    /** Reports of how far a long call has come, for a caller that asked (MCP progressToken); silent otherwise. */
    readonly progress: Progress = new Progress(),
  ) {
    this.env = scope.env;
  }

  /** A feature service by its key (crawl/service.ts CRAWLS, ...). */
  service<T>(key: ServiceKey<T>): T {
    return this.scope.services.get(key);
  }

  /** Runs another tool through the whole pipeline (validation, gate, audit); the caller names user, via and signal. */
  get callTool(): CallTool {
    return this.scope.callTool;
  }

  /**
   * Throws once the caller has given up (MCP cancel, closed HTTP request): long loops call it between steps so
   * a tool's work stops with its call instead of running on unseen.
   */
  checkCancelled() {
    if (this.signal.aborted) throw cancelledError();
  }

  /** The user's browser (or a named profile's), started if needed, and held in use for the rest of the call. */
  browser(profile?: string): Promise<BrowserInstance> {
    const key = profile ?? '';
    if (!this.held.has(key)) {
      this.held.add(key);
      this.releases.push(this.env.pool.hold(this.user.id, profile));
    }
    return this.env.pool.get(this.user.id, profile);
  }

  /**
   * Resolves a tab id (default: the user's most recent / focused tab, fixed for the call once resolved) and
   * locks it for the rest of this call. Asking again for the same tab returns it without locking twice.
   */
  async tab(id?: string): Promise<Tab> {
    if (id === undefined && this.defaultTab) return this.defaultTab;
    const tabId = id ?? this.defaultTabId();
    const known = tabId ? this.resolved.get(tabId) : undefined;
    if (known) return known;
    if (!tabId) throw new BrowserdError('not_found', 'there is no open tab', { next: 'Open one with browser_open.' });
    const parsed = parseTabId(tabId);
    if (!parsed) throw new BrowserdError('validation_error', `"${tabId}" is not a tab id (t1, t2, or <profile>/t1)`, { next: 'List your tabs with browser_tabs.' });
    if (!this.env.tabs.get(this.user.id, tabId)) {
      throw new BrowserdError('not_found', `no tab ${tabId}`, { next: 'List your tabs with browser_tabs, or open one with browser_open.' });
    }
    const release = await tabLocks.acquire(`${this.user.id}:${tabId}`, this.signal);
    this.releases.push(release);
    const inst = await this.browser(parsed.profile);
    const tab = await inst.getTab(tabId);
    this.resolved.set(tabId, tab);
    if (id === undefined) this.defaultTab = tab;
    this.touch(tab);
    return tab;
  }

  /** Records a tab as part of this call (tools that open tabs call it for the new tab). */
  touch(tab: Tab) {
    if (!this.logMarks.has(tab)) {
      this.touched.push(tab);
      this.logMarks.set(tab, tab.writeLog.count);
    }
  }

  /**
   * Asks the page where a click on `ref` would land, now, alongside the gate's look at the element: the two
   * questions share one round trip instead of two. Asking has no effect beyond scrolling the element into
   * view, so it is harmless when the gate then refuses the click.
   */
  askPointAhead(tab: Tab, ref: string) {
    this.pointsAhead.set(ref, tab.call('pointFor', ref).catch(() => undefined));
  }

  /** The point asked for ahead (once), or undefined when there is none and the caller must ask itself. */
  takePointAhead(ref: string): Promise<PointResult | undefined> | undefined {
    const p = this.pointsAhead.get(ref);
    this.pointsAhead.delete(ref);
    return p;
  }

  defaultTabId(): string | undefined {
    const d = this.env.tabs.getDefault(this.user.id);
    if (d && this.env.tabs.get(this.user.id, d)) return d;
    const all = this.env.tabs.list(this.user.id);
    return all.at(-1)?.id;
  }

  release() {
    for (const r of this.releases.splice(0).reverse()) r();
  }
}

export function cancelledError(): BrowserdError {
  return new BrowserdError('timeout', 'the call was cancelled: the caller gave up before it finished', { next: 'Call again if it is still wanted; do less in one call.' });
}
