// Entry of a converter thread (piscina). Plain JavaScript so it loads without a TypeScript loader.
//
// pdfjs-dist (several MB of JavaScript, and its worker half) is imported BEFORE tsx is registered: through
// tsx's loader the same modules cost the thread about 300 MB more memory, measured by bench/docs.ts. The
// worker half is handed to pdfjs as its in-thread worker (globalThis.pdfjsWorker), so pdfjs never imports it
// again through the loader. Then tsx is registered and the typed worker body is loaded.
import * as pdfjsWorker from 'pdfjs-dist/legacy/build/pdf.worker.mjs';
import 'pdfjs-dist/legacy/build/pdf.mjs';
import { register } from 'tsx/esm/api';

globalThis.pdfjsWorker = pdfjsWorker;
register();
const body = await import('./worker-body.ts');
export default body.default;
