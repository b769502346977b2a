/**
 * Every target a tab spawns (iframes in other processes, dedicated workers, workers those start, service
 * workers the page's session is shown) is attached paused, gets the tab's rules, and only then runs: the write
 * guard on its requests and, in read tabs, the in-realm guard (read-guard.ts). Adoption is recursive: each
 * adopted target auto-attaches its own children the same way, and we listen on its session for them.
 */
import { DisposableStore, type CdpConnection } from '../cdp/connection.js';
import type { WriteGuard } from './write-guard.js';
import { READ_TAB_GUARD } from './read-guard.js';
import { LISTENER_MARKER_SOURCE } from '../../injected/listeners.js';

/** Workers that belong to the browser rather than to one tab. */
export const BROWSER_WORKER_TYPES = new Set(['shared_worker', 'service_worker']);

export const AUTO_ATTACH = { autoAttach: true, waitForDebuggerOnStart: true, flatten: true } as const;

export interface AdoptionOwner {
  readonly mode: 'read' | 'act';
  readonly closed: boolean;
}

/** Whether a new realm needs the in-realm guard: always in read tabs, and in act tabs on read-only sites. */
export type RealmGuardNeeded = () => boolean;

/** Target types whose script we can reach before it runs (pages and frames differ from workers). */
const FRAME_TYPES = new Set(['iframe', 'page']);

export class TargetAdoption {
  /** Listeners of each adopted session, dropped when it detaches (frames come and go for a tab's lifetime). */
  private children = new Map<string, DisposableStore>();
  /** The session of each frame in another process, by its frame id (an out-of-process frame's target id is its frame id). */
  private frames = new Map<string, string>();
  constructor(
    private conn: CdpConnection,
    private owner: AdoptionOwner,
    private guard: WriteGuard,
    private disposables: DisposableStore,
    /** A child frame's or dedicated worker's network events: settling waits for them, the traffic recorder sees them. */
    private onNetworkSession: (session: string, d: DisposableStore) => void = () => undefined,
    private realmGuardNeeded: RealmGuardNeeded = () => owner.mode === 'read',
    /** A frame's own rules beyond the guard (the persistent identity), installed before it runs. */
    private onFrame?: (session: string, target: { targetId: string; url: string }, d: DisposableStore) => Promise<unknown>,
  ) {}

  /** Watches a session (the tab's own, or an adopted child's) for targets it spawns. */
  watch(session: string, d: DisposableStore = this.disposables) {
    d.add(this.conn.on('Target.attachedToTarget', session, (p) => {
      void this.adopt(p.sessionId, p.targetInfo.type, p.waitingForDebugger, p.targetInfo);
    }));
    d.add(this.conn.on('Target.detachedFromTarget', session, (p) => {
      const child = p.sessionId ? this.children.get(p.sessionId) : undefined;
      if (!child) return;
      this.children.delete(p.sessionId!);
      for (const [frameId, s] of this.frames) if (s === p.sessionId) this.frames.delete(frameId);
      child.dispose();
    }));
  }

  /** The session of the out-of-process frame with this frame id, if the tab has one. */
  frameSession(frameId: string): string | undefined {
    return this.frames.get(frameId);
  }

  /** Rules first, then children, then run. A target that vanished meanwhile fails quietly: it runs nothing. */
  async adopt(child: string, type: string, waiting: boolean, target?: { targetId: string; url: string }): Promise<void> {
    const c = this.conn;
    if (BROWSER_WORKER_TYPES.has(type)) {
      // Shared by every tab of its origin and governed at the browser level (worker-adoption.ts), which holds it
      // until its own rules are in: this tab's rules must not leak onto other tabs' worker.
      if (waiting) await c.sendMayFail('Runtime.runIfWaitingForDebugger', {}, child);
      return;
    }
    const d = new DisposableStore();
    this.children.set(child, d);
    this.disposables.add(d);
    this.watch(child, d);
    const steps: Promise<unknown>[] = [this.guard.guard(child, d, true)];
    const guardRealm = this.realmGuardNeeded();
    if (type === 'iframe' && target) this.frames.set(target.targetId, child);
    if (FRAME_TYPES.has(type)) {
      // A frame in another process runs new-document scripts only once its Page domain is on.
      const enabled = c.sendMayFail('Page.enable', {}, child);
      if (guardRealm) steps.push(enabled.then(() => c.sendMayFail('Page.addScriptToEvaluateOnNewDocument', { source: READ_TAB_GUARD, runImmediately: true }, child)));
      // Its snapshot (cross-frames.ts) tells clickable elements by the listeners page script gave them, as the tab's own does.
      if (type === 'iframe') steps.push(enabled.then(() => c.sendMayFail('Page.addScriptToEvaluateOnNewDocument', { source: LISTENER_MARKER_SOURCE, runImmediately: true }, child)));
      steps.push(enabled);
      if (target && this.onFrame) steps.push(enabled.then(() => this.onFrame!(child, target, d)));
    } else if (guardRealm) {
      // A worker paused before its first statement: its global scope exists, its script has not run yet.
      steps.push(c.sendMayFail('Runtime.evaluate', { expression: READ_TAB_GUARD }, child));
    }
    // Frames in other processes and dedicated workers report their own requests on their own sessions.
    if (type === 'iframe' || type === 'worker') {
      steps.push(c.sendMayFail('Network.enable', {}, child));
      this.onNetworkSession(child, d);
    }
    steps.push(c.sendMayFail('Target.setAutoAttach', AUTO_ATTACH, child));
    await Promise.all(steps);
    if (waiting && !this.owner.closed) await c.sendMayFail('Runtime.runIfWaitingForDebugger', {}, child);
  }
}
