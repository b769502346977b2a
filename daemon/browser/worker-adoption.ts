/**
 * Shared and service workers belong to the browser, not to one tab: they attach at the browser level, paused,
 * and may serve act and read tabs alike. Read tabs cannot reach them (read-guard.ts removes SharedWorker and
 * navigator.serviceWorker, and their requests bypass service workers), so a worker runs under act rules: the
 * user's host policy, checked on every request it sends (a read-only site's worker sends no write), and on a
 * read-only site no WebSocket or WebRTC in its realm. A worker a read tab may have made (an isolated world a CDP
 * session made there escapes the in-realm guard) runs under read rules instead (worker-creator.ts). Rules first,
 * then it runs.
 */
import type { CdpConnection } from '../cdp/connection.js';
import { DisposableStore } from '../cdp/connection.js';
import type { Logger } from 'pino';
import { WriteGuard, type AdFilter, type HostAccessFn } from './write-guard.js';
import { TargetAdoption, AUTO_ATTACH, BROWSER_WORKER_TYPES } from './target-adoption.js';
import { READ_TAB_GUARD } from './read-guard.js';
import type { LogKind, LogEntry } from './tab-log.js';
import { browserWorkerMode, type WorkerMode } from './worker-creator.js';
import { fetchSwitchScript, type RunningServiceWorkers } from './service-worker-fetch.js';

export { BROWSER_WORKER_TYPES };

/** The CDP sessions (and last known URLs) of the open read tabs: a worker one of them may have made runs read. */
export type ReadSessions = () => { sessionId: string; url: string }[];

export async function adoptBrowserWorker(conn: CdpConnection, p: { sessionId: string; targetInfo: { targetId?: string; url: string; type: string }; waitingForDebugger: boolean }, hostAccess: HostAccessFn, log: Logger, adFilter?: AdFilter, readSessions?: ReadSessions, serviceWorkers?: RunningServiceWorkers): Promise<void> {
  const session = p.sessionId;
  const d = new DisposableStore();
  // Pages no tab owns (a CDP client's) are not made by a read tab's realm; shared and service workers may be.
  const decided = BROWSER_WORKER_TYPES.has(p.targetInfo.type) ? browserWorkerMode(conn, p.targetInfo.url, readSessions?.() ?? []) : 'act';
  const mode: WorkerMode = typeof decided === 'string' ? decided : await decided;
  // A page (one in a context a CDP client made) moves from site to site: its address is the one it shows now, so a
  // read-only site's page writes nowhere, as a tab's does (write-guard.ts). Its main frame's id is its target id.
  const pageId = p.targetInfo.type === 'page' ? p.targetInfo.targetId : undefined;
  const owner = {
    mode,
    url: p.targetInfo.url,
    closed: false,
    ...(pageId ? { mainFrameId: () => pageId } : {}),
    logEvent: (kind: LogKind, e: Omit<LogEntry, 'at' | 'kind'>) => log.info({ worker: p.targetInfo.url, kind, ...e }, 'worker request refused'),
  };
  d.add(conn.on('Target.detachedFromTarget', '', (q) => {
    if (q.sessionId === session) d.dispose();
  }));
  if (pageId) {
    d.add(conn.on('Target.targetInfoChanged', '', (q) => {
      if (q.targetInfo.targetId === pageId) owner.url = q.targetInfo.url;
    }));
  }
  // A worker's page is its own script's address: block_ads holds for the site that runs it.
  // No mayRefuseSubresources: a worker's every request is paused, whatever the rules are at the time.
  const guard = new WriteGuard(conn, owner, { hostAccess, adFilter });
  const children = new TargetAdoption(conn, owner, guard, d);
  children.watch(session);
  /** What runs in the worker's global scope before its script: again each time the worker starts over. */
  const realmSteps = (): Promise<unknown>[] => {
    const steps: Promise<unknown>[] = [];
    if (mode === 'read' || hostAccess(p.targetInfo.url) === 'read_only') steps.push(conn.sendMayFail('Runtime.evaluate', { expression: READ_TAB_GUARD }, session));
    if (p.targetInfo.type === 'service_worker' && serviceWorkers) {
      // A read-only site's worker answers no page (service-worker-fetch.ts); any other can be switched off later.
      const fetchOff = mode === 'read' || serviceWorkers.fetchOffFor(p.targetInfo.url);
      steps.push(conn.sendMayFail('Runtime.evaluate', { expression: fetchSwitchScript(fetchOff) }, session));
      serviceWorkers.started(session, p.targetInfo.url, fetchOff);
    }
    return steps;
  };
  if (serviceWorkers) d.add({ dispose: () => serviceWorkers.gone(session) });
  // A service worker stops when idle and starts again when a page needs it, on the same session: Chromium says
  // so with targetReloadedAfterCrash, and the new global scope waits, paused, for its rules again.
  d.add(conn.on('Inspector.targetReloadedAfterCrash', session, () => {
    void Promise.all(realmSteps()).then(() => conn.sendMayFail('Runtime.runIfWaitingForDebugger', {}, session));
  }));
  await Promise.all([guard.guard(session, d, true), conn.sendMayFail('Target.setAutoAttach', AUTO_ATTACH, session), ...realmSteps()]);
  if (p.waitingForDebugger) await conn.sendMayFail('Runtime.runIfWaitingForDebugger', {}, session);
}
