/**
 * The one module that imports chrome-remote-interface (importing it changes Node's DNS result order for the
 * process). It is only the socket: typed send with a timeout per command, flattened sessions routed by
 * sessionId, listeners as disposables, and every pending command rejected when the socket closes.
 */
import CDP from 'chrome-remote-interface';
import type { ProtocolMapping } from 'devtools-protocol/types/protocol-mapping.js';

export type Method = keyof ProtocolMapping.Commands;
export type Params<M extends Method> = ProtocolMapping.Commands[M]['paramsType'] extends [] ? Record<string, never> : NonNullable<ProtocolMapping.Commands[M]['paramsType'][0]>;
export type Result<M extends Method> = ProtocolMapping.Commands[M]['returnType'];
export type EventName = keyof ProtocolMapping.Events;
export type EventParams<E extends EventName> = ProtocolMapping.Events[E][0];

export interface Disposable { dispose(): void }

export class CdpError extends Error {
  constructor(message: string, readonly kind: 'protocol' | 'timeout' | 'closed', readonly method: string) {
    super(message);
    this.name = 'CdpError';
  }
}

type Listener = (params: any, sessionId?: string) => void;

/** Per-command timeout; BROWSERD_CDP_TIMEOUT_MS raises it for slow hosts. */
export const DEFAULT_CDP_TIMEOUT_MS = Number(process.env.BROWSERD_CDP_TIMEOUT_MS) || 30000;

export class CdpConnection {
  private listeners = new Map<string, Set<Listener>>();
  private closedReason?: string;
  private closeHandlers = new Set<(reason: string) => void>();
  private pending = new Set<(e: Error) => void>();

  private constructor(private client: CDP.Client, private stderr: () => string) {
    client.on('event', (msg: { method: string; params: unknown; sessionId?: string }) => {
      this.emit(`${msg.method}|${msg.sessionId ?? ''}`, msg.params, msg.sessionId);
      this.emit(`${msg.method}|*`, msg.params, msg.sessionId);
    });
    client.on('disconnect', () => this.markClosed('the browser connection closed'));
  }

  static async connect(wsUrl: string, stderr: () => string = () => ''): Promise<CdpConnection> {
    const client = await CDP({ target: wsUrl, local: true });
    return new CdpConnection(client, stderr);
  }

  get closed(): boolean {
    return this.closedReason !== undefined;
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
    const err = new CdpError(`${reason}${this.stderr() ? `; Chromium said: ${this.stderr().slice(-500)}` : ''}`, 'closed', '');
    for (const reject of [...this.pending]) reject(err);
    this.pending.clear();
    for (const h of [...this.closeHandlers]) h(reason);
  }

  onClose(h: (reason: string) => void): Disposable {
    this.closeHandlers.add(h);
    return { dispose: () => this.closeHandlers.delete(h) };
  }

  send<M extends Method>(method: M, params?: Params<M>, sessionId?: string, timeoutMs = DEFAULT_CDP_TIMEOUT_MS): Promise<Result<M>> {
    if (this.closedReason) return Promise.reject(new CdpError(this.closedReason, 'closed', method));
    return new Promise<Result<M>>((resolve, reject) => {
      const rejectOnce = (e: Error) => {
        clearTimeout(timer);
        this.pending.delete(rejectOnce);
        reject(e);
      };
      const timer = setTimeout(
        () => rejectOnce(new CdpError(`CDP ${method} timed out after ${timeoutMs} ms (raise BROWSERD_CDP_TIMEOUT_MS if the host is slow)`, 'timeout', method)),
        timeoutMs,
      );
      this.pending.add(rejectOnce);
      (this.client as any).send(method, params ?? {}, sessionId, (error: boolean, response: any) => {
        if (!this.pending.has(rejectOnce)) return;
        clearTimeout(timer);
        this.pending.delete(rejectOnce);
        if (error) reject(new CdpError(`${method}: ${response?.message ?? 'protocol error'}${response?.data ? ` (${response.data})` : ''}`, 'protocol', method));
        else resolve(response as Result<M>);
      });
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

  /** Waits for one event that satisfies `pred`, or rejects after timeoutMs / when the connection closes. */
  waitFor<E extends EventName>(event: E, sessionId: string, pred: (p: EventParams<E>) => boolean = () => true, timeoutMs = DEFAULT_CDP_TIMEOUT_MS): Promise<EventParams<E>> {
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
      const timer = setTimeout(() => {
        cleanup();
        reject(new CdpError(`no ${event} within ${timeoutMs} ms`, 'timeout', event));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        d.dispose();
        c.dispose();
      };
    });
  }

  async close(): Promise<void> {
    this.markClosed('closed by the daemon');
    try {
      await this.client.close();
    } catch {
      /* already gone */
    }
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
