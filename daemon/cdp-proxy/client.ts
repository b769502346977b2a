/**
 * One CDP client connected through /cdp/<token>, multiplexed over the daemon's pipe to the user's browser.
 *
 * The client gets a browser session of its own (Target.attachToBrowserTarget): what it sends without a
 * sessionId runs there, so its Target.setAutoAttach or setDiscoverTargets never touch the daemon's session.
 * Commands go out with the connection's own ids and come back under the client's; events are forwarded for
 * the client's browser session (without a sessionId, as a direct connection would send them) and for the
 * sessions attached under it. Sessions the daemon's tabs use are never named to the client and commands
 * aimed at them are refused as unknown.
 */
import { basename } from 'node:path';
import type { CdpConnection, Disposable } from '../cdp/connection.js';
import { CdpError } from '../cdp/connection.js';
import { paramsToSend, refusal, type DownloadSetting } from './policy.js';
import { checkPageUrl } from '../net/url-check.js';
import { internalPageWatchOf } from '../browser/internal-pages.js';
import { ReadWorlds, type TargetRealm } from './read-worlds.js';

/** JSON-RPC style codes CDP clients know: Chromium's own for an unknown session, a generic server error otherwise. */
const SESSION_NOT_FOUND = -32001;
const SERVER_ERROR = -32000;
const INVALID_REQUEST = -32600;

export interface ClientSocket {
  send(text: string): void;
  /** Ends the WebSocket with a close code and a short reason. */
  close(code: number, reason: string): void;
}

interface ClientMessage { id: number; method: string; params?: Record<string, unknown>; sessionId?: string }

export class ProxyClient {
  private root?: string;
  /** Sessions this client attached, directly or under one of its own, by sessionId. */
  private sessions = new Set<string>();
  /** The target each of those sessions is attached to. */
  private targetOf = new Map<string, string>();
  /** The browser context of each session's target, where an attach event named it. */
  private contextOf = new Map<string, string>();
  private contexts = new Set<string>();
  /** Contexts whose download setting the client sent ('' for the default one): the daemon's goes back on them. */
  private downloadContexts = new Set<string>();
  /** Whether the client asked for download events (its download setting's eventsEnabled): it hears the daemon's. */
  private downloadEvents = false;
  /**
   * Documents of blocked sites the client was told are paused (Fetch.requestPaused), by session ('' for its own)
   * and request id: none is evicted (a client that could push one out by pausing others could then answer it).
   */
  private pausedBlocked = new Set<string>();
  /** The client's own contexts, disposed as it ends. */
  private disposed = new Set<string>();
  private tap?: Disposable;
  private queued: string[] = [];
  private ended = false;
  /** Commands waiting behind one whose check asks the browser first (checking counts them). */
  private inOrder: Promise<void> = Promise.resolve();
  private checking = 0;
  private worlds: ReadWorlds;

  constructor(
    private conn: CdpConnection,
    private socket: ClientSocket,
    private filesDir: string,
    /** Epoch ms when the session ends: no command waits past it. */
    private deadline: () => number,
    /** Which of the daemon's targets are read realms (no world but the main one may run the client's script). */
    realm: TargetRealm = () => 'unknown',
    /** Where the daemon has this browser's downloads staged; a client's download setting becomes this one. */
    private downloads?: DownloadSetting,
    /** The user's host policy: a document of a blocked site is not answered by the client either. */
    private hostAccess: (url: string) => string = () => 'default',
  ) {
    this.worlds = new ReadWorlds(realm);
  }

  /** Opens the client's browser session; messages that arrived before are then handled in order. */
  async open(): Promise<void> {
    this.tap = this.conn.onAnyEvent((method, params, sessionId) => this.onEvent(method, params as any, sessionId));
    const { sessionId } = await this.conn.send('Target.attachToBrowserTarget', {});
    if (this.ended) {
      void this.conn.sendMayFail('Target.detachFromTarget', { sessionId });
      return;
    }
    this.root = sessionId;
    for (const m of this.queued.splice(0)) this.onMessage(m);
  }

