/**
 * Documents: the built-in converters against the bare libraries they are built on, side by side in one run.
 *  - PDF: pages per second of convertDocument (a converter thread: pdfjs-dist legacy, every page, lines
 *    rebuilt, one heading a page) on a 300-page text PDF, against a bare pdfjs-dist getDocument +
 *    getTextContent loop over every page on this process's main thread.
 *  - Excel: rows per second of convertDocument on a 200,000-row sheet, against a bare exceljs
 *    stream.xlsx.WorkbookReader loop reading every row's values (same reader options as ours); and ours
 *    against markitdown's reported ~3,500 rows/s on a 500k-row sheet (microsoft/markitdown#2105), for scale.
 *  - Memory: in a child process each (bench/docs-rss-child.ts), RSS at idle and at peak while converting a
 *    ~15 MB PDF and a ~15 MB workbook.
 * Runs alternate (ours, bare; then bare, ours) and medians are printed, by wall clock and by CPU time of this
 * process (process.cpuUsage, which includes the converter thread): on a shared machine the CPU time moves
 * less. Inputs are built once per run in a temp dir.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { convertDocument } from '../daemon/docs/index.js';
import { closeConverterThreads } from '../daemon/docs/pool.js';
import { DOC_MAX_BYTES } from '../daemon/docs/types.js';
import { writeLongXlsx, writeTextPdf, PDF_LINES_PER_PAGE, PDF_WORDS_PER_LINE } from './documents.js';
import { median, now, printTable } from './lib.js';

const ExcelJS = createRequire(import.meta.url)('exceljs') as typeof import('exceljs');

const PDF_PAGES = 300;
const XLSX_ROWS = 200_000;
/** Rows of the ~15 MB workbook for the memory table (about 40 bytes a row with these cells). */
const BIG_XLSX_ROWS = 360_000;
/** Text pages of the ~15 MB PDF; noise images make up the rest of the size. */
const BIG_PDF_PAGES = 1000;
/** Under the 15 MiB conversion cap (DOC_MAX_BYTES), with room for the estimate's error. */
const BIG_TARGET_BYTES = 14_500_000;
const RUNS = Number(process.env.BENCH_DOCS_RUNS ?? 4);
const MAX_CHARS = 200_000;
/** microsoft/markitdown#2105: ~3,500 rows/s converting a 500k-row sheet. */
const MARKITDOWN_ROWS_PER_S = 3500;
const CFG = { converterTimeoutMs: 600_000 };

const MB = (n: number) => (n / 1024 / 1024).toFixed(1);

interface Sample { seconds: number; cpu: number; units: number; chars: number }

async function measure(fn: () => Promise<{ units: number; chars: number }>): Promise<Sample> {
  const cpu0 = process.cpuUsage();
  const t0 = now();
  const r = await fn();
  const seconds = (now() - t0) / 1000;
  const c = process.cpuUsage(cpu0);
  return { seconds, cpu: (c.user + c.system) / 1e6, ...r };
}

// ------------------------------------------------------------------ the contestants

async function oursPdf(bytes: Buffer) {
  const c = await convertDocument(CFG, { bytes, name: 'bench.pdf' }, { maxChars: MAX_CHARS });
  // maxChars only cuts the answer: the PDF converter reads every page whatever the budget.
  if (c.parts !== PDF_PAGES) throw new Error(`convertDocument read ${c.parts} of ${PDF_PAGES} pages`);
  return { units: c.parts, chars: c.chars };
}

async function barePdf(bytes: Buffer) {
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await getDocument({ data: new Uint8Array(bytes), verbosity: 0 }).promise;
  let chars = 0;
  try {
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      for (const it of content.items) if ('str' in it) chars += it.str.length;
      page.cleanup();
    }
    return { units: doc.numPages, chars };
  } finally {
    await doc.destroy();
  }
}

async function oursXlsx(bytes: Buffer) {
  const c = await convertDocument(CFG, { bytes, name: 'bench.xlsx' }, { maxChars: MAX_CHARS });
  // Every row is turned into its table line and counted even past maxChars; each line here is > 30 chars.
  if (c.chars < XLSX_ROWS * 30) throw new Error(`convertDocument counted ${c.chars} chars: not every row was read`);
  return { units: XLSX_ROWS + 1, chars: c.chars };
}

async function bareXlsx(bytes: Buffer) {
  // The options daemon/docs/xlsx-stream.ts uses, so the difference is our layer (cells to text, table lines).
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from([bytes]), {
    sharedStrings: 'cache', hyperlinks: 'ignore', styles: 'cache', worksheets: 'emit', entries: 'ignore',
  });
  let rows = 0;
  let cells = 0;
  for await (const ws of reader as unknown as AsyncIterable<AsyncIterable<{ values: unknown[] }>>) {
    for await (const row of ws) {
      rows++;
      cells += row.values.length;
    }
  }
  if (rows !== XLSX_ROWS + 1) throw new Error(`the bare loop read ${rows} rows`);
  return { units: rows, chars: cells };
}

