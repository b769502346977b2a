/**
 * One tab: its CDP session, the isolated world where the injected script lives, dialogs, navigation and
 * settling. It composes the parts that watch the page's traffic: network bookkeeping (tab-network.ts), the write
 * rules (write-guard.ts) and the adoption of every target the page spawns (target-adoption.ts). Tools reach the
 * page only through a Tab.
 */
import type { CdpConnection } from '../cdp/connection.js';
import { CdpError, DisposableStore, type Disposable } from '../cdp/connection.js';
import { BrowserdError } from '../../protocol/errors.js';
import type { TabRecord } from '../../storage/tabs.js';
import type { InjectedAnswer, InjectedApi, InjectedFunctionName } from '../../injected/api.js';
import { injectedFailure } from './injected-failure.js';
import { injectedSource } from './injected-source.js';
import { LISTENER_MARKER_SOURCE } from '../../injected/listeners.js';
import { Ring, type LogEntry, type NetworkEntry, type LogKind } from './tab-log.js';
import { READ_TAB_GUARD } from './read-guard.js';
import { TabNetwork, assertAlive } from './tab-network.js';
import { WriteGuard, type DocumentJudge, type RequestRules, type Responder } from './write-guard.js';
import { TargetAdoption, AUTO_ATTACH } from './target-adoption.js';
import { CrossFrames, type FrameCtx } from './cross-frames.js';
import { TrafficRecorder } from './traffic-recorder.js';
import { TabRoutes } from './routes.js';
import { registeredScopes } from './service-worker-registrations.js';
import { TabIdentity, type UserIdentity, type BrowserAgent } from '../identity/tab-identity.js';
import type { Point } from '../identity/humanize.js';
import { ALLOW_PRIVATE_NEXT } from '../net/allow-private.js';

const WORLD = 'browserd';
/** Tab.closeTarget: how often a close is sent, and how long each waits for the page to go. */
const CLOSE_ATTEMPTS = 3;
const CLOSE_CHECK_MS = 500;

/**
 * Per browser (its CDP connection): act tabs made and main-frame documents they started or committed, popups
 * attached. A caller compares the count across an await to know that no page of the kind came or went meanwhile
 * (daemon/secrets/site-storage.ts, cleaning a site's storage). Read tabs do not count: they bypass service workers.
 */
const activity = new WeakMap<CdpConnection, { n: number }>();
export function bumpActivity(conn: CdpConnection): void {
  let a = activity.get(conn);
  if (!a) activity.set(conn, (a = { n: 0 }));
  a.n++;
}

/** A main-frame page event (Tab.onPageEvents). */
export type PageEvent = { kind: 'navigated'; url: string; loaderId: string } | { kind: 'contentLoad' | 'load'; timestamp: number };

/** The user's persistent identity for a tab of this browser build (daemon/identity). */
export interface TabIdentityOptions { user: UserIdentity; browser: BrowserAgent; onError: (e: unknown) => void }

export class Tab {
  readonly record: TabRecord;
  readonly targetId: string;
  sessionId: string;
  readonly writeLog = new Ring<LogEntry>(500);
  /** browser_route's mocks and blocks: in memory with the tab, so they end when it closes or the browser restarts. */
  /** browser_route's rules; a tab reopened after a crash or restart takes over the ones it had (adoptRoutes). */
  routes = new TabRoutes();
  private disposables = new DisposableStore();
  private readonly net: TabNetwork;
  /** The tab's requests and responses as they happen, for capture, HAR and API maps (passive; keeps nothing unsubscribed). */
  readonly traffic: TrafficRecorder;
  private readonly guard: WriteGuard;
  private readonly adoption: TargetAdoption;
  /** Follows a session's Network events for the tab's bookkeeping and its traffic recorder. */
  private readonly listenNetwork: (session: string, d: DisposableStore) => void;
  private worldContext?: number;
  private mainFrameId?: string;
  /** Frames the top script cannot enter, reached through their own sessions (cross-frames.ts). */
  private readonly crossFrames = new CrossFrames({
    callIn: (ctx, fn, args, expectWorld) => this.callIn(ctx, fn, args, expectWorld),
    worldOf: (ctx) => this.frameWorld(ctx),
    frameOf: (parent, k) => this.frameOf(parent, k),
  });
  /** The `browserd` world of each such frame's document, by FrameCtx.key. */
  private frameWorlds = new Map<string, number>();
  private confirmNext = false;
  /** A main-frame navigation to a new document started and has not committed (or stopped) yet: where it lands is not known. */
  navigationPending = false;
  crashed = false;
  closed = false;
  private leaving = false;
  /** Counts main-frame navigations requested / loads stopped, so an action can see what it started. */
  private navRequested = 0;
  private loadsStopped = 0;
  /** The persistent identity of this tab's sessions, when the user has one (daemon/identity/tab-identity.ts). */
  private readonly identity?: TabIdentity;
  /** Where the pointer last was (viewport CSS pixels): a humanized move starts from here. */
  pointer: Point = { x: 40 + Math.round(Math.random() * 200), y: 40 + Math.round(Math.random() * 120) };
  /** Requests failed as ads or trackers since the tab opened; the current document's count is in its log entry. */
  adsBlocked = 0;
  private adsEntry?: LogEntry;
  /** The document the page's ads are counted under: its loader (its request's network id) and its address. */
  private adsDocument?: { loaderId?: string; url: string };

