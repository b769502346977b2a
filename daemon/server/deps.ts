/**
 * What the HTTP side is handed by main.ts: the platform, the call pipeline's entry (every REST tool route and
 * the MCP endpoint run tools through it), the registry it lists tools from, the feature services a route
 * handler reaches by key (as a tool does), and how the admin console stops a just-disabled account. Only
 * server/, feature route handlers and main.ts see it.
 */
import type { Platform } from '../platform.js';
import type { CallTool } from '../call/call.js';
import type { ToolRegistry } from '../call/registry.js';
import type { Services } from '../call/services.js';

export interface ServerDeps {
  env: Platform;
  callTool: CallTool;
  tools: ToolRegistry;
  services: Services;
  /** Ends what a just-disabled account still runs (accounts/disabled.ts), for the admin console. */
  stopAccount(user: string): Promise<void>;
  /**
   * A user moved between hosts of a fleet (fleet/host-routes.ts): what runs on its own schedule picks their
   * stored work up here once they arrived (crawls, tasks, monitors, webhook deliveries), and lets go of it before
   * they leave.
   */
  userMoved: { arrived(user: string): void; leaving(user: string): Promise<void> };
}
