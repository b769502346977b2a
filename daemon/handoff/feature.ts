/** Hand-offs as a feature: the tools that ask a person to take a turn, and the "Your turn" page their link opens. */
import type { Feature } from '../server/feature.js';
import { handoffTools } from './tools.js';
import { HANDOFF_ROUTES, handoffPageHandlers } from './page.js';

export const handoffFeature: Feature = {
  name: 'handoff',
  tools: handoffTools,
  routes: HANDOFF_ROUTES,
  handlers: handoffPageHandlers,
};
