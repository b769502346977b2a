/**
 * The viewer's WebSocket, `/live/{token}/ws`. The upgrade is refused unless Host and Origin pass the same
 * check as every other route (a page elsewhere, or a DNS-rebinding name, must not open a user's browser) and
 * the token names a live link that is still open. Everything after the upgrade is the ViewerSession's.
 */
import type { HttpResponse, WebSocketBehavior } from '../http/transport/types.js';
import type { Platform } from '../platform.js';
import type { CallTool } from '../call/call.js';
import { BrowserdError } from '../../protocol/errors.js';
import { checkHostAndOrigin, type OriginPolicy } from '../http/origin.js';
import { statusLine } from '../http/exchange.js';
import type { LinkRecord } from '../live/links.js';
import { ViewerSession, type ServerMessage } from './session.js';

export const LIVE_SOCKET_PATTERN = '/live/:token/ws';

interface Conn {
  link: LinkRecord;
  session?: ViewerSession;
  /** Ends this socket from the server side (daemon shutdown). */
  endViewer?: (reason?: string) => void;
  closed: boolean;
}

/** A viewer that cannot keep up misses frames rather than queueing them without end. */
const FRAME_BACKLOG_BYTES = 4 * 1024 * 1024;

function refuse(res: HttpResponse, e: BrowserdError) {
  res.cork(() => {
    res.writeStatus(statusLine(e.status)).writeHeader('Content-Type', 'application/json').writeHeader('Cache-Control', 'no-store').end(JSON.stringify({ ok: false, error: e.toBody() }));
  });
}

/** `callTool` is the pipeline's entry: a viewer's navigation runs through the same tool an agent calls. */
export function liveSocket(env: Platform, callTool: CallTool, originPolicy: OriginPolicy, isClosing: () => boolean): WebSocketBehavior<Conn> {
  return {
    maxPayloadLength: 64 * 1024,
    idleTimeout: 60,
    sendPingsAutomatically: true,
    maxBackpressure: 16 * 1024 * 1024,
    upgrade(res, req, context) {
      // uWS forbids reading req after this function returns: everything is read now.
      const headers: Record<string, string> = {};
      req.forEach((k, v) => (headers[k] = v));
      const token = req.getParameter(0) ?? '';
      const key = req.getHeader('sec-websocket-key');
      const protocol = req.getHeader('sec-websocket-protocol');
      const extensions = req.getHeader('sec-websocket-extensions');
      if (isClosing()) return refuse(res, new BrowserdError('shutting_down', 'the daemon is stopping', { next: 'Reload the page in a few seconds.' }));
      const originProblem = checkHostAndOrigin(originPolicy, headers);
      if (originProblem) return refuse(res, new BrowserdError('forbidden', originProblem, { next: 'Open the live link itself; it cannot be embedded or called from another site.' }));
      const link = env.live.lookup(token);
      if (!link || !env.users.isActive(link.user)) return refuse(res, new BrowserdError('not_found', 'this live link is unknown or has expired', { next: 'Ask for a new link (browser_viewer).' }));
      res.cork(() => res.upgrade<Conn>({ link, closed: false }, key, protocol, extensions, context));
    },
    open(ws) {
      const conn = ws.getUserData();
      env.live.attach(conn.link);
      const send = (m: ServerMessage) => {
        if (conn.closed) return;
        if (m.type === 'frame' && ws.getBufferedAmount() > FRAME_BACKLOG_BYTES) return;
        // Sent from CDP events and timers, outside any uWS callback: cork so the write goes out at once, whole.
        ws.cork(() => ws.send(JSON.stringify(m), false));
      };
      conn.endViewer = (reason = 'the daemon is stopping') => {
        if (!conn.closed) ws.end(1001, reason);
      };
      env.live.openViewers.set(conn.endViewer, conn.link.user);
      conn.session = new ViewerSession(env, callTool, env.live.casts, conn.link, send);
      void conn.session.start();
    },
    message(ws, message) {
      const conn = ws.getUserData();
      // uWS reuses the buffer after this call: decode it now.
      conn.session?.receive(Buffer.from(message).toString('utf8'));
    },
    close(ws) {
      const conn = ws.getUserData();
      conn.closed = true;
      if (conn.endViewer) env.live.openViewers.delete(conn.endViewer);
      conn.session?.close();
      env.live.detach(conn.link);
    },
  };
}
