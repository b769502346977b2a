/**
 * The CDP connection: typed send with a timeout per command, flattened sessions routed by sessionId, listeners
 * as disposables. In-flight commands are kept per session, so a tab that crashes or detaches rejects its own
 * commands and waits at once (kind `crashed` / `closed`) instead of leaving them to their timeouts, and a
 * browser that dies rejects everything.
 *
 * It speaks the pipe itself (see pipe-transport.ts) rather than through chrome-remote-interface: that library
 * only connects to WebSocket URLs, and a bridge from a Unix socket to the pipe would be one more moving part
 * doing what forty lines of framing do here.
 */
import type { ProtocolMapping } from 'devtools-protocol/types/protocol-mapping.js';
import type { CdpTransport } from './pipe-transport.js';

export type Method = keyof ProtocolMapping.Commands;
export type Params<M extends Method> = ProtocolMapping.Commands[M]['paramsType'] extends [] ? Record<string, never> : NonNullable<ProtocolMapping.Commands[M]['paramsType'][0]>;
export type Result<M extends Method> = ProtocolMapping.Commands[M]['returnType'];
export type EventName = keyof ProtocolMapping.Events;
export type EventParams<E extends EventName> = ProtocolMapping.Events[E][0];

export interface Disposable { dispose(): void }

/**
 * protocol: Chromium answered with an error. timeout: no answer in time. closed: the browser connection or
 * the target's session is gone. crashed: the target's renderer crashed while the command was in flight.
 */
export type CdpErrorKind = 'protocol' | 'timeout' | 'closed' | 'crashed';

export class CdpError extends Error {
  constructor(message: string, readonly kind: CdpErrorKind, readonly method: string) {
    super(message);
    this.name = 'CdpError';
  }
}

/** Why a session ended: its target detached (closed) or its renderer crashed. */
export interface SessionEnd { kind: 'closed' | 'crashed'; reason: string }

type Listener = (params: any, sessionId?: string) => void;

interface InFlight {
  method: string;
  sessionId: string;
  resolve(value: any): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
}

/** Per-command timeout; BROWSERD_CDP_TIMEOUT_MS raises it for slow hosts. */
export const DEFAULT_CDP_TIMEOUT_MS = Number(process.env.BROWSERD_CDP_TIMEOUT_MS) || 30000;

export class CdpConnection {
  private listeners = new Map<string, Set<Listener>>();
  private closedReason?: string;
  private closeHandlers = new Set<(reason: string) => void>();
  private inFlight = new Map<number, InFlight>();
  private nextId = 1;
  /** Sessions whose target detached: a command sent there can never be answered. */
  private goneSessions = new Set<string>();
  private sessionEndHandlers = new Map<string, Set<(end: SessionEnd) => void>>();
  /**
   * Sessions whose renderer crashed and has not been reloaded: Chromium never answers most commands there
   * (they would run to their timeout), so only a reload or navigation, which brings a new renderer, is sent.
   */
  private crashedSessions = new Set<string>();
  /** Every event as it came (the CDP proxy forwards a client's own sessions' events whatever their method). */
  private eventTaps = new Set<(method: string, params: unknown, sessionId?: string) => void>();

  constructor(private transport: CdpTransport, private stderr: () => string = () => '') {
    transport.onMessage = (m) => this.onMessage(m);
    transport.onClose = (reason) => this.markClosed(reason === 'closed by the daemon' ? reason : `the browser connection closed (${reason})`);
  }

  static connect(transport: CdpTransport, stderr?: () => string): CdpConnection {
    return new CdpConnection(transport, stderr);
  }

  get closed(): boolean {
    return this.closedReason !== undefined;
  }