  onMessage(text: string) {
    if (this.ended) return;
    if (!this.root) {
      this.queued.push(text);
      return;
    }
    let m: ClientMessage;
    try {
      m = JSON.parse(text);
    } catch {
      return this.socket.close(1007, 'messages must be JSON');
    }
    if (!m || typeof m.id !== 'number' || !Number.isSafeInteger(m.id)) return this.socket.close(1008, 'every command needs a whole-number id');
    if (typeof m.method !== 'string') return this.reply(m, { code: INVALID_REQUEST, message: 'method must be a string' });
    if (m.params !== undefined && (typeof m.params !== 'object' || m.params === null || Array.isArray(m.params))) return this.reply(m, { code: INVALID_REQUEST, message: 'params must be an object' });
    if (m.sessionId !== undefined && (typeof m.sessionId !== 'string' || !this.sessions.has(m.sessionId))) {
      return this.reply(m, { code: SESSION_NOT_FOUND, message: 'Session with given id not found.' });
    }
    const params = m.params ?? {};
    // A page on a browser-internal page is being taken off it (browser/internal-pages.ts): until then nothing
    // may read or drive it.
    const watch = internalPageWatchOf(this.conn);
    if (watch && (watch.isInternal(m.sessionId && this.targetOf.get(m.sessionId)) || (m.method === 'Target.attachToTarget' && watch.isInternal(String(params.targetId))))) {
      return this.refuse(m, 'that page is showing one of the browser\'s own pages, which are out of reach; it is being closed');
    }
    const no =
      refusal(m.method, params, { ownsSession: (s) => this.sessions.has(s), ownsContext: (c) => this.contexts.has(c), filesDir: this.filesDir }) ??
      this.worlds.refusal(m.method, params, m.sessionId) ??
      this.answerRefusal(m.method, params, m.sessionId);
    if (no) return this.refuse(m, no);
    const send = paramsToSend(m.method, params, this.filesDir, this.downloads);
    // A command whose check must ask the browser first holds back the ones after it: the client's commands
    // reach Chromium in the order it sent them.
    if (this.checking > 0 || m.method === 'Page.navigateToHistoryEntry') {
      this.checking++;
      this.inOrder = this.inOrder
        .then(async () => {
          const later = await this.historyRefusal(m, send);
          if (later) this.refuse(m, later);
          else if (!this.ended) this.forward(m, send);
        })
        .catch(() => this.refuse(m, 'the command could not be checked'))
        .finally(() => this.checking--);
      return;
    }
    this.forward(m, send);
  }

  /**
   * A paused request the client answers itself (Fetch.fulfillRequest, or Fetch.continueResponse with its own
   * status) never reaches the daemon's write guard, which may sit after the client's interception: a document of a
   * site the user blocked would open with the client's content, as that site, its cookies and storage in reach.
   */
  private answerRefusal(method: string, params: Record<string, any>, sessionId: string | undefined): string | undefined {
    if (!method.startsWith('Fetch.') || typeof params.requestId !== 'string') return undefined;
    const key = `${sessionId ?? ''}\u0000${params.requestId}`;
    if (!this.pausedBlocked.has(key)) return undefined;
    if (method !== 'Fetch.fulfillRequest' && method !== 'Fetch.continueResponse') {
      // Failed or sent on to the daemon's write guard, which refuses it in turn.
      this.pausedBlocked.delete(key);
      return undefined;
    }
    return "that page is on a site the user blocked: it is not opened, by the network or by the client's own answer (fail the request instead)";
  }

  private refuse(m: ClientMessage, why: string) {
    this.reply(m, { code: SERVER_ERROR, message: `browserd refuses ${m.method}: ${why}` });
  }

  /**
   * Going back or forward opens whatever the entry holds, which no address check saw: the entry's URL is
   * checked like a new address. Fails closed: history that cannot be read is no history to go to.
   */
  private async historyRefusal(m: ClientMessage, params: Record<string, any>): Promise<string | undefined> {
    if (m.method !== 'Page.navigateToHistoryEntry') return undefined;
    const h = await this.conn.sendMayFail('Page.getNavigationHistory', {}, m.sessionId ?? this.root);
    if (!h) return 'the page\'s history could not be read';
    const entry = h.entries.find((e: { id: number }) => e.id === params.entryId);
    // No such entry: Chromium answers that itself.
    if (!entry) return undefined;
    const checked = checkPageUrl(entry.url);
    return 'refused' in checked ? `that history entry is not a web page (${checked.refused})` : undefined;
  }

