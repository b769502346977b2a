/**
 * The network half of a tab's rules: requests of the tab and of every target it spawned are paused at the
 * request stage and let through, or failed, here (all of a read tab's; of an act tab's, those some rule could
 * refuse or answer, see interception()). Read tabs send no write; read-only sites get none in act tabs
 * either; blocked hosts and addresses outside allowedDomains are not navigated to; on a block_ads site, ads and
 * trackers fail (the AdFilter's verdict, daemon/adblock).
 */
import type { CdpConnection, DisposableStore } from '../cdp/connection.js';
import { allowedByDomains } from '../policy/url-rules.js';
import type { HostAccess } from '../policy/host-policy.js';
import type { Interception } from '../settings/request-interception.js';
import type { LogKind, LogEntry } from './tab-log.js';
import { SAFE_METHODS } from './tab-network.js';
import { READ_TAB_GUARD } from './read-guard.js';
import { allowSockets, blockSockets } from './network-cutoff.js';
import type { TabRoutes, RouteAnswer } from './routes.js';

export interface GuardedOwner {
  readonly mode: 'read' | 'act';
  /** The address of the tab's page: a read-only site's page may not write anywhere. */
  readonly url: string;
  readonly allowedDomains?: string[];
  /** The tab's main frame, to tell its own navigations from those of frames inside it. */
  mainFrameId?(): string | undefined;
  logEvent(kind: LogKind, e: Omit<LogEntry, 'at' | 'kind'>): void;
  /** Told the network id of each request failed as an ad, so browser_network shows it as blocked:ads. */
  noteAdBlocked?(networkId: string): void;
  /** Told each hop of the main frame's document request that goes out: what the page's ads are counted under. */
  documentRequested?(networkId: string | undefined, url: string): void;
}

/** block_ads: the filter rule that makes a request of the page at pageUrl an ad or tracker, or undefined. */
/** Whether a request is an ad to fail; a promise while the filter engine is still loading (the request waits). */
export type AdFilter = (req: { url: string; pageUrl: string; resourceType: string }) => { filter: string } | undefined | Promise<{ filter: string } | undefined>;

export type HostAccessFn = (url: string) => HostAccess | 'default';

/** What answers a request instead of the network (a response cache replaying): a response, 'fail', or nothing. */
export type ResponderAnswer = { status: number; headers: Record<string, string>; body: Buffer } | 'fail' | undefined;
export type Responder = (req: { url: string; method: string; resourceType: string }) => Promise<ResponderAnswer>;

interface PausedRequest { requestId: string; networkId?: string; frameId?: string; redirectedRequestId?: string; request: { url: string; method: string; headers?: Record<string, string> }; resourceType: string }

/** A document request about to go out, as a DocumentJudge sees it. */
export interface DocumentRequest {
  url: string;
  /** The tab's own page (false: a frame inside it, or a popup it opened). */
  mainFrame: boolean;
  /** Set when the request follows a redirect: the address that answered with it (when known). */
  redirect?: { from?: string };
}

/**
 * A say over every http(s) document request of the tab's sessions before it goes out (each redirect hop and
 * each navigation the page starts itself included), after the user's rules let it through: why it may not
 * go out, or undefined. A crawl's read tabs judge their hops as they judge links (crawl/hops.ts).
 */
export type DocumentJudge = (req: DocumentRequest) => Promise<string | undefined>;

/** Document requests remembered per guard, so a redirect hop can name the address it came from. */
const DOCUMENT_URLS_KEPT = 64;

/** Called with each document request the rules let through, before it goes on; may answer the headers it goes out with. */
export type DocumentHook = (session: string, p: PausedRequest) => Promise<{ name: string; value: string }[] | undefined>;

/** What besides the tab's mode may refuse or answer a request: the user's rules, kept by others. */
export interface RequestRules {
  /** The user's host policy for a URL: read_only sites refuse writes whatever the tab's mode. */
  hostAccess?: HostAccessFn;
  /** block_ads: which requests of the page are ads or trackers to fail. */
  adFilter?: AdFilter;
  /**
   * What the user's rules could refuse or change now: 'all' while a read-only site or ad blocking could refuse
   * any request, 'documents' while a blocked site or the persistent identity needs a say in navigations, 'none'
   * otherwise. Without it every request is held, as a worker's are.
   */
  interception?: () => Interception;
}

const EVERY_REQUEST = [{ urlPattern: '*', requestStage: 'Request' as const }];
const DOCUMENTS_ONLY = [{ urlPattern: '*', resourceType: 'Document' as const, requestStage: 'Request' as const }];

