/**
 * The browser itself as a feature: the tools that open, read and drive tabs, gathered from their group files.
 * A new tool goes in its group's file and is listed here once (or in its own feature's feature.ts).
 */
import type { ToolDef } from '../call/define.js';
import type { Feature } from '../server/feature.js';
import * as S from '../server/route-schemas.js';
import { runTool, toolBody } from '../server/rest-call.js';
import { sendJson } from '../http/exchange.js';
import { listProfiles } from './spaces.js';
import { DOWNLOAD_ROUTES, downloadHandlers } from './download-routes.js';
import { tabTools } from './tabs.js';
import { navigationTools } from './navigate.js';
import { snapshotTools } from './snapshot.js';
import { inputTools } from './input.js';
import { readTools } from './read-text.js';
import { statusTools } from './status.js';
import { pageTools } from './page.js';
import { diagnosticsTools } from './diagnostics.js';
import { spacesTools } from './spaces.js';
import { searchTools } from './search.js';
import { pointerTools } from './pointer.js';
import { formTools } from './forms.js';
import { queryTools } from './query.js';
import { extractTools } from './extract.js';
import { readPageTools } from './read.js';
import { savedSessionTools } from './saved-sessions.js';
import { cdpSessionTools } from './cdp-sessions.js';
import { siteTools } from './site.js';
import { downloadTools } from './downloads.js';
import { routeTools } from './route.js';
import { captureTools } from './capture.js';
import { apiCallTools } from './api-call.js';
import { apiMapTools } from './api-map.js';
import { captchaTools } from './captcha.js';

const ALL: ToolDef<any>[] = [
  ...tabTools,
  ...navigationTools,
  ...snapshotTools,
  ...inputTools,
  ...readTools,
  ...statusTools,
  ...pageTools,
  ...diagnosticsTools,
  ...spacesTools,
  ...searchTools,
  ...pointerTools,
  ...formTools,
  ...queryTools,
  ...extractTools,
  ...readPageTools,
  ...savedSessionTools,
  ...cdpSessionTools,
  ...siteTools,
  ...downloadTools,
  ...routeTools,
  ...captureTools,
  ...apiCallTools,
  ...apiMapTools,
  ...captchaTools,
];

export const browserFeature: Feature = {
  name: 'browser',
  tools: ALL,
  routes: [
    { method: 'GET', path: '/v1/tabs', auth: 'user', summary: 'List tabs (as browser_tabs)' },
    { method: 'POST', path: '/v1/tabs', auth: 'user', summary: 'Open a tab (as browser_open); the answer carries the tab id', body: { tool: 'browser_open' } },
    { method: 'DELETE', path: '/v1/tabs/{id}', auth: 'user', summary: 'Close a tab (as browser_close_tab)', params: S.TabPath },
    { method: 'GET', path: '/v1/profiles', auth: 'user', summary: "The caller's browser profiles: the default one and named ones" },
    ...DOWNLOAD_ROUTES,
  ],
  handlers: (server) => ({
    ...downloadHandlers(server.env),
    'GET /v1/tabs': (r, u) => runTool(server, r, u!, 'browser_tabs', {}),
    'POST /v1/tabs': async (r, u) => runTool(server, r, u!, 'browser_open', await toolBody(server, r, u!, 'browser_open'), 201),
    'DELETE /v1/tabs/{id}': (r, u, _raw, { params }) => runTool(server, r, u!, 'browser_close_tab', { tab: params.id }),
    'GET /v1/profiles': async (r, u) => sendJson(r, 200, { ok: true, profiles: listProfiles(server.env, u!.id) }),
  }),
};
