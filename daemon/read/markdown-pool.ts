/**
 * HTML -> Markdown off the daemon's main thread. That thread also serves CDP, MCP, REST and the egress proxy,
 * so a 30 ms conversion there stalls every other tab's traffic while browser_read converts 50 pages. A few
 * worker threads (started on first use, unref'd so they never hold the process open) take the jobs in turn.
 */
import { Worker } from 'node:worker_threads';
import { threadEntry } from '../threads.js';
import { availableParallelism } from 'node:os';
import type { HtmlToMarkdownOptions, MarkdownResult } from './markdown.js';

/** One thread per spare core, at least one and at most four; BROWSERD_MARKDOWN_THREADS overrides. */
function threadCount(): number {
  const asked = Number(process.env.BROWSERD_MARKDOWN_THREADS);
  if (Number.isInteger(asked) && asked >= 1 && asked <= 16) return asked;
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}

interface Pending { resolve(r: MarkdownResult): void; reject(e: Error): void }

class MarkdownThread {
  private worker: Worker;
  readonly pending = new Map<number, Pending>();

  constructor(onGone: (t: MarkdownThread) => void) {
    this.worker = new Worker(threadEntry('markdown'));
    this.worker.unref();
    this.worker.on('message', (m: { id: number; result?: MarkdownResult; error?: string }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.error !== undefined) p.reject(new Error(`Markdown conversion failed: ${m.error}`));
      else p.resolve(m.result!);
    });
    // A thread that dies takes only its own jobs with it; the pool starts a new one for later jobs.
    const gone = (why: string) => {
      for (const p of this.pending.values()) p.reject(new Error(`the Markdown thread stopped (${why})`));
      this.pending.clear();
      onGone(this);
    };
    this.worker.on('error', (e) => gone(e.message));
    this.worker.on('exit', (code) => gone(`exit ${code}`));
  }

  run(id: number, html: string, url: string, opts: HtmlToMarkdownOptions): Promise<MarkdownResult> {
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, html, url, opts });
    });
  }

  terminate() {
    return this.worker.terminate();
  }
}

class MarkdownPool {
  private threads: MarkdownThread[] = [];
  private seq = 0;
  private readonly size = threadCount();

  /** Converts on the least busy thread. */
  convert(html: string, url: string, opts: HtmlToMarkdownOptions = {}): Promise<MarkdownResult> {
    while (this.threads.length < this.size) this.threads.push(new MarkdownThread((t) => (this.threads = this.threads.filter((x) => x !== t))));
    const thread = this.threads.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
    return thread.run(++this.seq, html, url, opts);
  }

  async close() {
    const all = this.threads.splice(0);
    await Promise.all(all.map((t) => t.terminate()));
  }
}

const pool = new MarkdownPool();

/** htmlToMarkdown on a worker thread: the same result, without blocking the daemon's event loop. */
export function htmlToMarkdownOffThread(html: string, url: string, opts: HtmlToMarkdownOptions = {}): Promise<MarkdownResult> {
  return pool.convert(html, url, opts);
}

/** Stops the threads (daemon shutdown). Later calls start new ones. */
export function closeMarkdownThreads(): Promise<void> {
  return pool.close();
}
