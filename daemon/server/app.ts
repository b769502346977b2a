/**
 * The HTTP app: the server's own routes and every feature's (feature.ts). Auth, Host/Origin checks and the closing state live here, once.
 * Which server carries it (uWS or node:http) is transport/choose.ts's business; nothing here depends on it.
 */
import { movingRefusal, type UserRecord } from '../../storage/users.js';
import { BrowserdError, toBrowserdError } from '../../protocol/errors.js';
import { bearer, captureReq, readBody, sendError, sendJson, statusLine, type Req, type RequestFinished } from '../http/exchange.js';
import { checkHostAndOrigin, originPolicyOf } from '../http/origin.js';
import { restHandlers } from './rest.js';
import type { Handler } from './rest-call.js';
import { RouteTable, routeKey, type RouteSpec } from './routes.js';
import { allRoutes, type Feature } from './feature.js';
import { routeInput } from './route-input.js';
import { McpGateway } from './mcp.js';
import { addCdpRoute } from './cdp-route.js';
import { chooseHttpApp } from '../http/transport/choose.js';
import type { ServerDeps } from './deps.js';
import { clientAddress, plainAddress } from '../http/forwarded.js';


export interface AppHandle {
  port: number;
  closing: boolean;
  mcp: McpGateway;
  /** The server that carries the routes, and why it was picked. */
  server: { kind: 'uws' | 'node'; why: string };
  close(): void;
}

