/** The caller's response caches over REST: list them, delete one. Entries are only ever the caller's own. */
import type { Platform } from '../platform.js';
import type { UserRecord } from '../../storage/users.js';
import { BrowserdError } from '../../protocol/errors.js';
import { sendJson } from '../http/exchange.js';
import type { Handler } from '../server/rest-call.js';
import type { RouteSpec } from '../server/routes.js';
import { CACHE_NAME } from '../../protocol/ids.js';
import { Type } from '@sinclair/typebox';
import { group, hinted } from '../server/route-schemas.js';

// ---- caches
export const CachePath = group({
  name: hinted(Type.String({ description: 'letters, digits, ".", "_", "-"', pattern: CACHE_NAME.source }), { what: 'a cache name', next: 'Cache names are 1-64 letters, digits, ".", "_" or "-" (GET /v1/caches lists yours).' }),
});


export const CACHE_ROUTES: readonly RouteSpec[] = [
  { method: 'GET', path: '/v1/caches', auth: 'user', summary: "The caller's response caches: name, entries, bytes, last stored" },
  { method: 'DELETE', path: '/v1/caches/{name}', auth: 'user', summary: 'Delete one of the caller\'s response caches with its stored responses', params: CachePath },
];


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
