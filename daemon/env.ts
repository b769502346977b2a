/**
 * Everything a running daemon holds, passed explicitly (no globals) so tests can run several daemons: the
 * platform (platform.ts) and the features built on it. Code that needs only the platform imports Platform.
 */
import type { Platform } from './platform.js';
import type { CrawlService } from './crawl/service.js';
import type { TaskService } from './tasks/service.js';
import type { Records } from './records/index.js';
import type { MonitorService } from './monitors/service.js';
import type { CallTool, DispatchHooks } from './tools/call.js';

export type { Platform };

export interface DaemonEnv extends Platform {
  /** Crawl runs: durable queues and items, the engine that reads them. */
  crawls: CrawlService;
  /** Server-run tasks: durable states and conversations, the loops that run them. */
  tasks: TaskService;
  /** Recordings of tool calls on a tab and their background replays. */
  records: Records;
  /** Page monitors: stored in LMDB, run on their cron schedules by one timer (browser_monitor). */
  monitors: MonitorService;
  /** One tool call through the whole pipeline (tools/dispatch.ts), for features that run tools (act, replay, tasks, live view). */
  callTool: CallTool;
  /** What recording and the vault add to every call, at fixed points of the pipeline (tools/call.ts). */
  callHooks: DispatchHooks;
}