/** RUNS alternating pairs after one warm-up each (thread start, module loading, JIT). */
async function sideBySide(ours: () => Promise<{ units: number; chars: number }>, bare: () => Promise<{ units: number; chars: number }>) {
  await ours();
  await bare();
  const o: Sample[] = [];
  const b: Sample[] = [];
  for (let i = 0; i < RUNS; i++) {
    if (i % 2 === 0) { o.push(await measure(ours)); b.push(await measure(bare)); }
    else { b.push(await measure(bare)); o.push(await measure(ours)); }
  }
  return { o, b };
}

// ------------------------------------------------------------------ memory, in children

// Started through a plain-JS launcher, as the daemon is (see docs-rss-launch.js).
const LAUNCH = join(dirname(fileURLToPath(import.meta.url)), 'docs-rss-launch.js');
interface Mem { idle: number; peak: number; maxRss: number; maxRssAtIdle: number; seconds: number; parts?: number; chars: number; bytes: number }

async function memoryOf(file: string, name: string): Promise<Mem> {
  const { stdout } = await promisify(execFile)(process.execPath, [LAUNCH, file, name], { maxBuffer: 1 << 20, timeout: 300_000 });
  const line = stdout.trim().split('\n').pop() ?? '';
  return JSON.parse(line) as Mem;
}

