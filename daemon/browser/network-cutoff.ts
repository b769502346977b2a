/**
 * Read mode's network-level cut-off of WebSockets, which Fetch interception never sees (and which
 * Network.setBlockedURLs does not stop). It is a Chromium network condition on a target's session
 * (Network.emulateNetworkConditionsByRule, "offline" for ws: and wss:), enforced in the network stack for every
 * handshake of the target whatever world made it: the main world, any isolated world (a CDP client's
 * Page.createIsolatedWorld) and, set on a worker's own session, a worker. Checked on Chromium 156, which also
 * showed that it is in force as soon as the browser process handles the command (before a paused target runs,
 * before a held document request is let go), and that another client's session on the same target cannot undo
 * it (its Network.disable, its detach, its own empty rule list).
 *
 * The rule needs the Network domain on for the session (without it the rule is ignored), so it is enabled
 * first; a session handles commands in order. The daemon never disables Network on these sessions.
 */
import type { CdpConnection } from '../cdp/connection.js';

const OFF = { offline: true, latency: 0, downloadThroughput: -1, uploadThroughput: -1 };
/** URLPattern syntax: every host, port, path and query of the scheme (userinfo and IPv6 hosts included). */
const SOCKETS_OFFLINE = [{ urlPattern: 'ws://*:*/*', ...OFF }, { urlPattern: 'wss://*:*/*', ...OFF }];

function setRules(conn: CdpConnection, session: string, matchedNetworkConditions: typeof SOCKETS_OFFLINE): Promise<unknown> {
  // Sent back to back, not awaited in between: the caller may be holding a document request, and the rules
  // must be in place (they are, once handled in order) before what it lets go next.
  const enabled = conn.sendMayFail('Network.enable', {}, session);
  const set = conn.sendMayFail('Network.emulateNetworkConditionsByRule', { matchedNetworkConditions }, session);
  return Promise.all([enabled, set]);
}

/** No WebSocket of the session's target (any world) reaches the network. */
export const blockSockets = (conn: CdpConnection, session: string) => setRules(conn, session, SOCKETS_OFFLINE);

/** WebSockets of the session's target go out again (an act tab that left a read-only site). */
export const allowSockets = (conn: CdpConnection, session: string) => conn.sendMayFail('Network.emulateNetworkConditionsByRule', { matchedNetworkConditions: [] }, session);