  constructor(
    private conn: CdpConnection,
    record: TabRecord,
    targetId: string,
    sessionId: string,
    private onUrlChange: (tab: Tab) => void,
    /** The user's rules for the tab's requests (host policy, ad blocking). */
    rules: RequestRules = {},
    identity?: TabIdentityOptions,
  ) {
    this.record = record;
    this.targetId = targetId;
    this.sessionId = sessionId;
    const self = this;
    const owner = {
      get mode() { return self.record.mode; },
      get url() { return self.record.url; },
      get allowedDomains() { return self.record.allowedDomains; },
      get closed() { return self.closed; },
      get crashed() { return self.crashed; },
      mainFrameId: () => this.mainFrameId,
      logEvent: (kind: LogKind, e: Omit<LogEntry, 'at' | 'kind'>) => this.logEvent(kind, e),
      noteAdBlocked: (networkId: string) => this.net.markAdBlocked(networkId),
      documentRequested: (networkId: string | undefined, url: string) => this.documentRequested(networkId, url),
    };
    this.net = new TabNetwork(conn, owner);
    this.traffic = new TrafficRecorder(conn);
    // Frames and dedicated workers share this guard (target-adoption.ts), so the tab's routes hold there too.
    this.guard = new WriteGuard(conn, owner, rules, this.routes);
    const listenNetwork = (session: string, d: DisposableStore) => {
      this.net.listen(session, d);
      this.traffic.listen(session, d);
    };
    if (identity) {
      const id = new TabIdentity(conn, identity.user, identity.browser, this.disposables, identity.onError);
      this.identity = id;
      this.guard.onDocument = (session, p) => id.onDocument(session, p);
    }
    const onFrame = this.identity
      ? (session: string, target: { targetId: string; url: string }, d: DisposableStore) => this.identity!.adoptFrame(session, target.targetId, target.url, d)
      : undefined;
    this.adoption = new TargetAdoption(conn, owner, this.guard, this.disposables, listenNetwork, () => this.record.mode === 'read' || this.guard.pageIsReadOnly(), onFrame);
    this.listenNetwork = listenNetwork;
    if (record.mode === 'act') bumpActivity(conn);
  }

  /**
   * The User-Agent (and with the user's identity its client hints and Accept-Language) a request of the tab's
   * page carries now: what the daemon sends when it fetches for the page itself (docs/load-file.ts), so a site
   * sees the same browser as the page's own requests show.
   */
  async agentHeaders(): Promise<Record<string, string>> {
    if (this.identity) return this.identity.headersFor(this.record.url);
    const { userAgent } = await this.conn.send('Browser.getVersion', {});
    return { 'user-agent': userAgent };
  }

  /** The browser's activity count (bumpActivity): equal across an await when no act tab came or moved meanwhile. */
  browserActivity(): number {
    return activity.get(this.conn)?.n ?? 0;
  }

  private bump() {
    if (this.record.mode === 'act') bumpActivity(this.conn);
  }

  get id() {
    return this.record.id;
  }

  /** Takes over the routes of the tab this one replaces (same id, after a crash or restart). */
  async adoptRoutes(routes: TabRoutes): Promise<void> {
    this.routes = routes;
    await this.guard.useRoutes(routes);
  }

  /**
   * To be awaited after a change to the tab's routes or the user's request rules, before the change is
   * acknowledged: the tab's sessions then pause every request the change could refuse or answer.
   */
  async requestRulesChanged(): Promise<void> {
    await this.guard.refresh();
  }
  get mode() {
    return this.record.mode;
  }
  get url() {
    return this.record.url;
  }
  /** The main document's last response, if one arrived (a crawl records its status and type). */
  get lastDocument(): { url: string; status: number; mimeType: string } | undefined {
    return this.net.lastDocument;
  }

  /**
   * The main document's bytes as the server sent them (browser_read reads a feed's XML this way, not the viewer
   * Chromium draws for it); undefined when Chromium no longer holds them.
   */
  async documentBody(): Promise<Buffer | undefined> {
    const doc = this.net.lastDocument;
    if (!doc) return undefined;
    const r = await this.conn.sendMayFail('Network.getResponseBody', { requestId: doc.requestId }, this.sessionId);
    return r ? Buffer.from(r.body, r.base64Encoded ? 'base64' : 'utf8') : undefined;
  }

