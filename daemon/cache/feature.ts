/** Response caches as a feature: listing and deleting a user's caches over REST. */
import type { Feature } from '../server/feature.js';
import { cacheHandlers, CACHE_ROUTES } from './routes.js';

export const cacheFeature: Feature = {
  name: 'cache',
  routes: [...CACHE_ROUTES],
  handlers: (server) => ({ ...cacheHandlers(server.env) }),
};
