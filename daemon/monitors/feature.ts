/** Monitors as a feature: the tools that watch a page on a schedule and report what changed. */
import type { Feature } from '../server/feature.js';
import { monitorTools } from './tools.js';

export const monitorFeature: Feature = {
  name: 'monitors',
  tools: [...monitorTools],
};
