/**
 * One user's Chromium (or one named profile's): the process, its CDP connection, its contexts and its tab
 * table. Tabs are persisted in LMDB so their ids come back after a daemon or browser restart.
 */
import { join } from 'node:path';
import { cpus } from 'node:os';
import type { Logger } from 'pino';
import { launchChromium, type LaunchedChromium } from './launcher.js';
import { type CdpConnection, DisposableStore } from '../cdp/connection.js';
import { createPageTarget } from './create-target.js';
import { bumpActivity, Tab } from './tab.js';
import { adoptBrowserWorker, BROWSER_WORKER_TYPES } from './worker-adoption.js';
import { blockSockets } from './network-cutoff.js';
import { RunningServiceWorkers } from './service-worker-fetch.js';
import type { TabRecord, TabStore } from '../../storage/tabs.js';
import { formatTabId } from '../../protocol/ids.js';
import { BrowserdError } from '../../protocol/errors.js';
import type { HostAccess } from '../policy/host-policy.js';
import type { FileStore } from '../../storage/files.js';
import type { AdFilter, HostAccessFn } from './write-guard.js';
import type { Interception } from '../settings/request-interception.js';
import type { TabStarts } from './tab-starts.js';
import { DownloadWatcher, type DownloadOrigin, type DownloadOutcome } from './downloads.js';
import type { BrowserAgent, UserIdentity } from '../identity/tab-identity.js';
import { nativeAgent } from '../identity/plan.js';
import { versionOf } from '../identity/user-agent.js';
import { InternalPageWatch, isBrowserInternalUrl } from './internal-pages.js';

export interface InstanceOptions {
  user: string;
  profile?: string;
  dataDir: string;
  chrome: string;
  headless: boolean;
  proxyPort?: number;
  chromeArgs: string[];
  /** Open tabs one user may have over all profiles (persisted records count). */
  maxTabsPerUser?: number;
  /** The host's turns for building tabs, shared by every browser (tab-starts.ts); without it, no waiting. */
  tabStarts?: TabStarts;
  tabs: TabStore;
  log: Logger;
  /** The user's host policy for a URL (read_only, blocked, allowed or default). */
  hostAccess?: (url: string) => HostAccess | 'default';
  /** block_ads: which requests of a page are ads or trackers to fail. */
  adFilter?: AdFilter;
  /** Which requests the user's rules need held for a verdict now (write-guard.ts RequestRules). */
  interception?: () => Interception;
  /** Where page downloads go (the user's files) and the largest one kept; without it Chromium's default applies. */
  downloads?: { files: FileStore; maxBytes: number; onSettled?: (outcome: DownloadOutcome) => void; room?: () => number };
  /** Called when the process dies on its own, so the pool can free the slot. */
  onExit: (inst: BrowserInstance) => void;
  /** Called with each user tab as it is made, also a tab reopened after a crash or restart (same id, new object). */
  onTab?: (tab: Tab) => void;
  /** The user's persistent identity, shown on the documents the browser settings name (daemon/identity). */
  identity?: UserIdentity;
}

export interface OpenTabOptions {
  url?: string;
  mode: 'read' | 'act';
  allowedDomains?: string[];
  context?: string;
  visible?: boolean;
  /** Called with the new tab (its target made, its rules in place) just before it loads `url`. */
  beforeNavigate?: (tab: Tab) => Promise<void>;
}

