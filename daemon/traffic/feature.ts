/** Traffic as a feature: HAR recording of a tab, by tool and as a streamed document over REST. */
import type { Feature } from '../server/feature.js';
import { harTools } from './har-tools.js';
import { harHandlers, HAR_ROUTES } from './har-route.js';

export const trafficFeature: Feature = {
  name: 'traffic',
  tools: [...harTools],
  routes: [...HAR_ROUTES],
  handlers: (server) => ({ ...harHandlers(server.env) }),
};
