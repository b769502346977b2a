/** The live view's HTTP route: the viewer page a live link opens (its WebSocket is socket.ts). */
import type { Platform } from '../platform.js';
import type { Handler } from '../server/rest-call.js';
import { serveViewerPage } from './page.js';
import type { RouteSpec } from '../server/routes.js';


export const LIVE_ROUTES: readonly RouteSpec[] = [
  { method: 'GET', path: '/live/{token}', auth: 'none', summary: 'Live view of a tab: the viewer page a live link opens (the token in the path is the only credential; its WebSocket is /live/{token}/ws)' },
];


export function liveHandlers(env: Platform): Record<string, Handler> {
  return {
    'GET /live/{token}': (r, _user, [token]) => serveViewerPage(env, r, token),
  };
}
