/**
 * Progress of a long call, for a client that asked for it (MCP `_meta.progressToken`): a read of many
 * addresses counts pages, a wait counts seconds. What reaches the client is MCP's notifications/progress, and
 * MCP asks that progress only ever grow, so a report that would not is dropped; reports come at most a few a
 * second. Nothing here is page text: messages are our own words and numbers.
 */

export interface ProgressReport {
  progress: number;
  total?: number;
  message?: string;
}

export type ProgressSink = (p: ProgressReport) => void;

/** Reports closer together than this are dropped, except the last one (progress reaching total). */
const MIN_GAP_MS = 200;
/** How often a wait reports the time it has waited. */
const WAIT_TICK_MS = 1000;

export class Progress {
  private last = -Infinity;
  private lastAt = 0;

  constructor(private sink?: ProgressSink) {}

  /** Whether anyone listens: work done only to describe progress can be skipped when not. */
  get wanted(): boolean {
    return this.sink !== undefined;
  }

  report(progress: number, total?: number, message?: string) {
    if (!this.sink || !(progress > this.last)) return;
    const now = Date.now();
    const final = total !== undefined && progress >= total;
    if (!final && now - this.lastAt < MIN_GAP_MS) return;
    this.last = progress;
    this.lastAt = now;
    try {
      this.sink({ progress, ...(total !== undefined ? { total } : {}), ...(message ? { message } : {}) });
    } catch {
      // A client gone away cannot be told: the call itself goes on and answers (or not) as usual.
    }
  }

  /**
   * Runs a wait, reporting each second how long it has waited out of `totalMs` (in seconds), with a message
   * read at each tick (a crawl's counters, say). Without a listener it is just the wait.
   */
  async during<T>(wait: Promise<T>, totalMs: number, describe?: () => string | undefined): Promise<T> {
    if (!this.sink || totalMs <= 0) return wait;
    const started = Date.now();
    const totalS = Math.ceil(totalMs / 1000);
    const tick = setInterval(() => this.report(Math.min(totalS, Math.round((Date.now() - started) / 1000)), totalS, describe?.()), WAIT_TICK_MS);
    try {
      return await wait;
    } finally {
      clearInterval(tick);
    }
  }
}
