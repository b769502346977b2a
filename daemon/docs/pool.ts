/**
 * Converter threads: a piscina pool, started on first use. Each thread has a heap cap, so a document that
 * needs more memory (a zip that lied about its size, a pathological PDF) kills only its thread and fails its
 * own conversion; each task has a time bound, after which piscina ends the thread running it.
 */
import { Piscina } from 'piscina';
import { availableParallelism } from 'node:os';
import { BrowserdError } from '../../protocol/errors.js';
import type { WorkerTask, ConvertAnswer, RowsAnswer } from './worker-body.js';
import { threadEntry } from '../threads.js';

/** Old-generation heap of one converter thread. A 15 MB PDF or workbook converts well inside it. */
export const CONVERTER_HEAP_MB = 384;
export const CONVERT_TIMEOUT_MS = 120_000;

let pool: Piscina | undefined;

function threads(): number {
  const asked = Number(process.env.BROWSERD_CONVERTER_THREADS);
  if (Number.isInteger(asked) && asked >= 1 && asked <= 16) return asked;
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}

function getPool(): Piscina {
  pool ??= new Piscina({
    filename: threadEntry('docs').href,
    minThreads: 0,
    maxThreads: threads(),
    idleTimeout: 30_000,
    resourceLimits: { maxOldGenerationSizeMb: CONVERTER_HEAP_MB, maxYoungGenerationSizeMb: 64 },
  });
  return pool;
}

/** Runs one task on a converter thread; the caller's signal and the time bound both end it. */
export async function runOnConverterThread(task: WorkerTask & { op: 'convert' }, signal?: AbortSignal, timeoutMs?: number): Promise<ConvertAnswer>;
export async function runOnConverterThread(task: WorkerTask & { op: 'rows' }, signal?: AbortSignal, timeoutMs?: number): Promise<RowsAnswer>;
export async function runOnConverterThread(task: WorkerTask, signal?: AbortSignal, timeoutMs = CONVERT_TIMEOUT_MS): Promise<ConvertAnswer | RowsAnswer> {
  const stop = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => { timedOut = true; stop.abort(); }, timeoutMs);
  const onAbort = () => stop.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    // The bytes are copied to the thread (not transferred): callers keep their buffer for storing it after.
    return await getPool().run(task, { signal: stop.signal });
  } catch (e) {
    if (timedOut) throw new BrowserdError('timeout', `the conversion did not finish in ${Math.round(timeoutMs / 1000)} s`, { next: 'Convert a smaller document, or ask for fewer characters.' });
    if (signal?.aborted) throw new BrowserdError('timeout', 'the conversion was stopped: the call was cancelled', { next: 'Call again if you still need it.' });
    const msg = (e as Error)?.message ?? String(e);
    if (/ERR_WORKER_OUT_OF_MEMORY|out of memory|heap/i.test(msg) || (e as { code?: string })?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
      throw new BrowserdError('validation_error', `the document needs more memory than a conversion may use (${CONVERTER_HEAP_MB} MB)`, { next: 'Convert a smaller document, or split it.' });
    }
    throw new BrowserdError('validation_error', "the document could not be converted (the converter's words are the page text of this error)", { next: 'Check that the file is whole and of the type its name says.', pageText: msg.slice(0, 200) });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

/** Ends the converter threads (daemon shutdown, tests). Later tasks start new ones. */
export async function closeConverterThreads(): Promise<void> {
  const p = pool;
  pool = undefined;
  await p?.destroy();
}
