/**
 * Target.createTarget for a page, in a window of its own when none is there to join. The browser starts with
 * no window (switches.ts) and has none after its last page closed; a page asked for without a window of its
 * own then meets Chromium's "no browser is open" and is made again with one. Chromium gives that refusal no
 * code, so its text is what tells. (A CDP session client's createTarget goes through the browser target's
 * session, where Chromium makes the window itself: test/tools/cdp-sessions.test.ts opens its first page so.)
 */
import type { CdpConnection } from '../cdp/connection.js';
import type { Protocol } from 'devtools-protocol';

export async function createPageTarget(conn: CdpConnection, params: Protocol.Target.CreateTargetRequest, sessionId?: string, timeoutMs?: number): Promise<Protocol.Target.CreateTargetResponse> {
  try {
    return await conn.send('Target.createTarget', params, sessionId, timeoutMs);
  } catch (e) {
    if (params.newWindow || params.hidden || !/no browser is open/i.test(String(e))) throw e;
    return conn.send('Target.createTarget', { ...params, newWindow: true }, sessionId, timeoutMs);
  }
}
