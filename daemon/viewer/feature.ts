/** The live view as a feature: the tools that hand out live links, the viewer page a link opens, and its socket. */
import type { Feature } from '../server/feature.js';
import { originPolicyOf } from '../http/origin.js';
import { viewerTools } from './tools.js';
import { LIVE_ROUTES, liveHandlers } from './routes.js';
import { LIVE_SOCKET_PATTERN, liveSocket } from './socket.js';

export const liveFeature: Feature = {
  name: 'live',
  tools: viewerTools,
  routes: LIVE_ROUTES,
  handlers: (server) => liveHandlers(server.env),
  sockets: (server, isClosing) => [{ pattern: LIVE_SOCKET_PATTERN, behavior: liveSocket(server.env, server.callTool, originPolicyOf(server.env.cfg), isClosing) }],
};
