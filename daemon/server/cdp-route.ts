/**
 * The /cdp/<token> WebSocket route. The upgrade is checked before anything is upgraded: Host and Origin as for
 * every route (a page in some browser must not reach this), then the token. A wrong, guessed, stopped or
 * expired token gets a plain 401 and no WebSocket. The token is part of the URL, so the URL is never logged.
 */
import type { HttpApp, HttpResponse } from '../http/transport/types.js';
import type { Platform } from '../platform.js';
import { BrowserdError } from '../../protocol/errors.js';
import { checkHostAndOrigin, originPolicyOf } from '../http/origin.js';
import { ProxyClient } from '../cdp-proxy/client.js';
import type { CdpSession } from '../cdp-proxy/sessions.js';
import type { Disposable } from '../cdp/connection.js';
import { cdpRefusal } from '../secrets/secret-documents.js';

interface SocketData {
  session: CdpSession;
  client?: ProxyClient;
  closed: boolean;
  /** Messages that came while the browser was starting, handed to the client in order once it exists. */
  early: string[];
  releaseBrowser?: () => void;
  /** Stops listening for the browser's end once this socket is gone. */
  unwatch?: Disposable;
}

/** Largest command a client may send (scripts to inject, file lists): generous, bounded. */
const MAX_CLIENT_MESSAGE = 16 * 1024 * 1024;
/** A client that reads this far behind the browser's output is cut off rather than kept in memory. */
const MAX_BACKLOG = 256 * 1024 * 1024;

function refuse(res: HttpResponse, e: BrowserdError) {
  res.cork(() => {
    res.writeStatus(`${e.status} ${e.code === 'unauthorized' ? 'Unauthorized' : e.code === 'shutting_down' ? 'Service Unavailable' : 'Forbidden'}`);
    res.writeHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ ok: false, error: e.toBody() }));
  });
}

export function addCdpRoute(app: HttpApp, env: Platform, closing: () => boolean) {
  const originPolicy = originPolicyOf(env.cfg);
  app.ws<SocketData>('/cdp/*', {
    maxPayloadLength: MAX_CLIENT_MESSAGE,
    maxBackpressure: MAX_BACKLOG,
    closeOnBackpressureLimit: 1,
    idleTimeout: 120,
    sendPingsAutomatically: true,
    upgrade(res, req, context) {
      const headers = { host: req.getHeader('host'), origin: req.getHeader('origin') };
      const token = req.getUrl().slice('/cdp/'.length);
      const key = req.getHeader('sec-websocket-key');
      const protocol = req.getHeader('sec-websocket-protocol');
      const extensions = req.getHeader('sec-websocket-extensions');
      if (closing()) return refuse(res, new BrowserdError('shutting_down', 'the daemon is stopping', { next: 'Retry in a few seconds.' }));
      const originProblem = checkHostAndOrigin(originPolicy, Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== '')));
      if (originProblem) return refuse(res, new BrowserdError('forbidden', originProblem, { next: 'Connect from a program, not from a web page.' }));
      const found = token ? env.cdpSessions.find(token) : undefined;
      // A disabled account's sessions end (accounts/disabled.ts); until then its URL is refused like a stopped one.
      const session = found && env.users.isActive(found.user) ? found : undefined;
      if (!session) {
        return refuse(res, new BrowserdError('unauthorized', 'no open CDP session has this URL (wrong, stopped or expired)', { next: 'Start one with browser_sessions{action:"start"} and use the cdpUrl it returns.' }));
      }
      // Raw CDP can run anything in any page: no client connects while the browser holds a filled vault value.
      const inst = env.pool.peek(session.user, session.profile);
      const secret = inst ? cdpRefusal(inst.tabs.values()) : undefined;
      if (secret) return refuse(res, secret);
      res.upgrade<SocketData>({ session, closed: false, early: [] }, key, protocol, extensions, context);
    },
    open(ws) {
      const data = ws.getUserData();
      const { session } = data;
      const socket = {
        send: (text: string) => {
          if (!data.closed) ws.send(text, false);
        },
        close: (code: number, reason: string) => {
          if (data.closed) return;
          data.closed = true;
          ws.end(code, reason);
        },
      };
      // The browser is held awake while a client is connected: the idle sweeper must not cut it off.
      data.releaseBrowser = env.pool.hold(session.user, session.profile);
      env.pool
        .get(session.user, session.profile)
        .then(async (inst) => {
          if (data.closed) return;
          const downloads = inst.downloads ? { stagingDir: inst.downloads.stagingDir } : undefined;
          const client = new ProxyClient(inst.conn!, socket, env.files.dir(session.user), () => session.expiresAt, (id) => inst.targetRealm(id), downloads, inst.hostAccess);
          data.client = client;
          session.clients.add(client);
          env.cdpSessions.markConnected(session.id);
          data.unwatch = inst.conn!.onClose(() => client.end(1011, 'the browser stopped'));
          for (const m of data.early.splice(0)) client.onMessage(m);
          await client.open();
        })
        .catch((e) => {
          env.log.warn({ user: session.user, session: session.id, err: e instanceof Error ? e.message : String(e) }, 'cdp client could not attach');
          socket.close(1011, 'the browser is not available');
        });
    },
    message(ws, message) {
      const data = ws.getUserData();
      const text = Buffer.from(message).toString('utf8');
      if (data.client) data.client.onMessage(text);
      else data.early.push(text);
    },
    close(ws) {
      const data = ws.getUserData();
      data.closed = true;
      data.releaseBrowser?.();
      data.unwatch?.dispose();
      if (data.client) {
        data.session.clients.delete(data.client);
        data.client.end(1000, 'closed');
      }
    },
  });
}
