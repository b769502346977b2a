/**
 * What a feature hands main.ts: its tools and REST-only operations (the registry is filled from these), its
 * REST routes with their schemas (the route table and api/openapi.yaml are built from these) and, once the
 * daemon's services exist, the handlers of those routes. A feature folder exports one of these from its
 * feature.ts; main.ts alone imports it. How a feature is added: docs/architecture.md.
 */
import type { ToolDef } from '../call/define.js';
import type { Handler } from './rest-call.js';
import { SERVER_ROUTES, type RouteSpec } from './routes.js';
import type { ServerDeps } from './deps.js';
import type { WebSocketBehavior } from '../http/transport/types.js';

/** A WebSocket a feature serves: upgrades on `pattern` (uWS syntax, '/live/:token/ws') go to `behavior`. */
export interface SocketRoute {
  pattern: string;
  behavior: WebSocketBehavior<any>;
}

export interface Feature {
  /** Names the feature in start-up errors (a route without a handler, two tools with one name). */
  name: string;
  /** MCP tools, also served at POST /v1/tools/{name}. */
  tools?: readonly ToolDef<any>[];
  /** Run through the same dispatch as tools, but only from the REST route that names them. */
  operations?: readonly ToolDef<any>[];
  /** Every HTTP route the feature serves, each with the schemas its input is checked against. */
  routes?: readonly RouteSpec[];
  /** The handler of each of its routes, by routeKey, bound to the running daemon. */
  handlers?(server: ServerDeps): Record<string, Handler>;
  /** Its WebSockets, bound to the running daemon; `isClosing` is true once the daemon stops taking work. */
  sockets?(server: ServerDeps, isClosing: () => boolean): SocketRoute[];
}

export const toolsOf = (features: readonly Feature[]) => features.flatMap((f) => f.tools ?? []);
export const operationsOf = (features: readonly Feature[]) => features.flatMap((f) => f.operations ?? []);
export const routesOf = (features: readonly Feature[]) => features.flatMap((f) => f.routes ?? []);

/** Every route one daemon serves: the server's own, then each feature's, in the order main.ts lists them. */
export const allRoutes = (features: readonly Feature[]): RouteSpec[] => [...SERVER_ROUTES, ...routesOf(features)];