export class WriteGuard {
  /** Sessions of an act tab that carry the in-realm guard because their document is on a read-only site. */
  private realmGuards = new Map<string, Promise<string | undefined>>();
  /** Sessions whose WebSockets are cut off at the network (network-cutoff.ts): every one of a read tab's. */
  private socketsBlocked = new Set<string>();
  /** The first session guarded: the tab's own. */
  private mainSession?: string;
  /** Every session guarded and not yet detached: the tab's own, its frames' and its workers'. */
  private sessions = new Set<string>();
  /** Answers allowed requests from elsewhere than the network (set while a cache replays); undefined lets one go out. */
  private responder?: Responder;
  /** The persistent identity's per-document switch (daemon/identity/tab-identity.ts). */
  onDocument?: DocumentHook;
  /** Judges each document request the rules let through (judgeDocuments). */
  private documentJudge?: DocumentJudge;
  /** Recent document requests' addresses by network id (kept across redirects) and by request id. */
  private documentUrls = new Map<string, string>();
  private hostAccess: HostAccessFn;

  constructor(
    private conn: CdpConnection,
    private owner: GuardedOwner,
    private rules: RequestRules = {},
    /** The tab's routes (browser_route), asked only about requests the verdict let through. */
    private routes?: TabRoutes,
  ) {
    this.hostAccess = rules.hostAccess ?? (() => 'default');
  }

  /**
   * What this guard holds now: everything in a read tab; in an act tab, everything while a route or a responder
   * could answer a request, else what the user's rules need, and documents at least when the tab keeps to
   * allowedDomains. A request that nothing could refuse or answer should not wait a round trip to the daemon.
   */
  private interception(): Interception {
    const byRules = this.rules.interception;
    if (!byRules || this.owner.mode === 'read' || this.routes?.size || this.responder) return 'all';
    const level = byRules();
    return level === 'none' && (this.owner.allowedDomains?.length || this.documentJudge) ? 'documents' : level;
  }

  /** Tells one session what to hold; a session's commands run in order, so the last one sent holds. */
  private applyTo(session: string, mayFail: boolean): Promise<unknown> {
    const level = this.interception();
    if (level === 'none') return this.conn.sendMayFail('Fetch.disable', {}, session);
    const params = { patterns: level === 'all' ? EVERY_REQUEST : DOCUMENTS_ONLY };
    return mayFail ? this.conn.sendMayFail('Fetch.enable', params, session) : this.conn.send('Fetch.enable', params, session);
  }

  /**
   * Applies what is held now to every session: awaited by each change that can make a request refusable or
   * answerable (the user's rules, routes, a responder) before that change is acknowledged, so no request the
   * change covers goes out unseen.
   */
  async refresh(): Promise<void> {
    // A rule that makes the open page's site read-only holds for the page already loaded, not from its next one.
    if (this.owner.mode === 'read' || this.pageIsReadOnly()) for (const s of this.sessions) this.blockSockets(s);
    await Promise.all([...this.sessions].map((s) => this.applyTo(s, true)));
  }

  /** The routes a tab reopened under its id takes over from the tab it replaces. */
  async useRoutes(routes: TabRoutes): Promise<void> {
    this.routes = routes;
    await this.refresh();
  }

  /** Lets `responder` answer what the rules let through (a cache replaying), once every session holds every request. */
  async setResponder(responder: Responder): Promise<void> {
    this.responder = responder;
    await this.refresh();
  }

  /** Takes `responder` off, unless another has replaced it since. */
  async dropResponder(responder: Responder): Promise<void> {
    if (this.responder !== responder) return;
    this.responder = undefined;
    await this.refresh();
  }

  /** Lets `judge` refuse document requests from now on (undefined: no judge); holds documents at least before it answers. */
  async judgeDocuments(judge: DocumentJudge | undefined): Promise<void> {
    this.documentJudge = judge;
    await this.refresh();
  }

  /** True when the tab's page is on a site the user's policy makes read-only. */
  pageIsReadOnly(): boolean {
    return this.hostAccess(this.owner.url) === 'read_only';
  }

