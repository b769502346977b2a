/** Webhooks as a feature: the /v1/webhooks routes over the receiver store; events are emitted by the others. */
import type { Feature } from '../server/feature.js';
import { WEBHOOK_ROUTES, webhookHandlers } from './routes.js';

export const webhookFeature: Feature = {
  name: 'webhooks',
  routes: WEBHOOK_ROUTES,
  handlers: (server) => webhookHandlers(server.env),
};
