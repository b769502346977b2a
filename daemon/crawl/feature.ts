/** Crawls as a feature: the browser_crawl tools and the /v1/crawls routes over the running crawl service. */
import type { Feature } from '../server/feature.js';
import { crawlTools } from './tools.js';
import { CRAWL_ROUTES, crawlHandlers } from './routes.js';

export const crawlFeature: Feature = {
  name: 'crawl',
  tools: crawlTools,
  routes: CRAWL_ROUTES,
  handlers: crawlHandlers,
};
