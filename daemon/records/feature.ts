/** Recordings as a feature: the tools that record a tab's steps, replay them and write them out as a script. */
import type { Feature } from '../server/feature.js';
import { recordTools } from './tools.js';

export const recordFeature: Feature = {
  name: 'records',
  tools: [...recordTools],
};
