/**
 * What the HTTP side is handed by main.ts: the platform, the call pipeline's entry (every REST tool route and
 * the MCP endpoint run tools through it), and the two features with REST routes of their own that are not tool
 * calls (crawl runs' listings and streams; stopping a disabled account). Only server/ and main.ts import it;
 * features never see it.
 */
import type { Platform } from '../platform.js';
import type { CallTool } from '../call/call.js';
import type { CrawlService } from '../crawl/service.js';

export interface ServerDeps {
  env: Platform;
  callTool: CallTool;
  crawls: CrawlService;
  /** Ends what a just-disabled account still runs (accounts/disabled.ts), for the admin console. */
  stopAccount(user: string): Promise<void>;
}