  /** Lets `responder` answer the tab's requests (a cache replaying; writes too, to fail them when strict); returns the detach. */
  async setResponder(responder: Responder): Promise<() => Promise<void>> {
    await this.guard.setResponder(responder);
    return () => this.guard.dropResponder(responder);
  }

  /**
   * Lets `judge` refuse each http(s) document request of the tab (its own page's redirect hops and the
   * navigations its page starts, frames', popups') before it goes out; undefined takes it off. Resolves once
   * every session of the tab holds its document requests for the judge.
   */
  judgeDocuments(judge: DocumentJudge | undefined): Promise<void> {
    return this.guard.judgeDocuments(judge);
  }

  /** Calls `cb` with every GET response the tab's page receives, body included (a cache recording). */
  async onResponses(cb: (r: { url: string; status: number; headers: Record<string, string>; body: Buffer }) => void): Promise<() => Promise<void>> {
    const d = new DisposableStore();
    const gets = new Set<string>();
    const meta = new Map<string, { url: string; status: number; headers: Record<string, string> }>();
    const inFlight = new Set<Promise<void>>();
    const sid = this.sessionId;
    d.add(this.conn.on('Network.requestWillBeSent', sid, (p) => {
      // A redirect hop arrives as the next request's redirectResponse: it is a response of its own to keep,
      // so a replay answers the old address with the same redirect and the page ends where it did.
      const hop = p.redirectResponse;
      if (hop && gets.has(p.requestId)) cb({ url: hop.url, status: hop.status, headers: Object.fromEntries(Object.entries(hop.headers).map(([k, v]) => [k.toLowerCase(), String(v)])), body: Buffer.alloc(0) });
      if (p.request.method === 'GET') gets.add(p.requestId);
      else gets.delete(p.requestId);
    }));
    d.add(this.conn.on('Network.responseReceived', sid, (p) => {
      if (!gets.has(p.requestId)) return;
      const headers = Object.fromEntries(Object.entries(p.response.headers).map(([k, v]) => [k.toLowerCase(), String(v)]));
      meta.set(p.requestId, { url: p.response.url, status: p.response.status, headers });
    }));
    d.add(this.conn.on('Network.loadingFinished', sid, (p) => {
      const m = meta.get(p.requestId);
      meta.delete(p.requestId);
      gets.delete(p.requestId);
      if (!m) return;
      const got = this.conn.sendMayFail('Network.getResponseBody', { requestId: p.requestId }, sid).then((r) => {
        if (r) cb({ ...m, body: Buffer.from(r.body, r.base64Encoded ? 'base64' : 'utf8') });
      });
      inFlight.add(got);
      void got.finally(() => inFlight.delete(got));
    }));
    // The detach waits for the bodies already asked for: a page read just before it is then recorded whole.
    return async () => {
      d.dispose();
      await Promise.allSettled([...inFlight]);
    };
  }

  /**
   * The main frame's page events, for a HAR's pages: a document committed (with its loader id, which is also
   * the request id of the document's request), DOMContentLoaded and load (Chromium's monotonic seconds, the
   * clock of Network timestamps). Dispose to stop; closing the tab stops it too.
   */
  onPageEvents(cb: (e: PageEvent) => void): Disposable {
    const d = new DisposableStore();
    const s = this.sessionId;
    d.add(this.conn.on('Page.frameNavigated', s, ({ frame }) => {
      if (!frame.parentId && !this.leaving) cb({ kind: 'navigated', url: frame.url + (frame.urlFragment ?? ''), loaderId: frame.loaderId });
    }));
    d.add(this.conn.on('Page.domContentEventFired', s, ({ timestamp }) => cb({ kind: 'contentLoad', timestamp })));
    d.add(this.conn.on('Page.loadEventFired', s, ({ timestamp }) => cb({ kind: 'load', timestamp })));
    this.disposables.add(d);
    return d;
  }

  /** Recent responses (browser_network). */
  get network(): Ring<NetworkEntry> {
    return this.net.ring;
  }

