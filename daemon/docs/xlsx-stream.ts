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
  rows: AsyncIterable<string[]>;
}

/** Each sheet in file order, its rows as text cells (row.values is 1-based; empty leading cells kept). */
export async function* xlsxSheets(bytes: Buffer): AsyncGenerator<SheetStream> {
  await openCheckedZip(bytes, 'Excel workbook');
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from([bytes]), {
    sharedStrings: 'cache', hyperlinks: 'ignore', styles: 'cache', worksheets: 'emit', entries: 'ignore',
  });
  for await (const ws of reader as AsyncIterable<AsyncIterable<{ values: CellValue[] }> & { name?: string; id?: number }>) {
    async function* rows() {
      for await (const row of ws) {
        const vals = Array.isArray(row.values) ? row.values : [];
        yield vals.slice(1).map(cellText);
      }
    }
    yield { name: ws.name ?? `Sheet${ws.id ?? ''}`, rows: rows() };
  }
}
