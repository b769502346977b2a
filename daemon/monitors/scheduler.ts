/**
 * When monitors run: one timer, armed for the earliest entry of a heap of next runs, and a bounded run queue.
 * A due monitor goes into the queue once (a monitor already waiting or running is not queued again, so the
 * queue never holds more than one entry per monitor however late the checks are) and at most `concurrency`
 * checks run at a time. The clock is injected: tests and the bench move time by hand.
 */
import type { Clock } from './clock.js';
import { RunHeap } from './heap.js';

export interface SchedulerOptions {
  clock: Clock;
  /** Checks running at once. */
  concurrency: number;
  /** The monitor's next run strictly after `after` (ms), or undefined when it has none. */
  nextAfter(key: string, after: number): number | undefined;
  /** Runs one due check; `scheduledAt` is the run it stands for. Errors are the runner's to record. */
  run(key: string, scheduledAt: number): Promise<void>;
}

export class MonitorScheduler {
  private heap = new RunHeap();
  private queue: { key: string; scheduledAt: number }[] = [];
  /** Keys waiting in the queue or running: each at most once. */
  private busy = new Set<string>();
  private running = new Set<Promise<void>>();
  private cancelTimer?: () => void;
  private armedFor?: number;
  private stopped = false;

  constructor(private opts: SchedulerOptions) {}

  /** Runs `key` at `at` (ms); replaces its earlier time. */
  schedule(key: string, at: number): void {
    if (this.stopped) return;
    this.heap.set(key, at);
    this.arm();
  }

  /** Forgets the monitor: no next run. A check already running finishes. */
  remove(key: string): void {
    this.heap.delete(key);
    this.queue = this.queue.filter((q) => q.key !== key);
    this.arm();
  }

  /** Puts the monitor in the run queue now (a run missed while the daemon was down), unless it is already there. */
  runSoon(key: string, scheduledAt: number): void {
    if (this.stopped || this.busy.has(key)) return;
    this.busy.add(key);
    this.queue.push({ key, scheduledAt });
    this.pump();
  }

  nextRunOf(key: string): number | undefined {
    return this.heap.timeOf(key);
  }

  get scheduled(): number {
    return this.heap.size;
  }

  get queued(): number {
    return this.queue.length;
  }

  /** No new check starts; resolves once the running ones have finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.queue = [];
    await Promise.allSettled([...this.running]);
  }

  /** (Re)arms the one timer for the heap's top, only when the top changed. */
  private arm() {
    const top = this.heap.peek();
    if (top?.at === this.armedFor && (top === undefined || this.cancelTimer)) return;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.armedFor = top?.at;
    if (!top || this.stopped) return;
    this.cancelTimer = this.opts.clock.setTimer(() => this.fire(), top.at - this.opts.clock.now());
  }

  private fire() {
    this.cancelTimer = undefined;
    this.armedFor = undefined;
    const now = this.opts.clock.now();
    for (let top = this.heap.peek(); top && top.at <= now; top = this.heap.peek()) {
      this.heap.pop();
      this.runSoon(top.key, top.at);
      // From now, not from the missed time: a process that slept through many runs runs once, then goes on.
      const next = this.opts.nextAfter(top.key, Math.max(top.at, now));
      if (next !== undefined) this.heap.set(top.key, next);
    }
    this.arm();
  }

  private pump() {
    while (!this.stopped && this.running.size < this.opts.concurrency && this.queue.length) {
      const { key, scheduledAt } = this.queue.shift()!;
      const p: Promise<void> = this.opts
        .run(key, scheduledAt)
        .catch(() => undefined)
        .finally(() => {
          this.running.delete(p);
          this.busy.delete(key);
          this.pump();
        });
      this.running.add(p);
    }
  }
}
