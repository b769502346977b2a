/**
 * Excel workbooks read as a stream with exceljs's WorkbookReader: rows come one at a time, so a 200,000-row
 * sheet never sits in memory as a whole. Cells become text the way a person reads them (rich text joined, a
 * formula's result, a date as ISO, an error as shown).
 */
import { Readable } from 'node:stream';
import { createRequire } from 'node:module';
import { openCheckedZip } from './zip-guard.js';

// exceljs is CommonJS; its Node entry exposes the streaming reader under stream.xlsx.
const ExcelJS = createRequire(import.meta.url)('exceljs') as typeof import('exceljs');

type CellValue = unknown;

export function cellText(v: CellValue): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? '' : v.toISOString().replace(/T00:00:00\.000Z$/, '');
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (Array.isArray(o.richText)) return (o.richText as { text?: string }[]).map((r) => r.text ?? '').join('');
    if ('result' in o) return cellText(o.result);
    if ('formula' in o || 'sharedFormula' in o) return '';
    if (typeof o.text === 'string') return o.text;
    if (typeof o.error === 'string') return o.error;
  }
  return String(v);
}

export interface SheetStream {
  name: string;
  /** Rows one at a time. Read either this or `batches`, not both: they share one pass over the sheet. */
  rows: AsyncIterable<string[]>;
  /**
   * The same rows in the groups the XML parser hands out (one per chunk it reads, usually hundreds of rows).
   * A whole-sheet reader takes these: one await per group instead of two per row (exceljs's own per-row
   * iterator plus ours) is most of what our layer cost on a 200,000-row sheet (bench/docs.ts).
   */
  batches: AsyncIterable<string[][]>;
}

interface ParseEvent { eventType: string; value: unknown }
type StreamedSheet = { name?: string; id?: number; parse(): AsyncIterable<ParseEvent[]> };

/**
 * A row's cells as text. row.values is 1-based and sparse: an absent cell is '' like an empty one, and empty
 * cells at the end are dropped. The two readers differ there (the streaming one keeps a cell stored as an
 * empty string, the whole one drops it), and a person sees no difference either way.
 */
function rowCells(row: { values: CellValue[] }): string[] {
  const vals = Array.isArray(row.values) ? row.values : [];
  let end = vals.length;
  while (end > 1 && cellText(vals[end - 1]) === '') end--;
  const out: string[] = [];
  for (let i = 1; i < end; i++) out.push(i in vals ? cellText(vals[i]) : '');
  return out;
}

/**
 * Workbooks up to this size are read whole (exceljs's Workbook over JSZip) rather than streamed. The streaming
 * reader takes entries from unzipper in file order and, for a workbook written sheets-first (exceljs's own
 * writer, Excel often), parks each sheet in a temp file until xl/workbook.xml (the last entry) is read; under
 * load that pass has been seen to end without it ("reading 'sheets'" of an unset model). Small workbooks, most
 * of them, gain nothing from streaming and lose that race; only large ones still stream, for their memory: read
 * whole, exceljs keeps every cell as an object, and 256 KB zipped is at most some tens of thousands of cells.
 */
const READ_WHOLE_MAX_BYTES = 256 * 1024;

type WholeRow = { values: CellValue[] };
type WholeSheet = { name: string; id: number; eachRow(opts: { includeEmpty: boolean }, fn: (row: WholeRow) => void): void };

/** The same SheetStream from a workbook read whole: batches of up to 500 rows. */
function wholeSheet(ws: WholeSheet): SheetStream {
  const all: string[][] = [];
  ws.eachRow({ includeEmpty: false }, (row) => all.push(rowCells(row)));
  async function* batches() {
    for (let i = 0; i < all.length; i += 500) yield all.slice(i, i + 500);
  }
  async function* rows() {
    yield* all;
  }
  return { name: ws.name || `Sheet${ws.id}`, rows: rows(), batches: batches() };
}

/** Each sheet in file order, its rows as text cells (empty leading cells kept). */
export async function* xlsxSheets(bytes: Buffer, readWholeMax = READ_WHOLE_MAX_BYTES): AsyncGenerator<SheetStream> {
  await openCheckedZip(bytes, 'Excel workbook');
  if (bytes.length <= readWholeMax) {
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(bytes as unknown as ArrayBuffer);
    for (const ws of wb.worksheets as unknown as WholeSheet[]) yield wholeSheet(ws);
    return;
  }
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from([bytes]), {
    // styles: 'cache' is what tells a date from a number (the cell's number format); it costs little (bench/docs.ts).
    sharedStrings: 'cache', hyperlinks: 'ignore', styles: 'cache', worksheets: 'emit', entries: 'ignore',
  });
  for await (const ws of reader as unknown as AsyncIterable<StreamedSheet>) {
    // WorksheetReader.parse() (typed in exceljs's index.d.ts) is what its row iterator is built on; it yields
    // each parsed chunk's events together, rows among them.
    async function* batches() {
      for await (const events of ws.parse()) {
        const group: string[][] = [];
        for (const e of events) if (e.eventType === 'row') group.push(rowCells(e.value as { values: CellValue[] }));
        if (group.length) yield group;
      }
    }
    async function* rows() {
      for await (const group of batches()) yield* group;
    }
    yield { name: ws.name ?? `Sheet${ws.id ?? ''}`, rows: rows(), batches: batches() };
  }
}
