/**
 * The shape of an HTTP route, the server's own routes (health, MCP, the caller, admin, the pages) and the
 * table app.ts routes by: built from these and every feature's routes (feature.ts), the same list
 * scripts/docs.ts writes api/openapi.yaml from, so a route cannot be served without being documented.
 */
import type { TObject, TSchema } from '@sinclair/typebox';
import * as S from './route-schemas.js';
import { BrowserSettingsPatch, checkSettingsPatch } from '../settings/browser-settings.js';

export type RouteAuth = 'none' | 'user' | 'admin';
export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteSpec {
  method: RouteMethod;
  /** OpenAPI-style path: `{param}` matches one path segment. */
  path: string;
  auth: RouteAuth;
  summary: string;
  /**
   * The path parameters (by `{name}`) and the query, as TypeBox: route-input.ts checks them before the handler
   * runs and scripts/docs.ts documents them. A route without them gets its segments raw.
   */
  params?: TObject;
  query?: TObject;
  /** Where the JSON body is checked; a route without it reads no body. */
  body?: RouteBody;
  /**
   * The handler opens its audited change first and checks its input inside it (input.checked(), input.body()),
   * so a refused path parameter or body is audited too. The checks are still the schemas above.
   */
  refusalsAudited?: true;
}

/**
 * A tool's or an operation's body is checked by the one dispatch against that input schema (as over MCP, its
 * refusals audited), so route-input.ts leaves it alone and scripts/docs.ts documents that schema. A `schema`
 * body is checked by route-body.ts against it (input.body()) and documented from it. A `handler` body is one
 * no JSON schema can say (a form, an SMS forwarder's text), read by its handler for the reason given.
 */
export type RouteBody = { tool: string } | { operation: string } | { handler: string } | SchemaBody;

export interface SchemaBody {
  schema: TSchema;
  /** Largest body read (default MAX_BODY); past it, 413. */
  maxBytes?: number;
  /** An empty body is no body (refused unless the schema takes none); without it, {} as readJson reads it. */
  emptyIsAbsent?: true;
  /**
   * A checker of this same schema that says more (every problem of a settings patch at once, host patterns);
   * used instead of the generic messages. It must refuse whatever the schema refuses.
   */
  check?: (value: unknown) => unknown;
}

/** POST /v1/tools/{name}: the body is the arguments of the tool the path names. */
export const PATH_TOOL = '{name}';

