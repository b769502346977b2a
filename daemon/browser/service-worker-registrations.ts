/**
 * The service worker registrations a browser context's storage holds, on every origin: asked through a page of the
 * context. ServiceWorker.enable starts a watcher that reads every stored registration of the page's storage
 * partition and sends them in one workerRegistrationUpdated event (empty when there are none) before any change;
 * that first event is the answer, so no guess of "enough time" is involved. The watcher is stopped again.
 */
import type { CdpConnection } from '../cdp/connection.js';

/** One ask at a time per session: a second enable while one watches would add no snapshot of its own. */
const asking = new WeakMap<CdpConnection, Map<string, Promise<unknown>>>();

/** The scope URLs of the registrations (not deleted) in the storage of the session's page's browser context. */
export function registeredScopes(conn: CdpConnection, sessionId: string, timeoutMs = 10_000): Promise<string[]> {
  let bySession = asking.get(conn);
  if (!bySession) asking.set(conn, (bySession = new Map()));
  const before = bySession.get(sessionId) ?? Promise.resolve();
  const mine = before.catch(() => undefined).then(() => ask(conn, sessionId, timeoutMs));
  bySession.set(sessionId, mine);
  void mine.finally(() => bySession.get(sessionId) === mine && bySession.delete(sessionId)).catch(() => undefined);
  return mine;
}

async function ask(conn: CdpConnection, sessionId: string, timeoutMs: number): Promise<string[]> {
  // Subscribed before enabling, so the snapshot cannot come before the listener.
  const snapshot = conn.waitFor('ServiceWorker.workerRegistrationUpdated', sessionId, () => true, timeoutMs);
  snapshot.catch(() => undefined);
  try {
    await conn.send('ServiceWorker.enable', {}, sessionId);
    const { registrations } = await snapshot;
    return registrations.filter((r) => !r.isDeleted).map((r) => r.scopeURL);
  } finally {
    await conn.sendMayFail('ServiceWorker.disable', {}, sessionId);
  }
}