  /**
   * Enables domains, installs the injected script and the mode's network rules, then lets the page run.
   * `drawn: false` is for tabs nobody looks at or points into (browser_read's scratch tabs): they are not
   * kept drawing frames, which costs a busy host CPU for nothing; layout and the DOM still answer.
   */
  async setup(waitingForDebugger: boolean, { drawn = true, identityUrl }: { drawn?: boolean; identityUrl?: string } = {}): Promise<void> {
    const s = this.sessionId;
    const c = this.conn;
    // A popup's first document gets the identity of the address it opens (or its opener's): planned before
    // anything is sent, so the switch goes out ahead of the resume below.
    this.identity?.track(s, this.targetId, this.disposables);
    const plan = this.identity && identityUrl ? await this.identity.planFor(identityUrl) : undefined;
    this.listen();
    const steps: Promise<unknown>[] = [
      c.send('Page.enable', {}, s),
      c.send('Page.setLifecycleEventsEnabled', { enabled: true }, s),
      c.send('Runtime.enable', {}, s),
      c.send('Network.enable', {}, s),
      c.send('Page.addScriptToEvaluateOnNewDocument', { source: injectedSource(), worldName: WORLD, runImmediately: true }, s),
      c.send('Page.addScriptToEvaluateOnNewDocument', { source: LISTENER_MARKER_SOURCE, runImmediately: true }, s),
      // Requests a rule could refuse are held for a verdict: read tabs abort writes, read-only sites refuse
      // writes in act tabs too, and allowedDomains and blocked hosts stop navigations (redirect hops and popups
      // included). Of an act tab with no such rule, none are (write-guard.ts interception()).
      this.guard.guard(s, this.disposables),
      // A tab that is not in front still gets focus events and frames, so input and screenshots work on it.
      drawn ? c.sendMayFail('Emulation.setFocusEmulationEnabled', { enabled: true }, s) : Promise.resolve(),
      // Children (iframes in other processes, workers, their children) are attached paused so the same rules hold there.
      c.send('Target.setAutoAttach', AUTO_ATTACH, s),
    ];
    if (this.record.mode === 'read') {
      // WebSockets, WebRTC and shared workers are not seen by this session's Fetch: remove them from every realm (read-guard.ts).
      // Service workers could fetch on the page's behalf outside this session: bypass them.
      steps.push(c.send('Page.addScriptToEvaluateOnNewDocument', { source: READ_TAB_GUARD, runImmediately: true }, s));
      steps.push(c.send('Network.setBypassServiceWorker', { bypass: true }, s));
    }
    if (this.record.viewport) steps.push(this.applyViewport(this.record.viewport));
    if (this.identity && identityUrl) steps.push(this.identity.apply(s, identityUrl, plan));
    // A paused popup answers some of these (Page.enable) only once it runs. A session handles commands in the
    // order sent, so the rules are in place when the resume that follows them is handled: send all, resume,
    // then wait for the answers.
    if (waitingForDebugger) steps.push(c.sendMayFail('Runtime.runIfWaitingForDebugger', {}, s));
    await Promise.all(steps);
    const tree = await c.send('Page.getFrameTree', {}, s);
    this.mainFrameId = tree.frameTree.frame.id;
  }

  applyViewport(v: { width: number; height: number; deviceScaleFactor?: number }) {
    return this.conn.send('Emulation.setDeviceMetricsOverride', { width: v.width, height: v.height, deviceScaleFactor: v.deviceScaleFactor ?? 1, mobile: false }, this.sessionId);
  }

  logEvent(kind: LogKind, e: Omit<LogEntry, 'at' | 'kind'>) {
    if (kind === 'ads_blocked') return this.countAdBlocked(e);
    this.writeLog.push({ at: new Date().toISOString(), kind, ...e });
  }

  /**
   * Ads are counted, one log entry a document, so a page with a hundred trackers does not push the writes out of
   * the log; browser_network lists each one as blocked:ads.
   */
  private countAdBlocked(e: Omit<LogEntry, 'at' | 'kind'>) {
    this.adsBlocked++;
    const entry = this.adsEntry;
    const url = this.adsDocument?.url ?? this.record.url;
    if (entry && entry.url === url) {
      entry.count = (entry.count ?? 0) + 1;
      entry.detail = `${entry.count} requests blocked as ads or trackers, the last ${e.url}`;
      return;
    }
    this.adsEntry = { at: new Date().toISOString(), kind: 'ads_blocked', url, count: 1, detail: `1 request blocked as an ad or tracker: ${e.url}` };
    this.writeLog.push(this.adsEntry);
  }

  /**
   * The main frame's document request went out: a new document's ads count from here. The write guard sees this
   * request before any of the document's own, while Page.frameNavigated comes from the renderer by another way
   * and can reach us after the first of them (which then made a second entry for one page).
   */
  private documentRequested(loaderId: string | undefined, url: string) {
    if (this.adsDocument?.loaderId !== loaderId || loaderId === undefined) this.adsEntry = undefined;
    this.adsDocument = { loaderId, url };
  }