/** The server's own routes; each feature brings its own (feature.ts). */
export const SERVER_ROUTES: readonly RouteSpec[] = [
  { method: 'GET', path: '/health', auth: 'none', summary: 'Liveness' },
  { method: 'POST', path: '/mcp', auth: 'user', summary: 'MCP Streamable HTTP endpoint (JSON-RPC 2.0); protocol 2025-03-26 and later', query: S.McpQuery },
  { method: 'GET', path: '/mcp', auth: 'user', summary: 'MCP server-to-client stream' },
  { method: 'DELETE', path: '/mcp', auth: 'user', summary: 'End an MCP session' },
  { method: 'GET', path: '/v1/me', auth: 'user', summary: "The caller's user id, policy and limits" },
  { method: 'GET', path: '/v1/tools', auth: 'user', summary: 'Every tool with its input schema' },
  { method: 'POST', path: '/v1/tools/{name}', auth: 'user', summary: 'Call a tool (documented once per tool below)', params: S.ToolPath, body: { tool: PATH_TOOL } },
  { method: 'GET', path: '/v1/browser/settings', auth: 'user', summary: "The host's browser settings (identity, ad blocking) and the caller's own persistent identity" },
  { method: 'GET', path: '/v1/audit', auth: 'user', summary: "The caller's own audit entries, newest first; pass the returned cursor for the next page", query: S.AuditQuery },
  { method: 'GET', path: '/v1/admin/users', auth: 'admin', summary: 'List users (admin key)' },
  { method: 'POST', path: '/v1/admin/users', auth: 'admin', summary: 'Create a user (admin key); answers its token once', body: { schema: S.NewUserBody } },
  { method: 'GET', path: '/v1/admin/browser-settings', auth: 'admin', summary: 'The host-wide browser settings in force (admin key)' },
  { method: 'PATCH', path: '/v1/admin/browser-settings', auth: 'admin', summary: 'Change browser settings (admin key): any of profile_enabled, profile, block_ads, max_browsers, signup; an unknown key or a wrong type changes nothing', body: { schema: BrowserSettingsPatch, check: checkSettingsPatch }, refusalsAudited: true },
  { method: 'GET', path: '/v1/admin/audit', auth: 'admin', summary: "Every user's audit entries (admin key)", query: S.AdminAuditQuery },
  { method: 'GET', path: '/', auth: 'none', summary: 'Home page (HTML): what this service is, where agents connect, and the sign-up form when sign-up is on' },
  { method: 'POST', path: '/signup', auth: 'none', summary: 'Sign up {name} (form or JSON) when the admin turned signup on: makes a user and answers its token once; limited per client address (429 rate_limited with Retry-After); 403 forbidden when sign-up is off', body: { handler: 'a form or JSON, counted per client address before it is read' } },
  { method: 'GET', path: '/install.md', auth: 'none', summary: "A setup guide for agents (Markdown): MCP URL, auth header, REST base and first steps, with the daemon's own address filled in; no secret" },
  // The admin console: HTML pages for a person, authenticated by their own session cookie (see
  // daemon/server/admin/handlers.ts), not part of the REST contract. Programs use /v1/admin/* with the admin key.
  { method: 'GET', path: '/admin', auth: 'none', summary: 'Admin console: the login form, or the overview when logged in (HTML page)' },
  { method: 'POST', path: '/admin/login', auth: 'none', summary: 'Admin console: log in with the admin key (form post); sets the session cookie (HTML page)' },
  { method: 'POST', path: '/admin/logout', auth: 'none', summary: 'Admin console: log out (HTML page)' },
  { method: 'GET', path: '/admin/users', auth: 'none', summary: 'Admin console: users (HTML page)' },
  { method: 'POST', path: '/admin/users', auth: 'none', summary: 'Admin console: add a user; its token is shown once (HTML page)' },
  { method: 'POST', path: '/admin/users/{name}', auth: 'none', summary: 'Admin console: replace a user\'s token, disable or enable the user (HTML page)' },
  { method: 'GET', path: '/admin/settings', auth: 'none', summary: 'Admin console: browser settings (HTML page)' },
  { method: 'POST', path: '/admin/settings', auth: 'none', summary: 'Admin console: change browser settings (HTML page)' },
  { method: 'GET', path: '/admin/policies', auth: 'none', summary: 'Admin console: host policies per user (HTML page)' },
  { method: 'POST', path: '/admin/policies/{name}', auth: 'none', summary: "Admin console: set or remove one host rule of a user (HTML page)" },
  { method: 'GET', path: '/admin/approvals', auth: 'none', summary: 'Admin console: approvals and take-over per user (HTML page)' },
  { method: 'POST', path: '/admin/approvals/{name}', auth: 'none', summary: "Admin console: change a user's approvals and take-over (HTML page)" },
  { method: 'GET', path: '/admin/audit', auth: 'none', summary: 'Admin console: recent audit entries of every user (HTML page)' },
  { method: 'GET', path: '/admin/browsers', auth: 'none', summary: 'Admin console: running browsers with their memory (HTML page)' },
];

export const routeKey = (r: Pick<RouteSpec, 'method' | 'path'>) => `${r.method} ${r.path}`;

/** The regular expression of a route path; each `{param}` captures one segment, in order. */
export function routePattern(path: string): RegExp {
  const src = path.split('/').map((seg) => (/^\{[a-z]+\}$/.test(seg) ? '([^/]+)' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/');
  return new RegExp(`^${src}$`);
}

export interface RouteMatch {
  route?: RouteSpec;
  params: string[];
  /** Methods served on this path (for 405 and its Allow header); empty when the path is unknown. */
  allowed: RouteMethod[];
}

/** The routes one daemon serves, matched in order; two rows for one method and path are refused at start. */
export class RouteTable {
  private readonly compiled: { r: RouteSpec; re: RegExp }[];

  constructor(readonly routes: readonly RouteSpec[]) {
    const keys = new Set<string>();
    for (const r of routes) {
      if (keys.has(routeKey(r))) throw new Error(`two routes are ${routeKey(r)}`);
      keys.add(routeKey(r));
    }
    this.compiled = routes.map((r) => ({ r, re: routePattern(r.path) }));
  }

  match(method: string, path: string): RouteMatch {
    const allowed: RouteMethod[] = [];
    for (const { r, re } of this.compiled) {
      const m = re.exec(path);
      if (!m) continue;
      allowed.push(r.method);
      if (r.method === method) return { route: r, params: m.slice(1), allowed };
    }
    return { params: [], allowed };
  }
}
