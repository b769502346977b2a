/** Browser settings over REST: users read them with their own identity; the admin key reads and changes them. */
import type { Platform } from '../platform.js';
import { sendJson } from '../http/exchange.js';
import { ADMIN_ACTOR, auditedChange, type Handler } from './rest-call.js';

export function settingsHandlers(env: Platform): Record<string, Handler> {
  return {
    // The caller's own identity comes with them (drawn now if they had none and it applies somewhere).
    'GET /v1/browser/settings': async (r, u) =>
      sendJson(r, 200, { ok: true, settings: env.browserSettings.current(), identity: await env.identities.view(u!.id), adBlocking: env.adblock.status() }),
    'GET /v1/admin/browser-settings': async (r) => sendJson(r, 200, { ok: true, settings: env.browserSettings.current(), adBlocking: env.adblock.status() }),
    'PATCH /v1/admin/browser-settings': async (r, _u, _raw, input) => {
      const patch = await input.json();
      const keys = patch && typeof patch === 'object' && !Array.isArray(patch) ? Object.keys(patch) : [];
      // Checked inside the audited change (the route's BrowserSettingsPatch), so a refused patch is audited too.
      const settings = await auditedChange(env, ADMIN_ACTOR, 'admin.browser_settings', { keys }, async () => env.browserSettings.update(await input.body()));
      sendJson(r, 200, { ok: true, settings });
    },
  };
}