  /**
   * An act tab on a read-only site gets what a read tab has in every realm (no WebSocket, no WebRTC), since the
   * network rules cannot see those: installed for the session's next documents before a document from a
   * read-only site is let load, and taken off before one from any other site.
   */
  private async realmGuardFor(session: string, p: PausedRequest) {
    const url = p.request.url;
    if (this.owner.mode !== 'act' || !/^https?:/.test(url)) return;
    // A frame inside a read-only site's page is held to that site's rules too; the page's own next document
    // only to its own site's.
    const ownDocument = session === this.mainSession && p.frameId === this.owner.mainFrameId?.();
    const want = this.hostAccess(url) === 'read_only' || (!ownDocument && this.pageIsReadOnly());
    // The network half first, and at the request, not at commit: it is handled in the browser process at once,
    // so it holds before the document's first script whatever world runs it. It comes off only once a
    // document of another site has replaced the read-only one (sessionCommitted), never while that one lives.
    if (want) this.blockSockets(session);
    const have = this.realmGuards.get(session);
    // Sent, not awaited: while this document request is held, Chromium answers Page commands only once the
    // new document commits, which cannot happen until we let the request go. Commands of a session run in the
    // order sent, so the script is in place (or gone) before the document it is about; the identifier arrives
    // later and is kept for the removal.
    if (want && !have) {
      this.realmGuards.set(session, this.conn.sendMayFail('Page.addScriptToEvaluateOnNewDocument', { source: READ_TAB_GUARD }, session, 60_000).then((r) => r?.identifier));
    } else if (!want && have) {
      this.realmGuards.delete(session);
      void have.then((identifier) => {
        if (identifier) void this.conn.sendMayFail('Page.removeScriptToEvaluateOnNewDocument', { identifier }, session);
      });
    }
  }

  private blockSockets(session: string) {
    if (this.socketsBlocked.has(session)) return;
    this.socketsBlocked.add(session);
    void blockSockets(this.conn, session);
  }

  /**
   * A document committed in a session: an act tab whose page left a read-only site gets its WebSockets back
   * (the old page is gone by now). Only the tab's own page decides; a frame's or worker's session keeps the
   * cut-off for its life (it fails closed).
   */
  private sessionCommitted(session: string, frame: { parentId?: string; url: string }) {
    if (this.owner.mode !== 'act' || session !== this.mainSession || frame.parentId || !this.socketsBlocked.has(session)) return;
    // Only a web page of another site lifts it: about:blank or data: after a read-only page keeps it on.
    if (!/^https?:/.test(frame.url) || this.hostAccess(frame.url) === 'read_only') return;
    this.socketsBlocked.delete(session);
    void allowSockets(this.conn, session);
  }

  /** Starts guarding one session; resolves once Chromium holds what it should of the session's requests. */
  async guard(session: string, d: DisposableStore, mayFail = false): Promise<void> {
    this.mainSession ??= session;
    this.sessions.add(session);
    d.add({ dispose: () => (this.sessions.delete(session), this.socketsBlocked.delete(session)) });
    d.add(this.conn.on('Fetch.requestPaused', session, (p) => void this.decide(p, session)));
    d.add(this.conn.on('Page.frameNavigated', session, ({ frame }) => this.sessionCommitted(session, frame)));
    // WebSockets are cut off at the network in every session of a read tab, and of a page on a read-only site,
    // before the target runs (its sessions are attached paused): Fetch never sees a handshake.
    if (this.owner.mode === 'read' || this.pageIsReadOnly()) this.blockSockets(session);
    // Read and sent in one step (no await between): a refresh that starts later sends after this, and wins.
    await this.applyTo(session, mayFail);
  }

  /** Why a request may not go out, or undefined when it may. */
  async verdict(p: PausedRequest): Promise<{ kind: LogKind; detail: string } | undefined> {
    const { method, url } = p.request;
    const o = this.owner;
    if (!SAFE_METHODS.has(method)) {
      if (o.mode === 'read') return { kind: 'write_blocked', detail: `${p.resourceType} request blocked: read tab` };
      if (this.hostAccess(url) === 'read_only' || this.hostAccess(o.url) === 'read_only') {
        return { kind: 'write_blocked', detail: `${p.resourceType} request blocked: the site is read-only by the user's policy` };
      }
    }
    if (p.resourceType === 'Document' && /^https?:/.test(url)) {
      if (this.hostAccess(url) === 'blocked') return { kind: 'navigation_blocked', detail: "the site is blocked by the user's policy" };
      if (o.allowedDomains?.length && !allowedByDomains(url, o.allowedDomains)) return { kind: 'navigation_blocked', detail: `outside allowedDomains (${o.allowedDomains.join(', ')})` };
    }
    // The tab's own document is never an ad.
    const ad = this.isOwnDocument(p) ? undefined : await this.rules.adFilter?.({ url, pageUrl: o.url, resourceType: p.resourceType });
    if (ad) return { kind: 'ads_blocked', detail: `${p.resourceType} request blocked as an ad or tracker (${ad.filter})` };
    return undefined;
  }

  /** The tab's main-frame document (before the tab knows its main frame, a document is taken as its own). */
  private isOwnDocument(p: PausedRequest): boolean {
    const mainFrame = this.owner.mainFrameId?.();
    return p.resourceType === 'Document' && (!mainFrame || p.frameId === mainFrame);
  }

