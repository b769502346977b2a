/**
 * GET /v1/tabs/{id}/har: the tab's HAR recording (recording or stopped) as one HAR 1.2 JSON document, streamed
 * from its file entry by entry (never built whole in memory). 404 when the tab never recorded, its recording
 * was deleted, the tab is closed, or the tab is another user's: one answer, so nothing tells them apart.
 */
import type { Platform } from '../platform.js';
import type { UserRecord } from '../../storage/users.js';
import { BrowserdError } from '../../protocol/errors.js';
import { harRecordings } from './har-recordings.js';
import { harDocument } from './har-document.js';
import { sendStream } from '../http/exchange.js';
import type { Handler } from '../server/rest-call.js';
import type { RouteSpec } from '../server/routes.js';
import * as S from '../server/route-schemas.js';


export const HAR_ROUTES: readonly RouteSpec[] = [
  { method: 'GET', path: '/v1/tabs/{id}/har', auth: 'user', summary: "The tab's HAR recording (browser_har), recording or stopped, as one redacted HAR 1.2 JSON document, streamed", params: S.HarTabPath },
];


export function harHandlers(env: Platform): Record<string, Handler> {
  return {
    'GET /v1/tabs/{id}/har': async (r, u, _raw, { params }) => {
      const user = (u as UserRecord).id;
      const tab = params.id!;
      const rec = env.tabs.get(user, tab) ? harRecordings(env).get(user, tab) : undefined;
      if (!rec || rec.state === 'deleted') {
        throw new BrowserdError('not_found', `no HAR recording for tab ${tab}`, { next: 'Start one with browser_har {"action":"start"}; list your tabs with GET /v1/tabs.' });
      }
      await sendStream(r, 200, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' }, harDocument(rec));
    },
  };
}