  private listen() {
    const c = this.conn;
    const s = this.sessionId;
    const d = this.disposables;
    d.add(c.on('Runtime.executionContextCreated', s, ({ context }) => {
      if (context.name === WORLD && context.auxData?.frameId === this.mainFrameId) this.worldContext = context.id;
    }));
    d.add(c.on('Runtime.executionContextDestroyed', s, ({ executionContextId }) => {
      if (executionContextId === this.worldContext) this.worldContext = undefined;
    }));
    d.add(c.on('Runtime.executionContextsCleared', s, () => {
      this.worldContext = undefined;
      this.crossFrames.reset();
      this.frameWorlds.clear();
    }));
    d.add(c.on('Page.frameNavigated', s, ({ frame }) => {
      if (frame.parentId) return;
      this.mainFrameId = frame.id;
      this.navigationPending = false;
      this.bump();
      // A new document starts its own count of ads blocked, unless it was counted from its request already
      // (documentRequested; a navigation's document request has the new document's loader id as its id).
      if (frame.loaderId !== this.adsDocument?.loaderId) {
        this.adsEntry = undefined;
        this.adsDocument = undefined;
      }
      this.worldContext = undefined;
      this.crossFrames.reset();
      const url = frame.url + (frame.urlFragment ?? '');
      // Leaving through about:blank on close is not a new address for the tab's record.
      if (frame.url && url !== this.record.url && !this.leaving) {
        this.record.url = url;
        this.onUrlChange(this);
      }
    }));
    d.add(c.on('Page.navigatedWithinDocument', s, ({ frameId, url }) => {
      if (frameId === this.mainFrameId && url !== this.record.url) {
        this.record.url = url;
        this.onUrlChange(this);
      }
    }));
    d.add(c.on('Page.javascriptDialogOpening', s, (p) => {
      // alert() has only OK; confirm()/prompt()/beforeunload are answered NO unless the agent allowed the next one.
      const accept = p.type === 'alert' ? true : this.confirmNext;
      if (p.type !== 'alert') this.confirmNext = false;
      this.logEvent('dialog', { detail: `${p.type}: ${p.message.slice(0, 200)} -> ${accept ? 'accepted' : 'dismissed'}` });
      void c.sendMayFail('Page.handleJavaScriptDialog', { accept, promptText: accept ? p.defaultPrompt ?? '' : undefined }, s);
    }));
    d.add(c.on('Inspector.targetCrashed', s, () => {
      this.crashed = true;
      this.logEvent('crash', { detail: 'the page crashed; it is reloaded on the next call' });
    }));
    d.add(c.on('Page.frameRequestedNavigation', s, (p) => {
      // Only navigations of this tab's own page: a link to a new tab or a download loads nothing here.
      if (p.frameId === this.mainFrameId && p.disposition === 'currentTab' && !/^(javascript|about):/.test(p.url)) this.navRequested++;
    }));
    d.add(c.on('Page.frameStartedLoading', s, (p) => {
      if (p.frameId === this.mainFrameId) this.navRequested++;
    }));
    d.add(c.on('Page.frameStoppedLoading', s, (p) => {
      if (p.frameId !== this.mainFrameId) return;
      this.loadsStopped++;
      this.navigationPending = false;
    }));
    d.add(c.on('Page.frameStartedNavigating', s, (p) => {
      if (p.frameId !== this.mainFrameId || /samedocument$/i.test(p.navigationType)) return;
      this.navigationPending = true;
      this.bump();
    }));
    d.add(c.on('Runtime.exceptionThrown', s, (p) => this.logEvent('console_error', { detail: (p.exceptionDetails.exception?.description ?? p.exceptionDetails.text).slice(0, 300) })));
    d.add(c.on('Runtime.consoleAPICalled', s, (p) => {
      if (p.type === 'error') this.logEvent('console_error', { detail: p.args.map((a) => a.value ?? a.description ?? '').join(' ').slice(0, 300) });
    }));
    this.listenNetwork(s, d);
    this.adoption.watch(s);
  }

  /** The page's title (page text: callers fence it). */
  async title(): Promise<string> {
    const r = await this.conn.sendMayFail('Runtime.evaluate', { expression: 'document.title', returnByValue: true }, this.sessionId);
    return String(r?.result.value ?? '');
  }

  /** Marks the state before an input action; afterAction() compares against it. */
  mark(): { nav: number; loads: number } {
    return { nav: this.navRequested, loads: this.loadsStopped };
  }

  navigationSince(m: { nav: number }): boolean {
    return this.navRequested !== m.nav;
  }

  loadStoppedSince(m: { loads: number }): boolean {
    return this.loadsStopped !== m.loads;
  }

  /** Whether input into this tab's page is humanized: the identity applies to it and profile.humanize is not false. */
  humanInput(): boolean {
    return this.identity?.humanizes(this.record.url) ?? false;
  }

  allowNextConfirm() {
    this.confirmNext = true;
  }

  send: CdpConnection['send'] = (method, params, _session, timeout) => this.conn.send(method, params, this.sessionId, timeout);

