/** The live view's HTTP route, spread into the REST handler table (its WebSocket is registered in app.ts). */
import type { Platform } from '../platform.js';
import type { Handler } from './rest-call.js';
import { serveViewerPage } from '../viewer/page.js';

export function liveHandlers(env: Platform): Record<string, Handler> {
  return {
    'GET /live/{token}': (r, _user, [token]) => serveViewerPage(env, r, token),
  };
}