  private forward(m: ClientMessage, params: Record<string, unknown>) {
    const timeout = Math.max(1000, this.deadline() - Date.now());
    let method = m.method;
    let session = m.sessionId ?? this.root;
    if (method === 'Page.setDownloadBehavior' && this.downloads && params.behavior !== 'deny') {
      // Page's older form cannot name files by guid, which the daemon's staging needs: the same setting goes out
      // in Browser's form, for the page's context where an attach event named it.
      const context = m.sessionId && this.contextOf.get(m.sessionId);
      method = 'Browser.setDownloadBehavior';
      params = { ...params, ...(context ? { browserContextId: context } : {}) };
      session = this.root;
    }
    if (method === 'Browser.setDownloadBehavior') {
      this.downloadContexts.add(typeof params.browserContextId === 'string' ? params.browserContextId : '');
      if (this.downloads) {
        // Sent on the daemon's browser session, not the client's: Chromium puts a context's download setting back
        // to its own default (the host's Downloads folder) when the session that set it detaches, and a page
        // downloading meanwhile wrote there, past the user's files and quota. The daemon's session keeps its
        // events on (the watcher moves each file); the client hears them from it when it asked (onEvent).
        this.downloadEvents = params.eventsEnabled === true;
        params = { ...params, eventsEnabled: true };
        session = undefined;
      }
    }
    this.conn.send(method as any, params as any, session, timeout).then(
      async (result: any) => {
        if (m.method === 'Target.attachToTarget' && result?.sessionId) {
          this.sessions.add(result.sessionId);
          this.targetOf.set(result.sessionId, String(params.targetId));
          this.worlds.attached(result.sessionId, String(params.targetId));
        }
        if (m.method === 'Target.createBrowserContext' && result?.browserContextId) {
          this.contexts.add(result.browserContextId);
          // A new context downloads where Chromium likes (the host's own Downloads folder) until told otherwise:
          // it gets the daemon's setting, on the daemon's session so the download watcher hears of its files.
          if (this.downloads) {
            await this.conn.sendMayFail('Browser.setDownloadBehavior', { behavior: 'allowAndName', downloadPath: this.downloads.stagingDir, eventsEnabled: true, browserContextId: result.browserContextId });
          }
        }
        this.reply(m, undefined, result);
      },
      (e) => this.reply(m, { code: SERVER_ERROR, message: e instanceof CdpError ? e.message.replace(`${m.method}: `, '') : String(e) }),
    );
  }

  private reply(m: ClientMessage, error?: { code: number; message: string }, result?: unknown) {
    if (this.ended) return;
    const sessionId = typeof m.sessionId === 'string' ? { sessionId: m.sessionId } : {};
    this.socket.send(JSON.stringify(error ? { id: m.id, error, ...sessionId } : { id: m.id, result: result ?? {}, ...sessionId }));
  }

