/** What a model does on pages as a feature: extraction, questions, learned extractors, observe/act/validate on a tab, and the model list and usage routes. */
import type { Feature } from '../server/feature.js';
import { extractAiTools, askOperations } from './extract-ai-tools.js';
import { extractorTools } from './extractor-tools.js';
import { actOperations } from './act-operations.js';
import type { ToolLookup } from '../call/define.js';
import { modelHandlers, MODEL_ROUTES } from './routes.js';
import { actHandlers, ACT_ROUTES } from './act-routes.js';
import { extractorHandlers, EXTRACTOR_ROUTES } from './extractor-routes.js';
import { usageHandlers, USAGE_ROUTES } from './usage-routes.js';

/** `tool` finds the tools act may run (other features'), once main.ts has filled the registry. */
export const modelFeature = (tool: ToolLookup): Feature => ({
  name: 'models',
  tools: [...extractAiTools],
  operations: [...askOperations, ...extractorTools, ...actOperations(tool)],
  routes: [...MODEL_ROUTES, ...ACT_ROUTES, ...EXTRACTOR_ROUTES, ...USAGE_ROUTES],
  handlers: (server) => ({ ...modelHandlers(server), ...actHandlers(server), ...extractorHandlers(server), ...usageHandlers(server.env) }),
});