  private onMessage(text: string) {
    let msg: { id?: number; method?: string; params?: any; sessionId?: string; result?: unknown; error?: { message?: string; data?: string } };
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof msg.id === 'number') {
      const call = this.inFlight.get(msg.id);
      if (!call) return;
      this.settle(msg.id);
      if (msg.error) call.reject(new CdpError(`${call.method}: ${msg.error.message ?? 'protocol error'}${msg.error.data ? ` (${msg.error.data})` : ''}`, 'protocol', call.method));
      else call.resolve(msg.result ?? {});
      return;
    }
    if (!msg.method) return;
    // A target back after a crash (or a service worker started again) takes commands at once: its listeners
    // re-apply their rules to it before letting it run.
    if (msg.method === 'Inspector.targetReloadedAfterCrash' && msg.sessionId) this.crashedSessions.delete(msg.sessionId);
    // Listeners first (the tab marks itself crashed or closed), then the rejections they will see.
    this.emit(`${msg.method}|${msg.sessionId ?? ''}`, msg.params, msg.sessionId);
    this.emit(`${msg.method}|*`, msg.params, msg.sessionId);
    for (const tap of [...this.eventTaps]) tap(msg.method, msg.params, msg.sessionId);
    if (msg.method === 'Target.detachedFromTarget' && msg.params?.sessionId) {
      this.goneSessions.add(msg.params.sessionId);
      this.crashedSessions.delete(msg.params.sessionId);
      // Ids are never reused, so old ones only need remembering for a while: a long-lived browser opens many.
      if (this.goneSessions.size > 10000) this.goneSessions.delete(this.goneSessions.values().next().value!);
      this.endSession(msg.params.sessionId, { kind: 'closed', reason: 'the tab went away (its target detached)' });
    } else if (msg.method === 'Inspector.targetCrashed' && msg.sessionId) {
      this.crashedSessions.add(msg.sessionId);
      this.endSession(msg.sessionId, { kind: 'crashed', reason: 'the page crashed' });
    }
  }

  private settle(id: number) {
    const call = this.inFlight.get(id);
    if (!call) return;
    clearTimeout(call.timer);
    this.inFlight.delete(id);
  }

  /** Rejects what is in flight on the session and tells whoever waits on it. */
  private endSession(sessionId: string, end: SessionEnd) {
    for (const [id, call] of [...this.inFlight]) {
      if (call.sessionId !== sessionId) continue;
      this.settle(id);
      call.reject(new CdpError(`${call.method}: ${end.reason}`, end.kind, call.method));
    }
    const handlers = this.sessionEndHandlers.get(sessionId);
    if (end.kind === 'closed') this.sessionEndHandlers.delete(sessionId);
    for (const h of [...(handlers ?? [])]) h(end);
  }

  private emit(key: string, params: unknown, sessionId?: string) {
    const set = this.listeners.get(key);
    if (!set) return;
    for (const l of [...set]) {
      try {
        l(params, sessionId);
      } catch {
        /* a listener's bug must not break event routing for the others */
      }
    }
  }

  markClosed(reason: string) {
    if (this.closedReason) return;
    this.closedReason = reason;
    const said = this.stderr();
    const err = (method: string) => new CdpError(`${reason}${said ? `; Chromium said: ${said.slice(-500)}` : ''}`, 'closed', method);
    for (const [id, call] of [...this.inFlight]) {
      this.settle(id);
      call.reject(err(call.method));
    }
    const sessionHandlers = [...this.sessionEndHandlers.values()].flatMap((s) => [...s]);
    this.sessionEndHandlers.clear();
    for (const h of sessionHandlers) h({ kind: 'closed', reason });
    for (const h of [...this.closeHandlers]) h(reason);
  }

  onClose(h: (reason: string) => void): Disposable {
    this.closeHandlers.add(h);
    return { dispose: () => this.closeHandlers.delete(h) };
  }

  /**
   * Called when the session ends: its target detaches, its renderer crashes, or the whole connection closes.
   * For waits that run outside a CDP command (polling loops, sleeps) so they can stop at once.
   */
  onSessionGone(sessionId: string, h: (end: SessionEnd) => void): Disposable {
    if (this.closedReason || this.goneSessions.has(sessionId)) {
      const end: SessionEnd = { kind: 'closed', reason: this.closedReason ?? 'the tab went away (its target detached)' };
      queueMicrotask(() => h(end));
      return { dispose: () => undefined };
    }
    let set = this.sessionEndHandlers.get(sessionId);
    if (!set) this.sessionEndHandlers.set(sessionId, (set = new Set()));
    set.add(h);
    return { dispose: () => set!.delete(h) };
  }

  /** An AbortSignal that aborts with a CdpError when the session ends (see onSessionGone). */
  sessionSignal(sessionId: string): { signal: AbortSignal } & Disposable {
    const ac = new AbortController();
    const d = this.onSessionGone(sessionId, (end) => ac.abort(new CdpError(end.reason, end.kind, '')));
    return { signal: ac.signal, dispose: () => d.dispose() };
  }

  send<M extends Method>(method: M, params?: Params<M>, sessionId?: string, timeoutMs = DEFAULT_CDP_TIMEOUT_MS): Promise<Result<M>> {
    if (this.closedReason) return Promise.reject(new CdpError(this.closedReason, 'closed', method));
    if (sessionId && this.goneSessions.has(sessionId)) return Promise.reject(new CdpError(`${method}: the tab went away (its target detached)`, 'closed', method));
    if (sessionId && this.crashedSessions.has(sessionId) && method !== 'Page.reload' && method !== 'Page.navigate') {
      return Promise.reject(new CdpError(`${method}: the page crashed (reload or navigate it first)`, 'crashed', method));
    }
    const id = this.nextId++;
    return new Promise<Result<M>>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.settle(id);
        reject(new CdpError(`CDP ${method} timed out after ${timeoutMs} ms (raise BROWSERD_CDP_TIMEOUT_MS if the host is slow)`, 'timeout', method));
      }, timeoutMs);
      this.inFlight.set(id, { method, sessionId: sessionId ?? '', resolve, reject, timer });
      this.transport.send(JSON.stringify(sessionId ? { id, method, params: params ?? {}, sessionId } : { id, method, params: params ?? {} }));
    });
  }

  /** Best effort: for calls whose failure changes nothing (the target may already be gone). */
  async sendMayFail<M extends Method>(method: M, params?: Params<M>, sessionId?: string, timeoutMs?: number): Promise<Result<M> | undefined> {
    try {
      return await this.send(method, params, sessionId, timeoutMs);
    } catch {
      return undefined;
    }
  }

  /** Listens for an event on one session ('' for the browser target, '*' for any). */
  on<E extends EventName>(event: E, sessionId: string, listener: (params: EventParams<E>, sessionId?: string) => void): Disposable {
    const key = `${event}|${sessionId}`;
    let set = this.listeners.get(key);
    if (!set) this.listeners.set(key, (set = new Set()));
    set.add(listener as Listener);
    return { dispose: () => set!.delete(listener as Listener) };
  }

  /** Sees every event, any method and session: for the CDP proxy, which cannot know the methods in advance. */
  onAnyEvent(tap: (method: string, params: unknown, sessionId?: string) => void): Disposable {
    this.eventTaps.add(tap);
    return { dispose: () => this.eventTaps.delete(tap) };
  }

  /**
   * Waits for one event that satisfies `pred`, or rejects after timeoutMs, when the connection closes, or
   * (for a real session) when that session ends.
   */
  waitFor<E extends EventName>(event: E, sessionId: string, pred: (p: EventParams<E>) => boolean = () => true, timeoutMs = DEFAULT_CDP_TIMEOUT_MS): Promise<EventParams<E>> {
    if (this.closedReason) return Promise.reject(new CdpError(this.closedReason, 'closed', event));
    return new Promise((resolve, reject) => {
      const d = this.on(event, sessionId, (p) => {
        if (!pred(p)) return;
        cleanup();
        resolve(p);
      });
      const c = this.onClose((r) => {
        cleanup();
        reject(new CdpError(r, 'closed', event));
      });
      const s = sessionId && sessionId !== '*'
        ? this.onSessionGone(sessionId, (end) => {
            cleanup();
            reject(new CdpError(`${event}: ${end.reason}`, end.kind, event));
          })
        : undefined;
      const timer = setTimeout(() => {
        cleanup();
        reject(new CdpError(`no ${event} within ${timeoutMs} ms`, 'timeout', event));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        d.dispose();
        c.dispose();
        s?.dispose();
      };
    });
  }

  async close(): Promise<void> {
    this.markClosed('closed by the daemon');
    this.transport.close();
  }
}

/** Disposables gathered by an owner and removed together. */
export class DisposableStore implements Disposable {
  private items: Disposable[] = [];
  add<T extends Disposable>(d: T): T {
    this.items.push(d);
    return d;
  }
  dispose() {
    for (const d of this.items.splice(0)) d.dispose();
  }
}