  private async decide(p: PausedRequest, session: string) {
    const no = await this.verdict(p);
    if (no) {
      if (no.kind === 'ads_blocked') this.owner.noteAdBlocked?.(p.networkId ?? p.requestId);
      this.owner.logEvent(no.kind, { method: p.request.method, url: p.request.url, detail: no.detail });
      void this.conn.sendMayFail('Fetch.failRequest', { requestId: p.requestId, errorReason: 'BlockedByClient' }, session);
      return;
    }
    if (p.resourceType === 'Document' && (await this.judgedAway(p, session))) return;
    if (this.isOwnDocument(p)) this.owner.documentRequested?.(p.networkId, p.request.url);
    if (p.resourceType === 'Document') await this.realmGuardFor(session, p);
    const headers = p.resourceType === 'Document' && this.onDocument ? await this.onDocument(session, p) : undefined;
    // Routes come after the verdict, so a route only answers or stops what the rules already let go out, and
    // before the responder, so the agent's own mock wins over a cache replaying.
    const routed = this.routes?.match({ url: p.request.url, method: p.request.method, resourceType: p.resourceType }, this.owner.url);
    if (routed) return this.answerByRoute(routed, p, session);
    // Every method goes to the responder: a strict replay fails the writes it cannot answer.
    if (this.responder && /^https?:/.test(p.request.url)) {
      const answer = await this.responder({ url: p.request.url, method: p.request.method, resourceType: p.resourceType }).catch(() => undefined);
      if (answer === 'fail') return void this.conn.sendMayFail('Fetch.failRequest', { requestId: p.requestId, errorReason: 'InternetDisconnected' }, session);
      if (answer) {
        const responseHeaders = Object.entries(answer.headers).map(([name, value]) => ({ name, value }));
        return void this.conn.sendMayFail('Fetch.fulfillRequest', { requestId: p.requestId, responseCode: answer.status, responseHeaders, body: answer.body.toString('base64') }, session);
      }
    }
    void this.conn.sendMayFail('Fetch.continueRequest', { requestId: p.requestId, ...(headers ? { headers } : {}) }, session);
  }

  /**
   * Asks the document judge about a document request (fails it and answers true when refused). A judge that
   * throws refuses: fail closed. Each document request's address is kept under its network id, which a
   * redirect hop shares with the request it follows, so the judge is told where a hop came from.
   */
  private async judgedAway(p: PausedRequest, session: string): Promise<boolean> {
    const url = p.request.url;
    const key = p.networkId ?? p.requestId;
    const from = this.documentUrls.get(key) ?? (p.redirectedRequestId ? this.documentUrls.get(p.redirectedRequestId) : undefined);
    const redirect = p.redirectedRequestId !== undefined || from !== undefined;
    this.documentUrls.delete(key);
    this.documentUrls.set(key, url);
    if (this.documentUrls.size > DOCUMENT_URLS_KEPT) this.documentUrls.delete(this.documentUrls.keys().next().value!);
    const judge = this.documentJudge;
    if (!judge || !/^https?:/.test(url)) return false;
    const no = await judge({ url, mainFrame: this.isOwnDocument(p), ...(redirect ? { redirect: from !== undefined ? { from } : {} } : {}) }).catch(
      (e) => `it could not be judged (${e instanceof Error ? e.message : String(e)})`,
    );
    if (!no) return false;
    this.owner.logEvent('navigation_blocked', { method: p.request.method, url, detail: no });
    void this.conn.sendMayFail('Fetch.failRequest', { requestId: p.requestId, errorReason: 'BlockedByClient' }, session);
    return true;
  }

  private async answerByRoute(a: RouteAnswer, p: PausedRequest, session: string) {
    const requestId = p.requestId;
    if (a.kind === 'mock') {
      const done = await this.conn.sendMayFail('Fetch.fulfillRequest', { requestId, responseCode: a.status, responseHeaders: a.headers, body: a.bodyBase64 }, session);
      // A response Chromium would not take (a status it cannot fulfil with) must not leave the request hanging.
      if (!done) void this.conn.sendMayFail('Fetch.failRequest', { requestId, errorReason: 'Failed' }, session);
      return;
    }
    if (a.kind === 'block') this.owner.logEvent('route_blocked', { method: p.request.method, url: p.request.url, detail: `${p.resourceType} request blocked by route ${a.id}` });
    void this.conn.sendMayFail('Fetch.failRequest', { requestId, errorReason: a.kind === 'block' ? 'BlockedByClient' : a.errorReason }, session);
  }
}