  /** The scope URLs of every service worker registered in the tab's browser context, on any origin. */
  serviceWorkerScopes(): Promise<string[]> {
    return registeredScopes(this.conn, this.sessionId);
  }

  // ------------------------------------------------------------------ the injected script

  private async worldId(): Promise<number> {
    if (this.worldContext !== undefined) return this.worldContext;
    if (!this.mainFrameId) {
      const tree = await this.conn.send('Page.getFrameTree', {}, this.sessionId);
      this.mainFrameId = tree.frameTree.frame.id;
    }
    const { executionContextId } = await this.conn.send('Page.createIsolatedWorld', { frameId: this.mainFrameId, worldName: WORLD, grantUniveralAccess: false }, this.sessionId);
    this.worldContext = executionContextId;
    return executionContextId;
  }

  /**
   * Calls a function of the injected API in the main frame's isolated world and returns its value; a failure
   * the script reports becomes a BrowserdError here and nowhere else (injected-failure.ts). Refs `fK:eN` of
   * frames the top script cannot enter, and readings that include such frames, go through cross-frames.ts.
   */
  call<K extends InjectedFunctionName>(fn: K, ...args: Parameters<InjectedApi[K]>): Promise<ReturnType<InjectedApi[K]>> {
    return this.crossFrames.call(fn, args);
  }

  /** The element behind a ref as a CDP object of its world, with that world's session; undefined when it is gone. */
  async elementIn(ref: string): Promise<{ objectId: string; session: string } | undefined> {
    const t = this.crossFrames.target(ref);
    const session = t?.ctx.session ?? this.sessionId;
    const contextId = t ? await this.frameWorld(t.ctx) : await this.worldId();
    if (t && contextId !== t.world) return undefined;
    const r = await this.conn.send('Runtime.evaluate', { expression: `__browserd.elementFor(${JSON.stringify(t?.inner ?? ref)}).value`, contextId, returnByValue: false }, session);
    if (!r.result.objectId || r.result.subtype !== 'node') return undefined;
    return { objectId: r.result.objectId, session };
  }

  /** A CDP command on one of the tab's sessions (a cross-origin frame's, as elementIn gives it). */
  sendOn: CdpConnection['send'] = (method, params, session, timeout) => this.conn.send(method, params, session ?? this.sessionId, timeout);

  /** The `browserd` world of a cross-origin frame's document (made on first use; a new document gets a new one). */
  private async frameWorld(ctx: FrameCtx): Promise<number> {
    const known = this.frameWorlds.get(ctx.key);
    if (known !== undefined) return known;
    const made = await this.conn.sendMayFail('Page.createIsolatedWorld', { frameId: ctx.frameId, worldName: WORLD, grantUniveralAccess: false }, ctx.session);
    if (!made) throw new BrowserdError('stale_ref', 'the frame this ref belongs to is gone (it was removed or loaded another page)', { next: 'Take a new browser_snapshot.' });
    const { executionContextId } = made;
    this.frameWorlds.set(ctx.key, executionContextId);
    return executionContextId;
  }

  /** The frame behind <iframe> number k of a document (its CDP node says which), and the session that reaches it. */
  private async frameOf(parent: FrameCtx | null, k: number): Promise<{ session: string; frameId: string } | null> {
    const session = parent?.session ?? this.sessionId;
    const contextId = parent ? await this.frameWorld(parent) : await this.worldId();
    const r = await this.conn.send('Runtime.evaluate', { expression: `__browserd.frameOwner(${k}).value`, contextId, returnByValue: false }, session);
    const objectId = r.result.objectId;
    if (!objectId || r.result.subtype !== 'node') return null;
    try {
      const { node } = await this.conn.send('DOM.describeNode', { objectId }, session);
      if (!node.frameId) return null;
      // A frame in another process has a session of its own (target-adoption.ts); one in this process shares its parent's.
      return { session: this.adoption.frameSession(node.frameId) ?? session, frameId: node.frameId };
    } finally {
      void this.conn.sendMayFail('Runtime.releaseObject', { objectId }, session);
    }
  }

