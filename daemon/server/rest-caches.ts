/** The caller's response caches over REST: list them, delete one. Entries are only ever the caller's own. */
import type { Platform } from '../platform.js';
import type { UserRecord } from '../../storage/users.js';
import { BrowserdError } from '../../protocol/errors.js';
import { CACHE_NAME } from '../../protocol/ids.js';
import { sendJson } from './http.js';
import type { Handler } from './rest-call.js';

function cacheName(raw: string): string {
  let name: string;
  try {
    name = decodeURIComponent(raw);
  } catch {
    name = raw;
  }
  if (!CACHE_NAME.test(name)) throw new BrowserdError('validation_error', `"${name.slice(0, 80)}" is not a cache name`, { next: 'Cache names are 1-64 letters, digits, ".", "_" or "-" (GET /v1/caches lists yours).' });
  return name;
}

export function cacheHandlers(env: Platform): Record<string, Handler> {
  const me = (u: UserRecord | undefined) => u!;
  return {
    'GET /v1/caches': async (r, u) => sendJson(r, 200, { ok: true, caches: env.responseCache.list(me(u).id) }),
    'DELETE /v1/caches/{name}': async (r, u, [raw]) => {
      const name = cacheName(raw!);
      if (!(await env.responseCache.delete(me(u).id, name))) throw new BrowserdError('not_found', `no cache ${name}`, { next: 'List your caches with GET /v1/caches.' });
      sendJson(r, 200, { ok: true, name, deleted: true });
    },
  };
}