export class BrowserInstance {
  private chromium?: LaunchedChromium;
  conn?: CdpConnection;
  readonly tabs = new Map<string, Tab>();
  /** context name -> browserContextId */
  readonly contexts = new Map<string, string>();
  /** Context names whose browser context is being made now (contextId). */
  private makingContexts = new Map<string, Promise<string>>();
  private attached = new Map<string, { sessionId: string; waiting: boolean; openerId?: string; type: string }>();
  private attachWaiters = new Map<string, (a: { sessionId: string; waiting: boolean }) => void>();
  private disposables = new DisposableStore();
  private ownTargets = new Set<string>();
  /** Target.createTarget calls of ours not answered yet, and pages attached meanwhile that may be theirs. */
  private creating = 0;
  private unclaimed = new Map<string, Parameters<BrowserInstance['onAttached']>[0]>();
  private scratchSeq = 0;
  /** Targets of tabs adopted from a CDP session client's pages: they go, record and all, when the page goes. */
  private clientPages = new Set<string>();
  /** Pages in a context a CDP client made (no tab of ours), by target id, with the address each shows now. */
  private foreignPages = new Map<string, string>();
  /** The default browser context's id, as Chromium names it (a page there with no tab of ours becomes one). */
  private defaultContextId?: string;
  /** Targets of browser_read's scratch tabs, while they are open. */
  private scratchTargets = new Set<string>();
  /** The user's host policy for an address; 'default' when the instance was given none. */
  /** The user's host policy for an address (a CDP session client's answers to blocked documents are refused by it). */
  readonly hostAccess: HostAccessFn = (url) => this.opts.hostAccess?.(url) ?? 'default';
  /** Service workers running now: one whose site turns read-only stops answering pages at once. */
  private readonly serviceWorkers = new RunningServiceWorkers(() => this.conn, this.hostAccess);
  /** Page downloads of every context of this browser, on their way into the user's files. */
  downloads?: DownloadWatcher;
  startedAt?: Date;
  version?: string;
  /** This build's version and what it shows by itself, for the identity's user agent. */
  private agent?: BrowserAgent;
  alive = false;

  constructor(readonly opts: InstanceOptions) {}

  get key() {
    return instanceKey(this.opts.user, this.opts.profile);
  }
  get pid() {
    return this.chromium?.process.pid;
  }

  profileDir(): string {
    const base = join(this.opts.dataDir, 'profiles', this.opts.user);
    return this.opts.profile ? join(base, 'named', this.opts.profile) : join(base, 'default');
  }

