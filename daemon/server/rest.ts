/** REST under /v1: the same dispatch as MCP, JSON in and out, status codes from the one error table. */
import type { Platform } from '../platform.js';
import type { UserRecord } from '../../storage/users.js';
import { InvalidCursorError } from '../../storage/audit.js';
import { toJsonSchema } from '../call/schema.js';
import { outputJsonSchema } from '../call/output.js';
import { BrowserdError } from '../../protocol/errors.js';
import { quotaView } from '../quotas/limits.js';
import { sendJson, type Req } from '../http/exchange.js';
import { runTool, toolBody, type Handler } from './rest-call.js';
import type { RouteSpec } from './routes.js';
import { settingsHandlers } from './rest-settings.js';
import { assertNewUserName } from './user-name.js';
import { adminConsoleHandlers } from './admin/handlers.js';
import { signupHandlers } from './signup.js';
import { installGuideHandlers } from './install-guide.js';
import type { ServerDeps } from './deps.js';

/** The user's stored bytes (what --max-storage-mb-per-user counts) in all, and by where they are. */
function storageUsage(env: Platform, user: string) {
  const storage = env.storageQuota.use(user);
  return { storageBytes: Object.values(storage).reduce((a, b) => a + b, 0), storage };
}

/** The handler of every route in SERVER_ROUTES except /mcp (app.ts hands that to the MCP gateway), by routeKey. */
export function restHandlers(server: ServerDeps, health: (r: Req) => void): Record<string, Handler> {
  const { env } = server;
  const me = (u: UserRecord | undefined) => u!;
  return {
    'GET /health': async (r) => health(r),
    ...settingsHandlers(env),
    'GET /v1/me': async (r, u) =>
      sendJson(r, 200, {
        ok: true,
        user: me(u).id,
        policy: { approvals: me(u).approvals, takeover: me(u).takeover, hostRules: env.policies.rules(me(u).id) },
        usage: { cdpSessionMinutes: env.usage.minutes(me(u).id, 'cdp_session'), models: env.modelUsage.totals(me(u).id), ...storageUsage(env, me(u).id) },
        limits: {
          maxBrowsersOnHost: env.pool.maxBrowsers,
          browsersPerUser: env.cfg.maxBrowsersPerUser,
          tabsPerUser: env.cfg.maxTabsPerUser,
          mcpSessionsPerUser: env.cfg.maxMcpSessionsPerUser,
          browserIdleS: Math.round(env.cfg.browserIdleMs / 1000),
          readUrls: 50,
          queryLimit: 500,
          evaluateChars: 12000,
          // Each per-user quota (`browserd serve --max-*-per-user`); a call past one is refused naming it.
          ...quotaView(env.cfg.quotas),
        },
      }),
    'GET /v1/tools': async (r) =>
      sendJson(r, 200, { ok: true, tools: server.tools.tools.map((t) => ({ name: t.name, title: t.title, description: t.description, effect: t.effect, inputSchema: toJsonSchema(t.input), ...(t.output ? { outputSchema: outputJsonSchema(t) } : {}) })) }),
    'POST /v1/tools/{name}': async (r, u, _raw, { params }) => {
      const name = params.name!;
      return runTool(server, r, me(u), name, await toolBody(server, r, me(u), name));
    },
    'GET /v1/audit': async (r, u, _raw, { query }) => {
      const { limit = 50, cursor } = query as { limit?: number; cursor?: string };
      let page;
      try {
        page = env.audit.page(me(u).id, { limit, cursor });
      } catch (e) {
        if (e instanceof InvalidCursorError) throw new BrowserdError('validation_error', 'the cursor is not one this server gave you', { next: 'Pass the cursor from your previous page unchanged, or omit it for the newest entries.' });
        throw e;
      }
      sendJson(r, 200, { ok: true, entries: page.entries, ...(page.next ? { cursor: page.next } : {}) });
    },
    'GET /v1/admin/users': async (r) => sendJson(r, 200, { ok: true, users: env.users.list() }),
    'POST /v1/admin/users': async (r, _u, _raw, input) => {
      const body = await input.body<{ name: string }>();
      // The form is the route's NewUserBody; whether the name is taken is the user store's to say.
      const name = assertNewUserName(env, body.name);
      const { user, token } = await env.users.add(name);
      sendJson(r, 201, { ok: true, user, token });
    },
    'GET /v1/admin/audit': async (r, _u, _raw, { query }) => {
      const { limit = 100 } = query as { limit?: number };
      sendJson(r, 200, { ok: true, entries: env.audit.all(limit) });
    },
    ...signupHandlers(env),
    ...installGuideHandlers(env),
    ...adminConsoleHandlers(server),
  };
}

/** Routes whose handler lives elsewhere (the MCP gateway). */
export const GATEWAY_ROUTES = (r: RouteSpec) => r.path === '/mcp';