  /** One API call in one world: the top document's (ctx null) or a cross-origin frame's. */
  private async callIn<K extends InjectedFunctionName>(ctx: FrameCtx | null, fn: K, args: unknown[], expectWorld?: number): Promise<ReturnType<InjectedApi[K]>> {
    const expr = `globalThis.__browserd ? __browserd.${String(fn)}(...${JSON.stringify(args)}) : '__browserd_missing__'`;
    const session = ctx?.session ?? this.sessionId;
    for (let attempt = 0; attempt < 3; attempt++) {
      const contextId = ctx ? await this.frameWorld(ctx) : await this.worldId();
      // The frame shows another document than the ref came from: the same number there is another element.
      if (expectWorld !== undefined && contextId !== expectWorld) throw new BrowserdError('stale_ref', 'the frame this ref belongs to has loaded another page since', { next: 'Take a new browser_snapshot.' });
      let r;
      try {
        r = await this.conn.send('Runtime.evaluate', { expression: expr, contextId, returnByValue: true, awaitPromise: true }, session);
      } catch (e) {
        // The world went away under us (navigation): make a new one and try again.
        if (e instanceof CdpError && /context/i.test(e.message)) {
          if (ctx) this.frameWorlds.delete(ctx.key);
          else this.worldContext = undefined;
          continue;
        }
        // A frame's session ends when the frame goes or moves to another process: its refs went with it.
        if (ctx && e instanceof CdpError) throw new BrowserdError('stale_ref', 'the frame this ref belongs to is gone (it was removed or loaded another page)', { next: 'Take a new browser_snapshot.' });
        throw e;
      }
      if (r.exceptionDetails) {
        // What was thrown can quote the page (a selector, a value read from it): the error's page text.
        throw new BrowserdError('action_failed', 'the in-page script failed; what it threw is the page text of this error', {
          next: 'Take a new browser_snapshot and try again.',
          pageText: r.exceptionDetails.exception?.description?.split('\n')[0] ?? r.exceptionDetails.text,
        });
      }
      if (r.result.value === '__browserd_missing__') {
        await this.conn.send('Runtime.evaluate', { expression: injectedSource(), contextId }, session);
        continue;
      }
      const answer = r.result.value as InjectedAnswer<ReturnType<InjectedApi[K]>>;
      if (!answer.ok) throw injectedFailure(answer);
      return answer.value;
    }
    throw new BrowserdError('action_failed', 'the page kept navigating while the in-page script was called', { next: 'Wait for the page to settle (browser_wait) and try again.' });
  }

  // ------------------------------------------------------------------ navigation

  /** Navigates and waits for the page to settle. Throws navigation_failed when the page does not load. */
  async navigate(url: string, timeoutMs = 30000): Promise<void> {
    const started = Date.now();
    const loaded = this.waitForLoad(timeoutMs);
    this.net.documentEgress = undefined;
    // The identity is switched before the request leaves, so the document and its first scripts see it.
    await this.identity?.prepare(this.sessionId, url);
    const r = await this.conn.send('Page.navigate', { url }, this.sessionId, timeoutMs);
    if (r.errorText) {
      loaded.catch(() => undefined);
      // The block of this navigation: the newest block logged since it began (other events, such as a popup the
      // old page opened, may be logged after it).
      const blocked = /BLOCKED_BY_CLIENT/.test(r.errorText)
        ? this.writeLog.all().filter((e) => (e.kind === 'navigation_blocked' || e.kind === 'route_blocked') && Date.parse(e.at) >= started - 1).at(-1)
        : undefined;
      if (blocked?.kind === 'navigation_blocked') {
        throw new BrowserdError('blocked', `navigation to ${url} was blocked: ${blocked.detail}`, { next: 'Report this to the user; do not try another way. allowedDomains are set when a tab is opened.' });
      }
      // A route's block of this document (or of a redirect hop on its way), not of some request of the old page.
      if (blocked?.kind === 'route_blocked' && blocked.detail?.startsWith('Document ')) {
        throw new BrowserdError('navigation_failed', `${url} did not load: ${blocked.detail} of this tab`, { next: 'Remove the route (browser_route action "remove") to load the page.' });
      }
      throw new BrowserdError('navigation_failed', `${url} did not load: ${r.errorText}`, { next: 'Check the address; if the site is down, try again later.' });
    }
    if (!r.loaderId) {
      // Same-document navigation (fragment): nothing to wait for.
      loaded.catch(() => undefined);
      return;
    }
    await loaded.catch(() => undefined);
    await this.settle(Math.min(1500, Math.max(0, timeoutMs - (Date.now() - started))));
    this.assertNotRefusedByGuard(url);
  }

  /** When the egress guard answered instead of the site, the page did not load: say so. */
  assertNotRefusedByGuard(url: string) {
    const e = this.net.documentEgress;
    if (!e) return;
    if (e.verdict === 'blocked') {
      throw new BrowserdError('blocked', `${url} points at a loopback, private or link-local address, which pages may not reach`, { next: ALLOW_PRIVATE_NEXT });
    }
    throw new BrowserdError('navigation_failed', `${url} did not load: the host could not be reached`, { next: 'Check the address; if the site is down, try again later.' });
  }

  /**
   * Resolves at the main frame's next load event, or rejects on timeout. A rejection nobody awaits (the
   * navigation itself failed first) is marked handled here: it must never surface as an unhandled rejection.
   */
  waitForLoad(timeoutMs = 30000): Promise<unknown> {
    const p = this.conn.waitFor('Page.loadEventFired', this.sessionId, () => true, timeoutMs);
    p.catch(() => undefined);
    return p;
  }

