/** Documents as a feature: converting a PDF, office file or page to Markdown or text, by tool and over POST /v1/convert. */
import type { Feature } from '../server/feature.js';
import { convertTools } from './tools.js';
import { convertHandlers, CONVERT_ROUTES } from './routes.js';

export const docsFeature: Feature = {
  name: 'docs',
  tools: [...convertTools],
  routes: [...CONVERT_ROUTES],
  handlers: (server) => ({ ...convertHandlers(server) }),
};
