/**
 * What a converter thread runs: one task (convert a document, or read a sheet's rows) and one answer, either
 * `{ok: true, ...}` or `{ok: false, code, message, next}` with a code from the error table, because an Error
 * thrown across threads arrives without its class or code.
 */
import { BrowserdError } from '../../protocol/errors.js';
import type { DocKind, SheetRows } from './types.js';
import { pdfToMarkdown } from './pdf.js';
import { docxToMarkdown } from './docx.js';
import { xlsxToMarkdown } from './xlsx.js';
import { pptxToMarkdown } from './pptx.js';
import { feedToMarkdown, type FeedEntry } from './feed.js';
import { delimitedRows } from './delimited.js';
import { tableHead, tableRow } from './table.js';
import { xlsxSheets } from './xlsx-stream.js';
import { htmlToMarkdown } from '../read/markdown.js';

export type WorkerTask =
  | { op: 'convert'; kind: DocKind; bytes: Uint8Array; budget: number; url?: string }
  | { op: 'rows'; kind: 'csv' | 'tsv' | 'xlsx'; bytes: Uint8Array; sheet?: string; limit: number; fileName: string };

/** `pageText`: the document's own words the failure quotes (a sheet name, a parser's message), kept out of the message. */
export type WorkerFailure = { ok: false; code: string; message: string; next?: string; pageText?: string };
/** `entries`: a feed's entries as well as its Markdown (browser_read answers them). */
export type ConvertAnswer = { ok: true; markdown: string; title?: string; parts?: number; chars: number; entries?: FeedEntry[] } | WorkerFailure;
export type RowsAnswer = ({ ok: true } & SheetRows) | WorkerFailure;

function text(bytes: Buffer): string {
  return bytes.toString('utf8').replace(/^\uFEFF/, '');
}

async function delimitedToMarkdown(bytes: Buffer, kind: 'csv' | 'tsv', budget: number) {
  const out: string[] = [];
  let kept = 0;
  let chars = 0;
  let width = 0;
  for await (const cells of delimitedRows(bytes, kind)) {
    const line = `${width ? tableRow(cells, width) : tableHead(cells)}\n`;
    width ||= Math.max(cells.length, 1);
    chars += line.length;
    if (kept < budget) { out.push(line); kept += line.length; }
  }
  return { markdown: out.join('').trimEnd(), chars };
}

async function convert(kind: DocKind, bytes: Buffer, budget: number, url = 'about:blank'): Promise<ConvertAnswer> {
  switch (kind) {
    case 'pdf': { const r = await pdfToMarkdown(bytes); return { ok: true, ...r, chars: r.markdown.length }; }
    case 'docx': { const r = await docxToMarkdown(bytes); return { ok: true, ...r, chars: r.markdown.length }; }
    case 'pptx': { const r = await pptxToMarkdown(bytes); return { ok: true, ...r, chars: r.markdown.length }; }
    case 'xlsx': { const r = await xlsxToMarkdown(bytes, budget); return { ok: true, ...r }; }
    case 'csv':
    case 'tsv': { const r = await delimitedToMarkdown(bytes, kind, budget); return { ok: true, ...r, parts: 1 }; }
    case 'feed': { const r = feedToMarkdown(text(bytes)); return { ok: true, ...r, chars: r.markdown.length }; }
    case 'html': {
      const r = htmlToMarkdown(text(bytes), url, {});
      return { ok: true, markdown: r.markdown, title: r.title || undefined, chars: r.markdown.length };
    }
    case 'text': { const t = text(bytes); return { ok: true, markdown: t, chars: t.length }; }
  }
}

async function rows(task: Extract<WorkerTask, { op: 'rows' }>, bytes: Buffer): Promise<RowsAnswer> {
  if (task.kind !== 'xlsx') {
    const sheet = task.fileName;
    if (task.sheet !== undefined && task.sheet !== sheet) return notFoundSheet(task.sheet, [sheet]);
    const kept: string[][] = [];
    let total = 0;
    for await (const cells of delimitedRows(bytes, task.kind)) {
      total++;
      if (kept.length < task.limit) kept.push(cells);
    }
    return { ok: true, sheets: [sheet], sheet, rows: kept, total, truncated: total > kept.length };
  }
  const sheets: string[] = [];
  let found: SheetRows | undefined;
  for await (const s of xlsxSheets(bytes)) {
    sheets.push(s.name);
    const wanted = found === undefined && (task.sheet === undefined || task.sheet === s.name);
    const kept: string[][] = [];
    let total = 0;
    // Every sheet's rows are drained (the stream reads them in file order), but only the wanted one's are kept.
    for await (const cells of s.rows) {
      if (!wanted) continue;
      total++;
      if (kept.length < task.limit) kept.push(cells);
    }
    if (wanted) found = { sheets, sheet: s.name, rows: kept, total, truncated: total > kept.length };
  }
  if (!found) return notFoundSheet(task.sheet ?? '', sheets);
  return { ok: true, ...found, sheets };
}

function notFoundSheet(asked: string, sheets: string[]): WorkerFailure {
  // Sheet names are the document's words: the error's page text, not its message.
  return {
    ok: false,
    code: 'not_found',
    message: `no sheet of that name; the workbook has ${sheets.length} (their names are the page text of this error)`,
    next: 'Pass one of those names as sheet, or leave sheet out for the first.',
    pageText: `asked: ${JSON.stringify(asked)}\nsheets: ${sheets.map((s) => JSON.stringify(s)).join(', ') || 'none'}`,
  };
}

export default async function run(task: WorkerTask): Promise<ConvertAnswer | RowsAnswer> {
  const bytes = Buffer.from(task.bytes.buffer, task.bytes.byteOffset, task.bytes.byteLength);
  try {
    return task.op === 'convert' ? await convert(task.kind, bytes, task.budget, task.url) : await rows(task, bytes);
  } catch (e) {
    if (e instanceof BrowserdError) return { ok: false, code: e.code, message: e.message, next: e.next, pageText: e.pageText };
    const what = task.op === 'convert' ? `the ${task.kind} file` : `the ${task.kind} file's rows`;
    // A parser's message can quote the document: it is the error's page text.
    return { ok: false, code: 'validation_error', message: `${what} could not be read (the parser's words are the page text of this error)`, next: 'Check that the file is whole and of the type its name says.', pageText: (e as Error)?.message?.slice(0, 200) ?? String(e) };
  }
}