  private onEvent(method: string, params: any, sessionId?: string) {
    if (this.ended || !this.root) return;
    // Download events come to the daemon's browser session, where the client's download setting went (forward()).
    if (!sessionId && this.downloadEvents && (method === 'Browser.downloadWillBegin' || method === 'Browser.downloadProgress')) sessionId = this.root;
    if (!sessionId) return;
    const fromRoot = sessionId === this.root;
    if (!fromRoot && !this.sessions.has(sessionId)) return;
    // Sessions attached under one of the client's own are the client's too; learnt before the event is
    // forwarded, so a command the client sends on hearing of it finds the session known.
    if (method === 'Target.attachedToTarget' && typeof params?.sessionId === 'string') {
      this.sessions.add(params.sessionId);
      if (typeof params.targetInfo?.targetId === 'string') this.targetOf.set(params.sessionId, params.targetInfo.targetId);
      if (typeof params.targetInfo?.browserContextId === 'string') this.contextOf.set(params.sessionId, params.targetInfo.browserContextId);
      this.worlds.attached(params.sessionId, String(params.targetInfo?.targetId), params.targetInfo?.type, fromRoot ? undefined : sessionId);
    }
    if (method === 'Target.detachedFromTarget' && typeof params?.sessionId === 'string') {
      for (const k of this.pausedBlocked) if (k.startsWith(`${params.sessionId}\u0000`)) this.pausedBlocked.delete(k);
      this.sessions.delete(params.sessionId);
      this.targetOf.delete(params.sessionId);
      this.contextOf.delete(params.sessionId);
      this.worlds.detached(params.sessionId);
    }
    if (!fromRoot && !this.forwardable(method, params, sessionId)) return;
    // Only what the client is told counts as announced to it (read-worlds.ts).
    if (!fromRoot) this.worlds.onEvent(method, params, sessionId);
    if (method === 'Fetch.requestPaused' && params?.resourceType === 'Document' && typeof params.requestId === 'string' && typeof params.request?.url === 'string' && this.hostAccess(params.request.url) === 'blocked') {
      this.pausedBlocked.add(`${fromRoot ? '' : sessionId}\u0000${params.requestId}`);
    }
    // A finished download names the file where Chromium put it, a path on the daemon's host: the name is enough.
    if (method === 'Browser.downloadProgress' && typeof params?.filePath === 'string') params = { ...params, filePath: basename(params.filePath) };
    const text = JSON.stringify(fromRoot ? { method, params } : { method, params, sessionId });
    // Answers reach the client through a promise, one microtask after Chromium sent them; events take the same
    // step, so the client hears both in the order Chromium said them.
    queueMicrotask(() => {
      if (!this.ended) this.socket.send(text);
    });
  }

  /**
   * Whether an event of one of the client's page sessions may reach it. A page's own navigation event may be the
   * first word that it committed to an internal page: the watch hears of it from here too. What such a page
   * says (its DOM, console, script contexts) is not passed on; only the session's end is.
   */
  private forwardable(method: string, params: any, sessionId: string): boolean {
    const watch = internalPageWatchOf(this.conn);
    if (!watch) return true;
    const targetId = this.targetOf.get(sessionId);
    if (targetId === undefined) return true;
    if (method === 'Page.frameNavigated' && params?.frame && !params.frame.parentId && typeof params.frame.url === 'string') {
      watch.see({ targetId, type: 'page', url: params.frame.url });
    }
    return !watch.isInternal(targetId) || method.startsWith('Target.') || method.startsWith('Inspector.');
  }

  /**
   * Chromium puts a context's download setting back to its own default (the host's Downloads folder) when the
   * session that set it detaches: the daemon's setting goes back on every context the client set, once its
   * browser session is gone.
   */
  private async restoreDownloads() {
    if (!this.downloads) return;
    const { stagingDir } = this.downloads;
    await Promise.all([...this.downloadContexts].filter((c) => !this.disposed.has(c)).map((c) =>
      this.conn.sendMayFail('Browser.setDownloadBehavior', { behavior: 'allowAndName', downloadPath: stagingDir, eventsEnabled: true, ...(c ? { browserContextId: c } : {}) })));
  }

  /** Detaches every session the client held, disposes its contexts and closes its socket (idempotent). */
  end(code: number, reason: string) {
    if (this.ended) return;
    this.ended = true;
    this.tap?.dispose();
    for (const s of this.sessions) void this.conn.sendMayFail('Target.detachFromTarget', { sessionId: s }, this.root);
    // Contexts the client made are incognito-like and its own: they go with it, pages and all.
    for (const c of this.contexts) void this.conn.sendMayFail('Target.disposeBrowserContext', { browserContextId: c });
    for (const c of this.contexts) this.disposed.add(c);
    this.contexts.clear();
    if (this.root) void this.conn.sendMayFail('Target.detachFromTarget', { sessionId: this.root }).then(() => this.restoreDownloads());
    this.sessions.clear();
    this.socket.close(code, reason);
  }
}
