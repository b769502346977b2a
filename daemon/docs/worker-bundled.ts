/**
 * The converter thread's entry in the bundle (bin/docs-worker.bundle.mjs, scripts/build-daemon.ts); worker.js is
 * the entry when run from source. As there, pdfjs's worker half is handed to pdfjs as its in-thread worker
 * (globalThis.pdfjsWorker) before the body loads, so pdfjs never loads it a second time.
 */
// @ts-expect-error pdfjs ships no types for its worker half; it is only handed on, never called here.
import * as pdfjsWorker from 'pdfjs-dist/legacy/build/pdf.worker.mjs';
import 'pdfjs-dist/legacy/build/pdf.mjs';

(globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = pdfjsWorker;
const body = await import('./worker-body.js');
export default body.default;
