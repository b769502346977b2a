/** The uWS app: /health, /v1/*, /mcp. Auth, Host/Origin checks and the closing state live here, once. */
import uWS from 'uWebSockets.js';
import type { DaemonEnv } from '../env.js';
import { BrowserdError, toBrowserdError } from '../../protocol/errors.js';
import { bearer, captureReq, sendError, sendJson, type Req } from './http.js';
import { checkHostAndOrigin, type OriginPolicy } from './origin.js';
import { adminRoutes, restRoutes } from './rest.js';
import { McpGateway } from './mcp.js';

export interface AppHandle {
  port: number;
  closing: boolean;
  mcp: McpGateway;
  close(): void;
}

export function startApp(env: DaemonEnv, version: string): Promise<AppHandle> {
  const app = uWS.App();
  const mcp = new McpGateway(env, version);
  const rest = restRoutes(env);
  const admin = adminRoutes(env);
  const originPolicy: OriginPolicy = {
    listenHost: env.cfg.host,
    port: env.cfg.port,
    extraHosts: [...(process.env.BROWSERD_ALLOWED_HOSTS ?? '').split(',').filter(Boolean), ...(env.cfg.publicUrl ? [new URL(env.cfg.publicUrl).hostname] : [])],
    extraOrigins: [...(process.env.BROWSERD_ALLOWED_ORIGINS ?? '').split(',').filter(Boolean), ...(env.cfg.publicUrl ? [new URL(env.cfg.publicUrl).origin] : [])],
  };
  const handle: AppHandle = { port: 0, closing: false, mcp, close: () => undefined };

  async function route(r: Req) {
    if (r.path === '/health' && r.method === 'GET') {
      return sendJson(r, handle.closing ? 503 : 200, { ok: !handle.closing, version, uptimeS: Math.round((Date.now() - env.startedAt.getTime()) / 1000), browsers: env.pool.count });
    }
    if (handle.closing) return sendError(r, new BrowserdError('shutting_down', 'the daemon is stopping', { next: 'Retry in a few seconds.' }));
    const isApi = r.path === '/mcp' || r.path.startsWith('/v1/');
    if (!isApi) return sendError(r, new BrowserdError('not_found', `no route ${r.method} ${r.path}`, { next: 'See api/openapi.yaml; the MCP endpoint is /mcp.' }));
    const originProblem = checkHostAndOrigin(originPolicy, r.headers);
    if (originProblem) return sendError(r, new BrowserdError('forbidden', originProblem, { next: 'Call from a program or an allowed origin (BROWSERD_ALLOWED_ORIGINS).' }));
    const token = bearer(r);
    if (r.path.startsWith('/v1/admin/')) {
      if (!env.users.isAdminKey(token)) {
        if (env.users.authenticate(token)) return sendError(r, new BrowserdError('forbidden', 'this route needs the admin key, not a user token', { next: 'Use the admin key printed by `browserd admin key`.' }));
        return sendError(r, new BrowserdError('unauthorized', 'missing or wrong admin key', { next: 'Send Authorization: Bearer <admin key>.' }));
      }
      const match = admin.find((x) => x.method === r.method && x.pattern.test(r.path));
      if (!match) return sendError(r, new BrowserdError('not_found', `no route ${r.method} ${r.path}`, { next: 'See api/openapi.yaml.' }));
      return match.handler(r);
    }
    const user = env.users.authenticate(token);
    if (!user) {
      return sendError(r, new BrowserdError('unauthorized', token ? 'the token is wrong or was replaced' : 'missing bearer token', { next: 'Send Authorization: Bearer <your token>; an admin can issue one with `browserd user token NAME`.' }));
    }
    if (r.path === '/mcp') {
      if (!['POST', 'GET', 'DELETE'].includes(r.method)) return sendJson(r, 405, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Method not allowed' } }, { Allow: 'GET, POST, DELETE' });
      return mcp.handle(r, user);
    }
    for (const x of rest) {
      const m = x.pattern.exec(r.path);
      if (m && x.method === r.method) return x.handler(r, user, m.slice(1));
    }
    const pathKnown = rest.some((x) => x.pattern.test(r.path));
    if (pathKnown) return sendError(r, new BrowserdError('validation_error', `${r.method} is not allowed on ${r.path}`, { next: 'See api/openapi.yaml for the methods of this path.' }));
    return sendError(r, new BrowserdError('not_found', `no route ${r.method} ${r.path}`, { next: 'See api/openapi.yaml.' }));
  }

  app.any('/*', (res, req) => {
    const r = captureReq(res, req);
    route(r).catch((e) => {
      const err = toBrowserdError(e);
      if (err.code === 'internal_error') env.log.error({ path: r.path, err: e instanceof Error ? e.stack : String(e) }, 'request failed');
      sendError(r, err);
    });
  });

  return new Promise((resolve, reject) => {
    app.listen(env.cfg.host, env.cfg.port, (socket) => {
      if (!socket) return reject(new Error(`cannot listen on ${env.cfg.host}:${env.cfg.port} (in use, or not an address of this host)`));
      handle.port = uWS.us_socket_local_port(socket);
      handle.close = () => uWS.us_listen_socket_close(socket);
      resolve(handle);
    });
  });
}
