/** REST under /v1: the same dispatch as MCP, JSON in and out, status codes from the one error table. */
import type { DaemonEnv } from '../env.js';
import type { UserRecord } from '../../storage/users.js';
import { callTool } from '../tools/dispatch.js';
import { allTools, listProfiles, toJsonSchema } from '../tools/registry.js';
import { BrowserdError } from '../../protocol/errors.js';
import { readJson, send, sendError, sendJson, type Req } from './http.js';

type Handler = (r: Req, user: UserRecord, params: string[]) => Promise<void>;

/** A path segment as text; a malformed %-escape is the caller's error, not ours. */
function segment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new BrowserdError('validation_error', `"${raw}" is not a valid URL path segment`, { next: 'Percent-encode the name correctly.' });
  }
}

async function runTool(env: DaemonEnv, r: Req, user: UserRecord, name: string, args: unknown, okStatus = 200) {
  const result = await callTool(env, user, name, args, { signal: r.signal, via: 'rest' });
  if (!result.ok) return sendError(r, result.error);
  sendJson(r, okStatus, { ...result.out.renderJson(), tool: name });
}

export function restRoutes(env: DaemonEnv): { method: string; pattern: RegExp; handler: Handler }[] {
  return [
    {
      method: 'GET',
      pattern: /^\/v1\/me$/,
      handler: async (r, user) =>
        sendJson(r, 200, {
          ok: true,
          user: user.id,
          policy: { approvals: user.approvals, takeover: user.takeover, hostRules: env.policies.rules(user.id) },
          limits: { maxBrowsersOnHost: env.cfg.maxBrowsers, readUrls: 50, queryLimit: 500, evaluateChars: 12000 },
        }),
    },
    { method: 'GET', pattern: /^\/v1\/tabs$/, handler: (r, user) => runTool(env, r, user, 'browser_tabs', {}) },
    { method: 'POST', pattern: /^\/v1\/tabs$/, handler: async (r, user) => runTool(env, r, user, 'browser_open', await readJson(r), 201) },
    { method: 'DELETE', pattern: /^\/v1\/tabs\/([^/]+)$/, handler: (r, user, [id]) => runTool(env, r, user, 'browser_close_tab', { tab: segment(id) }) },
    {
      method: 'GET',
      pattern: /^\/v1\/tools$/,
      handler: async (r) =>
        sendJson(r, 200, { ok: true, tools: allTools().map((t) => ({ name: t.name, title: t.title, description: t.description, effect: t.effect, inputSchema: toJsonSchema(t.input) })) }),
    },
    { method: 'POST', pattern: /^\/v1\/tools\/([a-z_]+)$/, handler: async (r, user, [name]) => runTool(env, r, user, name, await readJson(r)) },
    { method: 'GET', pattern: /^\/v1\/profiles$/, handler: async (r, user) => sendJson(r, 200, { ok: true, profiles: listProfiles(env, user.id) }) },
    { method: 'GET', pattern: /^\/v1\/files$/, handler: async (r, user) => sendJson(r, 200, { ok: true, files: env.files.list(user.id).map((f) => ({ ...f, url: `/v1/files/${encodeURIComponent(f.name)}` })) }) },
    {
      method: 'GET',
      pattern: /^\/v1\/files\/([^/]+)$/,
      handler: async (r, user, [raw]) => {
        const name = segment(raw);
        const info = env.files.info(user.id, name);
        const data = info && env.files.read(user.id, name);
        if (!info || !data) throw new BrowserdError('not_found', `no file ${name}`, { next: 'List your files with GET /v1/files.' });
        send(r, 200, data, { 'Content-Type': info.mimeType, 'Content-Disposition': `attachment; filename="${name.replace(/"/g, '')}"`, 'X-Content-Type-Options': 'nosniff' });
      },
    },
    {
      method: 'GET',
      pattern: /^\/v1\/audit$/,
      handler: async (r, user) => {
        const limit = Number(r.query.get('limit') ?? 50);
        if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new BrowserdError('validation_error', 'limit must be a whole number from 1 to 500', { next: 'Pass ?limit=50.' });
        const page = env.audit.page(user.id, { limit, before: r.query.get('cursor') ?? undefined });
        sendJson(r, 200, { ok: true, entries: page.entries, ...(page.next ? { cursor: page.next } : {}) });
      },
    },
  ];
}

export function adminRoutes(env: DaemonEnv): { method: string; pattern: RegExp; handler: (r: Req) => Promise<void> }[] {
  return [
    { method: 'GET', pattern: /^\/v1\/admin\/users$/, handler: async (r) => sendJson(r, 200, { ok: true, users: env.users.list() }) },
    {
      method: 'POST',
      pattern: /^\/v1\/admin\/users$/,
      handler: async (r) => {
        const body = (await readJson(r)) as { name?: unknown };
        if (typeof body.name !== 'string' || !/^[a-z0-9][a-z0-9_.-]{0,63}$/.test(body.name)) {
          throw new BrowserdError('validation_error', 'name must be 1-64 lowercase letters, digits, ".", "_" or "-"', { next: 'Send {"name": "alice"}.' });
        }
        if (env.users.get(body.name)) throw new BrowserdError('validation_error', `user ${body.name} exists`, { next: 'Pick another name.' });
        const { user, token } = await env.users.add(body.name);
        sendJson(r, 201, { ok: true, user, token });
      },
    },
    { method: 'GET', pattern: /^\/v1\/admin\/audit$/, handler: async (r) => sendJson(r, 200, { ok: true, entries: env.audit.all(Number(r.query.get('limit') ?? 100)) }) },
  ];
}
