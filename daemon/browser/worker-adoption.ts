/**
 * Shared and service workers belong to the browser, not to one tab: they attach at the browser level, paused,
 * and may serve act and read tabs alike. Read tabs cannot reach them (read-guard.ts removes SharedWorker and
 * navigator.serviceWorker, and their requests bypass service workers), so a worker runs under act rules: the
 * user's host policy, checked on every request it sends (a read-only site's worker sends no write), and on a
 * read-only site no WebSocket or WebRTC in its realm. Rules first, then it runs.
 */
import type { CdpConnection } from '../cdp/connection.js';
import { DisposableStore } from '../cdp/connection.js';
import type { Logger } from 'pino';
import { WriteGuard, type AdFilter, type HostAccessFn } from './write-guard.js';
import { TargetAdoption, AUTO_ATTACH, BROWSER_WORKER_TYPES } from './target-adoption.js';
import { READ_TAB_GUARD } from './read-guard.js';
import type { LogKind, LogEntry } from './tab-log.js';

export { BROWSER_WORKER_TYPES };

export async function adoptBrowserWorker(conn: CdpConnection, p: { sessionId: string; targetInfo: { url: string; type: string }; waitingForDebugger: boolean }, hostAccess: HostAccessFn, log: Logger, adFilter?: AdFilter): Promise<void> {
  const session = p.sessionId;
  const d = new DisposableStore();
  const owner = {
    mode: 'act' as const,
    url: p.targetInfo.url,
    closed: false,
    logEvent: (kind: LogKind, e: Omit<LogEntry, 'at' | 'kind'>) => log.info({ worker: p.targetInfo.url, kind, ...e }, 'worker request refused'),
  };
  d.add(conn.on('Target.detachedFromTarget', '', (q) => {
    if (q.sessionId === session) d.dispose();
  }));
  // A worker's page is its own script's address: block_ads holds for the site that runs it.
  // No mayRefuseSubresources: a worker's every request is paused, whatever the rules are at the time.
  const guard = new WriteGuard(conn, owner, { hostAccess, adFilter });
  const children = new TargetAdoption(conn, owner, guard, d);
  children.watch(session);
  const steps: Promise<unknown>[] = [guard.guard(session, d, true), conn.sendMayFail('Target.setAutoAttach', AUTO_ATTACH, session)];
  if (hostAccess(p.targetInfo.url) === 'read_only') steps.push(conn.sendMayFail('Runtime.evaluate', { expression: READ_TAB_GUARD }, session));
  await Promise.all(steps);
  if (p.waitingForDebugger) await conn.sendMayFail('Runtime.runIfWaitingForDebugger', {}, session);
}
