/** Every tool, gathered from the group files. A new tool goes in its group's file and is listed here once. */
import type { ToolDef } from '../call/define.js';
import { tabTools } from './tabs.js';
import { navigationTools } from './navigate.js';
import { snapshotTools } from './snapshot.js';
import { inputTools } from './input.js';
import { readTools } from './read-text.js';
import { statusTools } from './status.js';
import { pageTools } from './page.js';
import { diagnosticsTools } from './diagnostics.js';
import { spacesTools } from './spaces.js';
import { searchTools } from './search.js';
import { pointerTools } from './pointer.js';
import { formTools } from './forms.js';
import { queryTools } from './query.js';
import { extractTools } from './extract.js';
import { readPageTools } from './read.js';
import { savedSessionTools } from './saved-sessions.js';
import { handoffTools } from './handoffs.js';
import { viewerTools } from './viewer.js';
import { vaultTools } from './vault.js';
import { cdpSessionTools } from './cdp-sessions.js';
import { crawlTools } from './crawl.js';
import { siteTools } from './site.js';
import { downloadTools } from './downloads.js';
import { convertTools } from './convert.js';
import { routeTools } from './route.js';
import { captureTools } from './capture.js';
import { harTools } from './har.js';
import { apiCallTools } from './api-call.js';
import { apiMapTools } from './api-map.js';
import { taskTools } from './tasks.js';
import { extractorTools } from './extractors.js';
import { askOperations, extractAiTools } from './extract-ai.js';
import { actTools } from './act.js';
import { recordTools } from './record.js';
import { monitorTools } from './monitor.js';
import { captchaTools } from './captcha.js';

const ALL: ToolDef<any>[] = [
  ...tabTools,
  ...navigationTools,
  ...snapshotTools,
  ...inputTools,
  ...readTools,
  ...statusTools,
  ...pageTools,
  ...diagnosticsTools,
  ...spacesTools,
  ...searchTools,
  ...pointerTools,
  ...formTools,
  ...queryTools,
  ...extractTools,
  ...readPageTools,
  ...savedSessionTools,
  ...handoffTools,
  ...viewerTools,
  ...vaultTools,
  ...cdpSessionTools,
  ...crawlTools,
  ...siteTools,
  ...downloadTools,
  ...convertTools,
  ...routeTools,
  ...captureTools,
  ...harTools,
  ...apiCallTools,
  ...apiMapTools,
  ...recordTools,
  ...monitorTools,
  ...captchaTools,
  ...extractAiTools,
];

/**
 * Operations: REST routes that run through the same dispatch as tools (validation, audit, scrubbing, errors)
 * but are not MCP tools (ask, extractors, observe/act/validate, research, tasks). Each route names its
 * operation; neither tools/list nor POST /v1/tools/{name} offers them.
 */
const OPERATIONS: ToolDef<any>[] = [
  ...taskTools,
  ...extractorTools,
  ...askOperations,
  ...actTools,
];

const byName = new Map([...ALL, ...OPERATIONS].map((t) => [t.name, t]));
if (byName.size !== ALL.length + OPERATIONS.length) throw new Error('two tools share a name');
const operationNames = new Set(OPERATIONS.map((t) => t.name));

/** A tool, or (with `operations`) a REST-only operation, by name. */
export function getTool(name: string, opts: { operations?: boolean } = {}): ToolDef<any> | undefined {
  if (operationNames.has(name) && !opts.operations) return undefined;
  return byName.get(name);
}

export function allOperations(): ToolDef<any>[] {
  return OPERATIONS;
}

export function allTools(): ToolDef<any>[] {
  return ALL;
}

export function toolNames(): string[] {
  return ALL.map((t) => t.name);
}

/** MCP annotations from the effect class. */
export function annotationsFor(t: ToolDef<any>) {
  const readOnly = t.hints?.readOnly ?? t.effect === 'read';
  return {
    title: t.title,
    readOnlyHint: readOnly,
    // MCP reads destructiveHint only when readOnlyHint is false; a read-only tool says false, not a guess.
    destructiveHint: !readOnly && (t.hints?.destructive ?? t.effect === 'sensitive'),
    idempotentHint: t.hints?.idempotent ?? readOnly,
    openWorldHint: t.openWorld !== false,
  };
}

// The server reaches tools through dispatch, this registry and the response builder only; what else it
// needs from the tool layer (schemas for tools/list, the profile listing REST serves) is passed on here.
export { toJsonSchema } from '../call/schema.js';
export { outputJsonSchema } from '../call/output.js';
export { listProfiles } from './spaces.js';