// ------------------------------------------------------------------ the run

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'browserd-bench-docs-'));
  const load0 = loadavg()[0];
  try {
    const t0 = now();
    const pdfPath = join(dir, 'pages-300.pdf');
    const xlsxPath = join(dir, 'rows-200k.xlsx');
    const bigPdfPath = join(dir, 'big.pdf');
    const bigXlsxPath = join(dir, 'big.xlsx');
    const tinyXlsxPath = join(dir, 'tiny.xlsx');
    const tinyPdfPath = join(dir, 'tiny.pdf');
    const pdf = await writeTextPdf(pdfPath, PDF_PAGES);
    const xlsx = await writeLongXlsx(xlsxPath, XLSX_ROWS);
    const bigPdf = await writeTextPdf(bigPdfPath, BIG_PDF_PAGES, BIG_TARGET_BYTES);
    const bigXlsx = await writeLongXlsx(bigXlsxPath, BIG_XLSX_ROWS);
    await writeLongXlsx(tinyXlsxPath, 10);
    await writeTextPdf(tinyPdfPath, 10);
    for (const [what, n] of [['200k-row workbook', xlsx.bytes], ['big PDF', bigPdf.bytes], ['big workbook', bigXlsx.bytes]] as const) {
      if (n > DOC_MAX_BYTES) throw new Error(`the ${what} is ${n} bytes, over the ${DOC_MAX_BYTES}-byte conversion cap`);
    }
    const buildSeconds = (now() - t0) / 1000;

    // ---------------------------------------------------------------- PDF
    const pdfBytes = readFileSync(pdfPath);
    const p = await sideBySide(() => oursPdf(pdfBytes), () => barePdf(pdfBytes));
    // ---------------------------------------------------------------- Excel
    const xlsxBytes = readFileSync(xlsxPath);
    const x = await sideBySide(() => oursXlsx(xlsxBytes), () => bareXlsx(xlsxBytes));
    await closeConverterThreads();
    // ---------------------------------------------------------------- memory (one child each)
    const mem: [string, number, Mem][] = [];
    mem.push(['10-row workbook (thread start + exceljs)', 0, await memoryOf(tinyXlsxPath, 'tiny.xlsx')]);
    mem.push(['10-page PDF (thread start + pdfjs)', 0, await memoryOf(tinyPdfPath, 'tiny.pdf')]);
    mem.push([`PDF, ${BIG_PDF_PAGES} text pages + ${bigPdf.images} noise images`, bigPdf.bytes, await memoryOf(bigPdfPath, 'big.pdf')]);
    mem.push([`workbook, ${BIG_XLSX_ROWS.toLocaleString('en')} rows x 6 cells`, bigXlsx.bytes, await memoryOf(bigXlsxPath, 'big.xlsx')]);

    // ---------------------------------------------------------------- tables
    const rate = (s: Sample) => s.units / s.seconds;
    const row = (name: string, xs: Sample[], ref: Sample[]) => [
      name,
      median(xs.map(rate)).toFixed(0),
      median(xs.map((s) => s.seconds)).toFixed(2),
      median(xs.map((s) => s.cpu)).toFixed(2),
      (median(xs.map((s) => s.seconds)) / median(ref.map((s) => s.seconds))).toFixed(2) + 'x',
      (median(xs.map((s) => s.cpu)) / median(ref.map((s) => s.cpu))).toFixed(2) + 'x',
    ];
    const ratio = (a: Sample[], b: Sample[], k: 'seconds' | 'cpu') => median(a.map((s) => s[k])) / median(b.map((s) => s[k]));

    printTable(
      `PDF text: ${PDF_PAGES} pages, pages per second`,
      ['reader', 'pages/s (median)', 'wall s', 'CPU s', 'wall vs bare', 'CPU vs bare'],
      [row('browserd convertDocument (converter thread)', p.o, p.b), row('bare pdfjs-dist getTextContent loop (main thread)', p.b, p.b)],
      [
        `${PDF_PAGES} pages of ${PDF_LINES_PER_PAGE} lines x ${PDF_WORDS_PER_LINE} words (pdf-lib, Helvetica), ${MB(pdf.bytes)} MB; median of ${RUNS} alternating runs after a warm-up each.`,
        `overhead, ours / bare: ${ratio(p.o, p.b, 'seconds').toFixed(2)}x wall, ${ratio(p.o, p.b, 'cpu').toFixed(2)}x CPU (goal: at most 1.2x).`,
        `ours read all ${p.o[0]!.units} pages with maxChars ${MAX_CHARS} (${p.o[0]!.chars.toLocaleString('en')} chars of Markdown in all; the bare loop's text items: ${p.b[0]!.chars.toLocaleString('en')} chars).`,
      ],
    );

    const oursRowsPerS = median(x.o.map(rate));
    printTable(
      `Excel: ${XLSX_ROWS.toLocaleString('en')} rows, rows per second`,
      ['reader', 'rows/s (median)', 'wall s', 'CPU s', 'wall vs bare', 'CPU vs bare'],
      [row('browserd convertDocument (converter thread)', x.o, x.b), row('bare exceljs WorkbookReader loop (main thread)', x.b, x.b)],
      [
        `one sheet, a header and ${XLSX_ROWS.toLocaleString('en')} rows x 6 cells (ids, shared strings, integers, decimals), ${MB(xlsx.bytes)} MB (cap ${MB(DOC_MAX_BYTES)} MB); median of ${RUNS} alternating runs.`,
        `overhead, ours / bare: ${ratio(x.o, x.b, 'seconds').toFixed(2)}x wall, ${ratio(x.o, x.b, 'cpu').toFixed(2)}x CPU (goal: at most 1.2x).`,
        `ours builds every row's table line (${x.o[0]!.chars.toLocaleString('en')} chars counted; the first ${MAX_CHARS.toLocaleString('en')} answered).`,
        `for scale: markitdown's tracker reports ~${MARKITDOWN_ROWS_PER_S.toLocaleString('en')} rows/s on a 500k-row sheet (microsoft/markitdown#2105); ours ${oursRowsPerS.toFixed(0)} rows/s = ${(oursRowsPerS / MARKITDOWN_ROWS_PER_S).toFixed(1)}x (goal: at least 10x; not the same machine or sheet).`,
      ],
    );

    printTable(
      'Converter memory: one child process per document (RSS, MB)',
      ['document', 'file MB', 'idle', 'peak (20 ms samples)', 'maxRSS', 'peak - idle', 'conversion s'],
      mem.map(([name, bytes, m]) => [name, bytes ? MB(bytes) : MB(m.bytes), MB(m.idle), MB(m.peak), m.maxRss > m.maxRssAtIdle ? MB(m.maxRss) : `(${MB(m.maxRss)} at load)`, MB(Math.max(m.peak, m.maxRss > m.maxRssAtIdle ? m.maxRss : 0) - m.idle), m.seconds.toFixed(1)]),
      [
        'idle: the child after loading the converter module, before reading the file; peak - idle uses the larger of the sampled peak and maxRSS',
        '  (maxRSS only when it grew after idle: loading modules through tsx passes a transient high-water mark first).',
        'Each conversion starts its converter thread (piscina, 384 MB heap cap), as the first one after the daemon\'s 30 s idle timeout does; the first two rows are that cost with each library.',
        'The child starts as the daemon does (tsx registered in-process, no --import flag for threads to inherit). Each converter thread',
        '  imports pdfjs-dist (3.4 MB of JS) before it registers tsx: through tsx\'s loader the same import cost about 300 MB more.',
        `goal: peak - idle within 256 MB for a ~15 MB PDF or workbook. Big workbook: ${(BIG_XLSX_ROWS / mem[3]![2].seconds).toFixed(0)} rows/s including the thread start.`,
      ],
    );
    console.log(`  inputs built in ${buildSeconds.toFixed(1)} s; load average ${load0.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end (${process.env.BENCH_DOCS_RUNS ? 'BENCH_DOCS_RUNS' : 'default'} ${RUNS} runs).`);
  } finally {
    await closeConverterThreads();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