  async start(): Promise<void> {
    const t0 = Date.now();
    this.chromium = await launchChromium({
      executable: this.opts.chrome,
      userDataDir: this.profileDir(),
      headless: this.opts.headless,
      proxyPort: this.opts.proxyPort,
      extra: this.opts.chromeArgs,
    });
    this.chromium.exited.then(({ code, signal }) => {
      if (!this.alive) return;
      this.opts.log.warn({ user: this.opts.user, profile: this.opts.profile, code, signal }, 'chromium exited; it restarts on the next call');
      this.markDead();
    });
    const conn = this.chromium.conn;
    this.conn = conn;
    conn.onClose(() => this.markDead());
    this.alive = true;
    this.version = this.chromium.version;
    if (this.opts.identity) {
      // Chromium reports as many threads as the host has processors (the value an identity switched off goes back to).
      const { userAgent } = await conn.send('Browser.getVersion', {});
      const fullVersion = versionOf(this.version);
      this.agent = { fullVersion, native: nativeAgent(userAgent, fullVersion, cpus().length) };
    }
    this.disposables.add(conn.on('Target.attachedToTarget', '', (p) => this.onAttached(p)));
    this.disposables.add(conn.on('Target.detachedFromTarget', '', (p) => this.onDetached(p.targetId)));
    this.disposables.add(conn.on('Target.targetInfoChanged', '', ({ targetInfo }) => {
      if (this.foreignPages.has(targetInfo.targetId)) this.foreignPages.set(targetInfo.targetId, targetInfo.url);
    }));
    // No page stays on a browser-internal page, by any route (internal-pages.ts); on before discovery, which
    // announces the pages already open.
    this.disposables.add(new InternalPageWatch(conn, { daemonTabSession: (id) => this.daemonTabSession(id), log: this.opts.log }).start());
    await conn.send('Target.setDiscoverTargets', { discover: true });
    this.defaultContextId = (await conn.sendMayFail('Target.getBrowserContexts', {}))?.defaultBrowserContextId;
    await this.watchDownloads(conn);
    // Every page is attached paused, so read-mode rules are in place before its first request (popups too).
    await conn.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true });
    await this.reopenTabs();
    this.startedAt = new Date();
    this.opts.log.info({ user: this.opts.user, profile: this.opts.profile, ms: Date.now() - t0, browserPid: this.pid }, 'browser started');
  }

  /**
   * Downloads land in the user's files, once (downloads.ts). Set per browser context: each named context
   * gets the same behaviour when it is created (contextId), so no context falls back to Chromium's default.
   */
  private async watchDownloads(conn: CdpConnection) {
    const d = this.opts.downloads;
    if (!d) return;
    const { user, profile } = this.opts;
    this.downloads = new DownloadWatcher(conn, {
      stagingDir: d.files.stagingDir(user, profile ? `profile-${profile}` : 'default'),
      maxBytes: d.maxBytes,
      room: d.room,
      store: (name, staged) => d.files.addFile(user, name, staged),
      origin: (frameId) => this.downloadOrigin(frameId),
      log: this.opts.log,
    });
    this.disposables.add(this.downloads);
    if (d.onSettled) this.downloads.on('settled', d.onSettled);
    await this.downloads.enable();
  }

  /** The daemon's session on a page it made or adopted as a tab (scratch tabs too), or undefined for a foreign page. */
  private daemonTabSession(targetId: string): string | undefined {
    // A page a CDP client opened is closed like any page the daemon did not make (its history goes with it).
    const tab = [...this.tabs.values()].find((t) => t.targetId === targetId && !this.clientPages.has(targetId));
    if (tab) return tab.sessionId;
    return this.ownTargets.has(targetId) ? this.attached.get(targetId)?.sessionId : undefined;
  }

  /** A download's tab: a page's main frame id is its target id (a download from a subframe has no tab). */
  private downloadOrigin(frameId: string): DownloadOrigin {
    const tab = [...this.tabs.values()].find((t) => t.targetId === frameId);
    const context = tab?.record.context;
    return { tab, browserContextId: context ? this.contexts.get(context) : undefined };
  }

  private markDead() {
    if (!this.alive) return;
    this.alive = false;
    for (const t of this.tabs.values()) t.dispose();
    this.tabs.clear();
    this.contexts.clear();
    this.makingContexts.clear();
    this.clientPages.clear();
    this.foreignPages.clear();
    this.disposables.dispose();
    this.opts.onExit(this);
  }

  /**
   * Whether a page target is a read realm, for a CDP session client: a read tab (or a scratch tab, or a popup of
   * one not yet adopted), an act tab on a site the user's policy makes read-only, or none of this browser's tabs.
   */
  targetRealm(targetId: string): 'read' | 'act' | 'unknown' {
    const tab = [...this.tabs.values()].find((t) => t.targetId === targetId && !t.closed);
    if (tab) return tab.mode === 'read' || this.hostAccess(tab.url) === 'read_only' ? 'read' : 'act';
    if (this.scratchTargets.has(targetId) || this.unclaimed.has(targetId)) return 'read';
    // A page in a context the client made is held to the user's host policy as a tab is: read on a read-only site.
    const foreign = this.foreignPages.get(targetId);
    if (foreign !== undefined) return this.hostAccess(foreign) === 'read_only' ? 'read' : 'act';
    const a = this.attached.get(targetId);
    if (a?.openerId || this.ownTargets.has(targetId)) return 'read'; // a popup or a tab still being set up
    return 'unknown';
  }

  /** Every open read realm's page session: the user's read tabs and browser_read's scratch tabs. */
  private readSessions(): { sessionId: string; url: string }[] {
    const out = [...this.tabs.values()].filter((t) => t.mode === 'read' && !t.closed).map((t) => ({ sessionId: t.sessionId, url: t.url }));
    for (const id of this.scratchTargets) {
      const a = this.attached.get(id);
      if (a) out.push({ sessionId: a.sessionId, url: 'about:blank' });
    }
    return out;
  }

  /** A worker, or a page no tab owns: under the user's rules before it runs (worker-adoption.ts). */
  private adoptWorker(p: Parameters<typeof adoptBrowserWorker>[1]) {
    void adoptBrowserWorker(this.conn!, p, this.hostAccess, this.opts.log, this.opts.adFilter, () => this.readSessions(), this.serviceWorkers);
  }

  private onAttached(p: { sessionId: string; targetInfo: { targetId: string; type: string; openerId?: string; url: string; browserContextId?: string }; waitingForDebugger: boolean }) {
    const { targetId, type, openerId } = p.targetInfo;
    if (BROWSER_WORKER_TYPES.has(type)) {
      this.adoptWorker(p);
      return;
    }
    if (type !== 'page') {
      void this.conn!.sendMayFail('Runtime.runIfWaitingForDebugger', {}, p.sessionId);
      return;
    }
    const a = { sessionId: p.sessionId, waiting: p.waitingForDebugger, openerId, type };
    this.attached.set(targetId, a);
    const waiter = this.attachWaiters.get(targetId);
    if (waiter) {
      this.attachWaiters.delete(targetId);
      waiter(a);
      return;
    }
    // A page a page opened (or a foreign one) is coming, before any tab of ours holds it (Tab's bumpActivity).
    bumpActivity(this.conn!);
    const opener = openerId ? [...this.tabs.values()].find((t) => t.targetId === openerId) : undefined;
    if (opener) void this.adoptPopup(opener, targetId, a, p.targetInfo.url).catch((e) => this.opts.log.warn({ err: String(e) }, 'popup adoption failed'));
    else if (openerId && this.scratchTargets.has(openerId)) void this.dropScratchPopup(targetId, a);
    else if (!this.ownTargets.has(targetId)) {
      this.unclaimed.set(targetId, p);
      this.settleUnclaimed();
    }
  }

  /**
   * A page no tab owns (opened by a CDP session client, or by such a page) becomes one of the user's tabs, in act
   * mode: listed by browser_tabs, under the same rules as any tab, and running once they are in place
   * (adoptClientPage). Chromium may announce the daemon's own new target before answering its
   * Target.createTarget, so a page is only taken for foreign once no creation of ours is pending; until then it
   * stays paused.
   */
  private settleUnclaimed() {
    for (const [targetId, p] of [...this.unclaimed]) {
      if (this.ownTargets.has(targetId)) this.unclaimed.delete(targetId);
      else if (this.creating === 0) {
        this.unclaimed.delete(targetId);
        const context = this.contextNameOf(p.targetInfo.browserContextId);
        const a = this.attached.get(targetId);
        // A page in a context a client made for itself (gone with the client) is no tab a record could bring
        // back: it runs under the user's host policy like a worker does (blocked sites are not navigated to,
        // read-only sites get no writes).
        if (context === null || !a) {
          if (p.targetInfo.type === 'page' && a && this.foreignPagesFull()) {
            this.opts.log.info({ user: this.opts.user, max: this.opts.maxTabsPerUser }, 'a page in a CDP client\'s own context was closed: the user is at the tab limit');
            void this.closeUnrun(targetId, a);
            continue;
          }
          if (p.targetInfo.type === 'page') this.foreignPages.set(targetId, p.targetInfo.url);
          this.adoptWorker(p);
        }
        else void this.adoptClientPage(targetId, a, p.targetInfo.url, context).catch((e) => this.opts.log.warn({ err: String(e) }, 'adopting a page opened through CDP failed'));
      }
    }
  }

  /**
   * The context name of a browser context: undefined for the default one, null for one that is not the daemon's
   * (or when Chromium did not say which is the default: then no client page is taken for a tab).
   */
  private contextNameOf(browserContextId: string | undefined): string | undefined | null {
    for (const [name, id] of this.contexts) if (id === browserContextId) return name;
    return this.defaultContextId !== undefined && browserContextId === this.defaultContextId ? undefined : null;
  }

  /**
   * A page a CDP session client opened (or one its pages opened without an opener we hold) is a tab like any
   * other: an id, a record, the write guard, the injected script and the user's identity, then it runs. Act
   * mode: the client drives it with raw CDP anyway, and read mode's in-realm guard would refuse the isolated
   * worlds client libraries make. Past the user's tab cap it is closed before it loads anything, as a popup is.
   */
  private async adoptClientPage(targetId: string, a: { sessionId: string; waiting: boolean }, url: string, context: string | undefined) {
    const full = this.tabLimitReached();
    if (full) {
      this.opts.log.info({ user: this.opts.user, open: full.open, max: full.max }, 'a page opened through CDP was closed: the user is at the tab limit');
      await this.closeUnrun(targetId, a);
      return;
    }
    await this.adoptAsTab(targetId, a, /^https?:/.test(url) ? url : undefined, {
      url: /^https?:/.test(url) ? url : 'about:blank',
      mode: 'act',
      context,
    }, () => this.clientPages.add(targetId));
  }

  /**
   * Lists a page the daemon did not open (a popup, a CDP client's page) as a tab of the user, then lets it run once
   * its rules are in place. Its place under the tab cap is held from the caller's check until its record is
   * written: pages arrive by the dozen at once, each checked before any other's record exists. Rules that could
   * not be installed undo the listing: the page must not run without them.
   */
  private async adoptAsTab(
    targetId: string,
    a: { sessionId: string; waiting: boolean },
    identityUrl: string | undefined,
    fields: Pick<TabRecord, 'url' | 'mode'> & Partial<Pick<TabRecord, 'allowedDomains' | 'context' | 'opener'>>,
    onListed?: (id: string) => void,
  ): Promise<Tab> {
    const release = this.opts.tabs.hold(this.opts.user);
    let tab: Tab;
    let rec: TabRecord;
    try {
      const n = await this.opts.tabs.nextNumber(this.opts.user, this.opts.profile);
      rec = { id: formatTabId(n, this.opts.profile), user: this.opts.user, profile: this.opts.profile, createdAt: new Date().toISOString(), ...fields };
      tab = this.makeTab(rec, targetId, a.sessionId);
      this.tabs.set(rec.id, tab);
      onListed?.(rec.id);
      await this.opts.tabs.put(rec);
    } finally {
      release();
    }
    try {
      await tab.setup(a.waiting, { identityUrl });
    } catch (e) {
      this.tabs.delete(rec.id);
      await this.opts.tabs.remove(this.opts.user, rec.id);
      await tab.close();
      throw e;
    }
    return tab;
  }

  private onDetached(targetId: string | undefined) {
    if (!targetId) return;
    this.attached.delete(targetId);
    this.scratchTargets.delete(targetId);
    this.unclaimed.delete(targetId);
    this.foreignPages.delete(targetId);
    const fromClient = this.clientPages.delete(targetId);
    for (const t of this.tabs.values()) {
      if (t.targetId === targetId && !t.closed) {
        // Closed by the page (window.close) or crashed away: forget the live object, keep the record so the
        // tab id can be reopened at its last URL by the next call. A page a CDP client opened and closed is
        // gone for good: clients open and close pages by the hundred, and records would fill the tab cap.
        t.dispose();
        this.tabs.delete(t.id);
        if (fromClient) void this.opts.tabs.remove(this.opts.user, t.id);
      }
    }
  }

  private waitAttached(targetId: string): Promise<{ sessionId: string; waiting: boolean }> {
    const a = this.attached.get(targetId);
    if (a) return Promise.resolve(a);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.attachWaiters.delete(targetId);
        reject(new BrowserdError('internal_error', 'the new tab did not attach in time', { next: 'Try again.' }));
      }, 10000);
      this.attachWaiters.set(targetId, (a) => {
        clearTimeout(timer);
        resolve(a);
      });
    });
  }

  /**
   * A popup (target=_blank link or form, window.open, with or without noopener: Chromium names the opener
   * either way) inherits its opener's mode and allowedDomains and gets an id of its own. It is listed before it
   * runs, and runs only once its rules are in place.
   */
  private async adoptPopup(opener: Tab, targetId: string, a: { sessionId: string; waiting: boolean }, url: string) {
    const full = this.tabLimitReached();
    if (full) {
      // A page must not open tabs past the user's cap either: the popup is closed before it loads anything.
      opener.logEvent('popup', { detail: `a popup was closed before it loaded: ${full.open} open tabs is the per-user limit (${full.max})` });
      await this.closeUnrun(targetId, a);
      return;
    }
    // The opener's log says so once the popup is listed, before it runs: what the popup does comes after.
    await this.adoptAsTab(targetId, a, /^https?:/.test(url) ? url : opener.url, {
      url: 'about:blank',
      mode: opener.record.mode,
      allowedDomains: opener.record.allowedDomains,
      context: opener.record.context,
      opener: opener.id,
    }, (id) => opener.logEvent('popup', { detail: `opened tab ${id}` }));
  }

  /**
   * Closes a page still waiting to run, before it sends anything. It may share its opener's renderer, which stays
   * paused while it waits: a close alone does not complete there, and the opener stops answering. So its requests
   * are held first (Fetch pauses each one, and none is let go; WebSockets are cut off), then it runs, and is closed.
   */
  private async closeUnrun(targetId: string, a: { sessionId: string; waiting: boolean }) {
    if (a.waiting) {
      // WebSockets too, which Fetch never sees (network-cutoff.ts).
      await blockSockets(this.conn!, a.sessionId);
      await this.conn!.sendMayFail('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] }, a.sessionId);
      await this.conn!.sendMayFail('Runtime.runIfWaitingForDebugger', {}, a.sessionId);
    }
    await this.conn!.sendMayFail('Target.closeTarget', { targetId });
  }

  /**
   * browser_read's scratch tabs only read: a popup of theirs is closed. It may share its opener's renderer, which
   * stays paused while the popup waits, so it gets read rules, runs, and is closed at once.
   */
  private async dropScratchPopup(targetId: string, a: { sessionId: string; waiting: boolean }) {
    const tab = this.makeTab(this.scratchRecord(), targetId, a.sessionId, false);
    await tab.setup(a.waiting).catch(() => undefined);
    await tab.close();
  }

  private makeTab(rec: TabRecord, targetId: string, sessionId: string, persist = true): Tab {
    const tab = new Tab(this.conn!, rec, targetId, sessionId, (t) => {
      if (persist && !t.closed) void this.opts.tabs.put(t.record, false);
    }, { hostAccess: this.opts.hostAccess, adFilter: this.opts.adFilter, interception: this.opts.interception }, this.tabIdentity());
    if (persist) this.opts.onTab?.(tab);
    return tab;
  }

  private tabIdentity() {
    const user = this.opts.identity;
    if (!user || !this.agent) return undefined;
    const log = this.opts.log;
    return { user, browser: this.agent, onError: (e: unknown) => log.warn({ user: this.opts.user, err: String(e) }, 'identity not applied') };
  }

  /**
   * The browser context of a context name, made on first use. A making still under way is shared: two tabs
   * opened together into a new name (or reopened together after a restart) must land in one context, not in
   * two of which only the second is remembered (the first tab's cookies would then be nobody's to save,
   * load or close).
   */
  async contextId(name?: string): Promise<string | undefined> {
    if (!name) return undefined;
    const known = this.contexts.get(name);
    if (known) return known;
    let making = this.makingContexts.get(name);
    if (!making) {
      const conn = this.conn!;
      making = (async () => {
        const id = (await conn.send('Target.createBrowserContext', { disposeOnDetach: false })).browserContextId;
        this.contexts.set(name, id);
        await this.downloads?.enable(id);
        return id;
      })().finally(() => this.makingContexts.delete(name));
      this.makingContexts.set(name, making);
    }
    return making;
  }

  /**
   * Creates a target for a record, attaches it paused and installs the rules, in the host's turn for building
   * tabs. The caller navigates it afterwards, outside that turn.
   */
  private materialise(rec: TabRecord, opts: { visible?: boolean; persist?: boolean; drawn?: boolean } = {}): Promise<Tab> {
    const build = () => this.build(rec, opts);
    return this.opts.tabStarts ? this.opts.tabStarts.run(build) : build();
  }

  private async build(rec: TabRecord, opts: { visible?: boolean; persist?: boolean; drawn?: boolean }): Promise<Tab> {
    const conn = this.conn!;
    const browserContextId = await this.contextId(rec.context);
    const drawn = opts.drawn ?? true;
    // A window of its own for every tab: a tab behind another in one window draws no frames, and focus
    // emulation alone did not keep it drawing when the host was busy (screenshots then ran to the timeout).
    this.creating++;
    let targetId: string;
    try {
      ({ targetId } = await createPageTarget(conn, { url: 'about:blank', browserContextId, background: opts.visible === false, newWindow: drawn }));
      this.ownTargets.add(targetId);
    } finally {
      this.creating--;
      this.settleUnclaimed();
    }
    const a = await this.waitAttached(targetId);
    const tab = this.makeTab(rec, targetId, a.sessionId, opts.persist ?? true);
    await tab.setup(a.waiting, { drawn });
    if (opts.visible !== false) {
      await conn.sendMayFail('Target.activateTarget', { targetId });
      // In front means as a person would have it: the tab's own window maximised (a live view shows all of it).
      const win = await conn.sendMayFail('Browser.getWindowForTarget', { targetId });
      if (win) await conn.sendMayFail('Browser.setWindowBounds', { windowId: win.windowId, bounds: { windowState: 'maximized' } });
    }
    return tab;
  }

  /** The user's open tabs (every profile) when they are at the per-user cap; undefined while there is room. */
  /**
   * Pages in contexts a CDP client made are no tabs (nothing brings them back, browser_tabs does not list them),
   * but each is a renderer on this host: they are held under the same per-user number, counted with the user's
   * tabs, so a client cannot open pages without end. Counted here only, so a tab's own refusal still counts
   * what browser_tabs shows.
   */
  private foreignPagesFull(): boolean {
    const max = this.opts.maxTabsPerUser;
    return max !== undefined && this.opts.tabs.openCount(this.opts.user) + this.foreignPages.size >= max;
  }

  private tabLimitReached(): { open: number; max: number } | undefined {
    const max = this.opts.maxTabsPerUser;
    const open = this.opts.tabs.openCount(this.opts.user);
    return max !== undefined && open >= max ? { open, max } : undefined;
  }

  /** Opens a new tab; if the first load fails nothing is left behind (no target, no record). */
  async openTab(o: OpenTabOptions): Promise<Tab> {
    this.assertAlive();
    const full = this.tabLimitReached();
    if (full) {
      throw new BrowserdError('refused', `you have ${full.open} open tabs, the most one user may (per-user limit ${full.max})`, { next: 'Close tabs you no longer need with browser_close_tab, then open again.', details: { perUserTabLimit: full.max } });
    }
    // Held under the cap until the record is written, after the first load: calls in parallel count each other.
    const release = this.opts.tabs.hold(this.opts.user);
    try {
      return await this.openTabHeld(o);
    } finally {
      release();
    }
  }

  private async openTabHeld(o: OpenTabOptions): Promise<Tab> {
    const n = await this.opts.tabs.nextNumber(this.opts.user, this.opts.profile);
    const rec: TabRecord = {
      id: formatTabId(n, this.opts.profile),
      user: this.opts.user,
      url: o.url ?? 'about:blank',
      mode: o.mode,
      allowedDomains: o.allowedDomains?.length ? o.allowedDomains : undefined,
      context: o.context,
      profile: this.opts.profile,
      createdAt: new Date().toISOString(),
    };
    const tab = await this.materialise(rec, { visible: o.visible });
    try {
      if (o.url) {
        await o.beforeNavigate?.(tab);
        await tab.navigate(o.url);
      }
    } catch (e) {
      await tab.close();
      throw e;
    }
    this.tabs.set(rec.id, tab);
    rec.url = tab.url;
    await this.opts.tabs.put(rec);
    return tab;
  }

  /**
   * A read-mode tab that is not one of the user's tabs (no id, not persisted), for reading many URLs on the
   * user's own profile. The caller closes it. `drawn` keeps it drawing frames, in a window of its own: wheel
   * events (scrollUntil) are only answered by a tab that draws.
   */
  async scratchTab({ drawn = false }: { drawn?: boolean } = {}): Promise<Tab> {
    this.assertAlive();
    const tab = await this.materialise(this.scratchRecord(), { visible: false, persist: false, drawn });
    this.scratchTargets.add(tab.targetId);
    return tab;
  }

  /** A read-mode record for a tab that is never listed or persisted (scratch tabs and their popups). */
  private scratchRecord(): TabRecord {
    return { id: `scratch-${++this.scratchSeq}`, user: this.opts.user, url: 'about:blank', mode: 'read', profile: this.opts.profile, createdAt: new Date().toISOString() };
  }

  /** Reopens every persisted tab of this user/profile at its last URL, with the same id. */
  private async reopenTabs() {
    const records = this.opts.tabs.list(this.opts.user).filter((r) => (r.profile ?? undefined) === this.opts.profile);
    await Promise.all(records.map((r) => this.reopen(r)));
  }

  private async reopen(rec: TabRecord): Promise<Tab | undefined> {
    try {
      const tab = await this.materialise(rec, { visible: false });
      this.tabs.set(rec.id, tab);
      // A tab last seen on a browser-internal page (internal-pages.ts closed it) comes back blank, not there.
      if (rec.url && rec.url !== 'about:blank' && !isBrowserInternalUrl(rec.url)) await tab.navigate(rec.url).catch(() => undefined);
      return tab;
    } catch (e) {
      this.opts.log.warn({ user: this.opts.user, tab: rec.id, err: String(e) }, 'could not reopen tab');
      return undefined;
    }
  }

  /** After a change to the user's request rules: every open tab holds what the rules could now refuse. */
  async requestRulesChanged(): Promise<void> {
    await Promise.all([...[...this.tabs.values()].map((t) => t.requestRulesChanged()), this.serviceWorkers.rulesChanged()]);
  }

  /** The live tab for an id; a tab whose page crashed or closed is reopened at its last URL. */
  async getTab(id: string): Promise<Tab> {
    this.assertAlive();
    let tab = this.tabs.get(id);
    if (tab && tab.crashed) {
      await tab.close();
      this.tabs.delete(id);
      tab = undefined;
    }
    if (tab) return tab;
    const rec = this.opts.tabs.get(this.opts.user, id);
    if (!rec || (rec.profile ?? undefined) !== this.opts.profile) {
      throw new BrowserdError('not_found', `no tab ${id}`, { next: 'List your tabs with browser_tabs, or open one with browser_open.' });
    }
    const reopened = await this.reopen(rec);
    if (!reopened) throw new BrowserdError('action_failed', `tab ${id} could not be reopened`, { next: 'Close it with browser_close_tab and open a new one.' });
    return reopened;
  }

  async closeTab(id: string): Promise<void> {
    const tab = this.tabs.get(id);
    this.tabs.delete(id);
    if (tab) await tab.close();
    await this.opts.tabs.remove(this.opts.user, id);
  }

  /** Ends a context: its tabs, cookies and storage. */
  async closeContext(name: string): Promise<string[]> {
    const closed: string[] = [];
    for (const rec of this.opts.tabs.list(this.opts.user)) {
      if (rec.context === name && (rec.profile ?? undefined) === this.opts.profile) {
        await this.closeTab(rec.id);
        closed.push(rec.id);
      }
    }
    const id = this.contexts.get(name);
    if (id) {
      this.contexts.delete(name);
      await this.conn!.sendMayFail('Target.disposeBrowserContext', { browserContextId: id });
    }
    return closed;
  }

  private assertAlive() {
    if (!this.alive || !this.conn || this.conn.closed) {
      throw new BrowserdError('browser_crashed', "the user's browser stopped", { next: 'Call again: it restarts with your tabs.' });
    }
  }

  /** Closes gracefully: Browser.close lets Chromium flush cookies to the profile. */
  async close(): Promise<void> {
    const wasAlive = this.alive;
    this.alive = false;
    for (const t of this.tabs.values()) t.dispose();
    this.disposables.dispose();
    const graceful = wasAlive && this.conn ? (await this.conn.sendMayFail('Browser.close', {}, undefined, 5000)) !== undefined : false;
    await this.conn?.close();
    // After a Browser.close that was answered, give Chromium time to finish writing the profile on its own.
    await this.chromium?.close(graceful ? 8000 : 1000);
  }

  /** Kill without ceremony (tests of crash recovery use the pid instead). */
  kill() {
    this.chromium?.process.kill('SIGKILL');
  }
}

export function instanceKey(user: string, profile?: string) {
  return profile ? `${user}/${profile}` : user;
}
