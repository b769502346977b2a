/** Server-run work as a feature: tasks a model runs with the browser tools, and research answers, over /v1/tasks and /v1/research. */
import type { Feature } from '../server/feature.js';
import { taskTools } from './operations.js';
import { taskHandlers, TASK_ROUTES } from './routes.js';

export const taskFeature: Feature = {
  name: 'tasks',
  operations: [...taskTools],
  routes: [...TASK_ROUTES],
  handlers: (server) => ({ ...taskHandlers(server) }),
};
