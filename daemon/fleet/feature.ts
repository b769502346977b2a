/** A host's part in a fleet as a feature: the admin routes the fleet's commands use to place and move users. */
import type { Feature } from '../server/feature.js';
import { FLEET_HOST_ROUTES, fleetHostHandlers } from './host-routes.js';

export const fleetHostFeature: Feature = {
  name: 'fleet-host',
  routes: FLEET_HOST_ROUTES,
  handlers: (server) => fleetHostHandlers(server),
};