  /**
   * Waits for network quiet, so a snapshot sees what scripts fetched and rendered and a blocked write is in the
   * log before the tool answers (tab-network.ts).
   */
  settle(maxMs = 1500, quietMs = 80): Promise<void> {
    return this.net.settle(maxMs, quietMs);
  }

  /**
   * A read tab leaves through about:blank with its rules still on, so whatever its page does on the way out
   * meets the write guard (and read-guard.ts keeps pagehide/unload handlers from running at all: a beacon or
   * keepalive fetch they send goes out after the document is gone, where no interception sees it).
   */
  async close(): Promise<void> {
    if (this.record.mode === 'read' && !this.crashed && !this.closed) {
      this.leaving = true;
      const unloaded = this.conn.waitFor('Page.frameNavigated', this.sessionId, (p) => !p.frame.parentId, 5000).catch(() => undefined);
      const r = await this.conn.sendMayFail('Page.navigate', { url: 'about:blank' }, this.sessionId, 5000);
      if (r && !r.errorText) await unloaded;
      await this.settle(1000);
    }
    this.closed = true;
    this.disposables.dispose();
    await this.closeTarget();
  }

  /**
   * Closes the page and answers once it is gone. Chromium answers success to a close sent soon after the way out
   * through about:blank and then, about one time in three, keeps the page open for good (an idle about:blank and
   * its renderer per closed read tab, and per browser_read page). A second close takes, so the close is sent
   * again while the page is still there.
   */
  private async closeTarget(): Promise<void> {
    for (let attempt = 1; attempt <= CLOSE_ATTEMPTS; attempt++) {
      const gone = this.conn.waitFor('Target.detachedFromTarget', '', (p) => p.targetId === this.targetId, CLOSE_CHECK_MS).then(() => true, () => false);
      // No answer: the target was gone already (or the browser is), and nothing will be detached.
      if (!(await this.conn.sendMayFail('Target.closeTarget', { targetId: this.targetId }))) return;
      if (await gone) return;
    }
  }

  /**
   * Aborts (with a CdpError of kind closed or crashed) when this page goes away or its browser dies: for waits
   * that send nothing to the page, such as a wait for time, which would otherwise run on past the crash.
   */
  goneSignal(): { signal: AbortSignal } & Disposable {
    return this.conn.sessionSignal(this.sessionId);
  }

  dispose() {
    this.closed = true;
    this.disposables.dispose();
  }
}

/**
 * After a click or key press (marked with tab.mark() before it). One round trip to the page first: the page
 * reports a navigation or a fetch its handlers started on the same channel, before it answers, so afterwards
 * we know whether the action started a navigation, without guessing with a timer. If it did, wait until the
 * main frame stops loading (loaded, or refused), then for network quiet; otherwise just for network quiet, so
 * requests the handler started (and any write a read tab blocked) are finished and logged. `windowMs` adds a
 * wait for navigations a page starts a little later (history traversal is answered before it starts).
 */
export async function afterAction(tab: Tab, mark: { nav: number; loads: number }, windowMs = 0): Promise<void> {
  await tab.send('Runtime.evaluate', { expression: '0' }).catch(() => undefined);
  const until = Date.now() + windowMs;
  while (!tab.navigationSince(mark) && Date.now() < until && !tab.closed) {
    assertAlive(tab);
    await new Promise((r) => setTimeout(r, 10));
  }
  if (tab.navigationSince(mark)) {
    const loadDeadline = Date.now() + 15000;
    while (!tab.loadStoppedSince(mark) && Date.now() < loadDeadline && !tab.closed) {
      assertAlive(tab);
      await new Promise((r) => setTimeout(r, 20));
    }
    await tab.settle(1000);
  } else {
    await tab.settle(500);
  }
}

/** A CDP object id for the element behind a ref, and the session it belongs to (a cross-origin frame's own, for its refs). */
export async function elementObject(tab: Tab, ref: string): Promise<{ objectId: string; session: string }> {
  // Answers stale_ref (or not_found) through the one failure path before we ask for the element itself.
  await tab.call('elementInfo', ref);
  const r = await tab.elementIn(ref);
  if (!r) throw new BrowserdError('stale_ref', `ref ${ref} is not in the current page`, { next: 'Take a new browser_snapshot.' });
  return r;
}

/** A CDP object id for the element behind a ref of the top script (frames the top script cannot enter: elementObject). */
export async function elementObjectId(tab: Tab, ref: string): Promise<string> {
  const r = await elementObject(tab, ref);
  if (r.session !== tab.sessionId) throw new BrowserdError('stale_ref', `ref ${ref} is in a frame of another site`, { next: 'Use an element of the page itself.' });
  return r.objectId;
}