/** Serves the server's own routes and every route of `features`, each by its feature's handler. */
export async function startApp(server: ServerDeps, features: readonly Feature[], version: string): Promise<AppHandle> {
  const { env } = server;
  const { app, why } = chooseHttpApp(env.cfg.http);
  const mcp = new McpGateway(server, version);
  const originPolicy = originPolicyOf(env.cfg);
  const handle: AppHandle = { port: 0, closing: false, mcp, server: { kind: app.kind, why }, close: () => undefined };
  const health = (r: Req) =>
    sendJson(r, handle.closing ? 503 : 200, { ok: !handle.closing, version, uptimeS: Math.round((Date.now() - env.startedAt.getTime()) / 1000), browsers: env.pool.count });
  const table = new RouteTable(allRoutes(features));
  const handlers: Record<string, Handler> = restHandlers(server, health);
  for (const feature of features) {
    for (const [key, handler] of Object.entries(feature.handlers?.(server) ?? {})) {
      if (handlers[key]) throw new Error(`two handlers for ${key} (the ${feature.name} feature's is the second)`);
      handlers[key] = handler;
    }
  }
  // Every route has its handler and every handler its route: checked at start, not found at the first request.
  for (const route of table.routes) if (route.path !== '/mcp' && !handlers[routeKey(route)]) throw new Error(`no handler for ${routeKey(route)}`);
  for (const key of Object.keys(handlers)) if (!table.routes.some((x) => routeKey(x) === key)) throw new Error(`handler ${key} has no route`);

  /** One line per request for the operator: who, which route, how it ended, how long, how big. Never a value. */
  const logRequest: RequestFinished = (r, status, bytes, aborted) => {
    env.log.info({ reqId: r.id, method: r.method, route: r.log.route, user: r.log.user, status: aborted ? undefined : status, code: r.log.code, aborted: aborted || undefined, ms: Date.now() - r.startedAt, bytes }, 'http request');
  };

  /** Every route's handler runs here, after auth: its path and query checked against its schemas first. */
  const run = (route: RouteSpec, r: Req, user: UserRecord | undefined, params: string[]) => handlers[routeKey(route)](r, user, params, routeInput(route, params, r.query, (max) => readBody(r, max)));

  async function route(r: Req) {
    const { route, params, allowed } = table.match(r.method, r.path);
    // The route's template, never the path itself: paths of live views, hand-offs and shares hold their tokens.
    r.log.route = route?.path ?? (allowed.length ? 'method not allowed' : 'no route');
    if (route?.path === '/health') return health(r);
    if (handle.closing) return sendError(r, new BrowserdError('shutting_down', 'the daemon is stopping', { next: 'Retry in a few seconds.' }));
    if (!allowed.length) return sendError(r, new BrowserdError('not_found', `no route ${r.method} ${r.path}`, { next: 'See api/openapi.yaml; the MCP endpoint is /mcp.' }));
    const originProblem = checkHostAndOrigin(originPolicy, r.headers);
    if (originProblem) return sendError(r, new BrowserdError('forbidden', originProblem, { next: 'Call from a program or an allowed origin (BROWSERD_ALLOWED_ORIGINS).' }));
    if (!route) {
      return sendError(r, new BrowserdError('method_not_allowed', `${r.method} is not allowed on ${r.path}`, { next: `Use ${allowed.join(', ')}; see api/openapi.yaml.` }), { headers: { Allow: allowed.join(', ') } });
    }
    // Two Authorization headers could be read differently by a proxy in front and by us: refuse rather than pick one.
    if (r.repeated.includes('authorization')) {
      return sendError(r, new BrowserdError('unauthorized', 'more than one Authorization header', { next: 'Send exactly one header: Authorization: Bearer <token>.' }));
    }
    const token = bearer(r);
    if (route.auth === 'admin') {
      if (!env.users.isAdminKey(token)) {
        if (env.users.authenticate(token)) return sendError(r, new BrowserdError('forbidden', 'this route needs the admin key, not a user token', { next: 'Use the admin key from the admin key file (`browserd admin key` replaces it).' }));
        return sendError(r, new BrowserdError('unauthorized', 'missing or wrong admin key', { next: 'Send Authorization: Bearer <admin key>.' }));
      }
      r.log.user = '(admin)';
      return run(route, r, undefined, params);
    }
    // Open routes authenticate in their handler: the hand-off page and the live view by the token in their
    // path, the SMS inbox by its own secret. No user token is asked for.
    if (route.auth === 'none') return run(route, r, undefined, params);
    const user = env.users.authenticate(token);
    if (!user) {
      return sendError(r, new BrowserdError('unauthorized', token ? 'the token is wrong or was replaced' : 'missing bearer token', { next: 'Send Authorization: Bearer <your token>; an admin can issue one with `browserd user token NAME`.' }));
    }
    // Refused like a wrong token (401), on /mcp and /v1 alike, but saying why, so a person knows whom to ask.
    if (user.disabled) {
      return sendError(r, new BrowserdError('unauthorized', `the account ${user.id} is disabled`, { next: 'Ask the admin of this host to enable the account; nothing was done.' }));
    }
    // Moving to another host of a fleet: nothing runs here now, and the router sends the next try to the new host.
    if (user.moving) {
      return sendError(r, movingRefusal(user.id));
    }
    r.log.user = user.id;
    if (route.path === '/mcp') return mcp.handle(r, user);
    return run(route, r, user, params);
  }

  // Upgrades only: a plain GET on a socket's path falls through to the router below (and is a 404 there).
  for (const feature of features) for (const socket of feature.sockets?.(server, () => handle.closing) ?? []) app.ws(socket.pattern, socket.behavior);

  addCdpRoute(app, env, () => handle.closing);
  const trustedProxies = new Set(env.cfg.trustedProxies.map(plainAddress));
  app.any('/*', (res, req) => {
    const r = captureReq(res, req, logRequest);
    r.remote = clientAddress(r.remote, r.headers['x-forwarded-for'], trustedProxies);
    route(r).catch((e) => {
      const err = toBrowserdError(e);
      if (err.code === 'internal_error') env.log.error({ path: r.path, err: e instanceof Error ? e.stack : String(e) }, 'request failed');
      sendError(r, err);
    });
  });

  // A method the parser cannot take (FOO, a lower-case get) is answered like a known one the route lacks.
  app.unknownMethod((method, path) => {
    // A method no route has, so the list of the path's methods comes back whole.
    const { allowed } = table.match('UNKNOWN', path);
    const err = allowed.length
      ? new BrowserdError('method_not_allowed', `${method.slice(0, 32)} is not a method this server takes`, { next: `Use ${allowed.join(', ')}; see api/openapi.yaml.` })
      : new BrowserdError('not_found', 'no such route', { next: 'See api/openapi.yaml; the MCP endpoint is /mcp.' });
    env.log.info({ method: method.slice(0, 32), route: allowed.length ? 'method not allowed' : 'no route', status: err.status, code: err.code }, 'http request');
    return { statusLine: statusLine(err.status), headers: { 'Content-Type': 'application/json', ...(allowed.length ? { Allow: allowed.join(', ') } : {}) }, body: JSON.stringify({ ok: false, error: err.toBody() }) };
  });

  const listening = await app.listen(env.cfg.host, env.cfg.port);
  handle.port = listening.port;
  handle.close = () => listening.close();
  return handle;
}
