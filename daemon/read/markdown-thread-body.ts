/**
 * The body of a Markdown worker thread: answers { id, html, url, opts } with { id, result } or { id, error }.
 * Runs htmlToMarkdown exactly as the main thread would; only the thread differs.
 */
import { parentPort } from 'node:worker_threads';
import { htmlToMarkdown, type HtmlToMarkdownOptions } from './markdown.js';

export interface MarkdownJob { id: number; html: string; url: string; opts: HtmlToMarkdownOptions }

parentPort!.on('message', (job: MarkdownJob) => {
  try {
    parentPort!.postMessage({ id: job.id, result: htmlToMarkdown(job.html, job.url, job.opts) });
  } catch (e) {
    parentPort!.postMessage({ id: job.id, error: e instanceof Error ? e.message : String(e) });
  }
});
