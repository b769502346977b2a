/** The caller's response caches over REST: list them, delete one. Entries are only ever the caller's own. */
import type { Platform } from '../platform.js';
import type { UserRecord } from '../../storage/users.js';
import { BrowserdError } from '../../protocol/errors.js';
import { sendJson } from '../http/exchange.js';
import type { Handler } from './rest-call.js';

export function cacheHandlers(env: Platform): Record<string, Handler> {
  const me = (u: UserRecord | undefined) => u!;
  return {
    'GET /v1/caches': async (r, u) => sendJson(r, 200, { ok: true, caches: env.responseCache.list(me(u).id) }),
    'DELETE /v1/caches/{name}': async (r, u, _raw, { params }) => {
      const name = params.name!;
      if (!(await env.responseCache.delete(me(u).id, name))) throw new BrowserdError('not_found', `no cache ${name}`, { next: 'List your caches with GET /v1/caches.' });
      sendJson(r, 200, { ok: true, name, deleted: true });
    },
  };
}
