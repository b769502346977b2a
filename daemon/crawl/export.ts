/**
 * A crawl's items as a file: JSON Lines, one JSON array, or CSV (RFC 4180). Each encoder is a generator that
 * takes items one at a time and yields text as it goes, so an export of thousands of pages is never held whole:
 * the REST route feeds it straight from the store to the socket.
 */
import { scrubDeep } from '../call/redact.js';
import type { CrawlItem } from './types.js';

export const EXPORT_FORMATS = ['jsonl', 'csv', 'json'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  jsonl: 'application/x-ndjson',
  csv: 'text/csv; charset=utf-8',
  json: 'application/json',
};

/** The fixed CSV columns, then one per field name of the crawl. */
export const CSV_BASE_COLUMNS = ['seq', 'url', 'final_url', 'status', 'http_status', 'depth', 'title', 'content', 'error', 'at'] as const;

const BASE_VALUE: Record<(typeof CSV_BASE_COLUMNS)[number], (item: CrawlItem) => unknown> = {
  seq: (i) => i.seq,
  url: (i) => i.url,
  final_url: (i) => i.finalUrl,
  status: (i) => i.status,
  http_status: (i) => i.httpStatus,
  depth: (i) => i.depth,
  title: (i) => i.title,
  content: (i) => i.content,
  error: (i) => i.error,
  at: (i) => i.at,
};


/** One item per line; JSON.stringify escapes line breaks inside strings, so a line is always a whole item. */
export function* encodeJsonl(items: Iterable<CrawlItem>): Generator<string> {
  for (const item of items) yield `${JSON.stringify(item)}\n`;
}

/** A single JSON array, written an item at a time. */
export function* encodeJson(items: Iterable<CrawlItem>): Generator<string> {
  yield '[';
  let first = true;
  for (const item of items) {
    yield `${first ? '' : ',\n'}${JSON.stringify(item)}`;
    first = false;
  }
  yield ']\n';
}

/**
 * A spreadsheet runs a cell that starts with = + - @ (or a tab or CR, which some strip before looking) as a
 * formula, so a page title like `=HYPERLINK(...)` could act when the export is opened. Such a cell gets a
 * leading apostrophe, which spreadsheets read as "this is text" and do not show.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/** One CSV cell: absent is empty, arrays and objects are their JSON text, quoted when it holds , " CR or LF. */
export function csvCell(value: unknown): string {
  if (value === undefined || value === null) return '';
  let text = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof value === 'string' && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Column names: the fixed ones, then the crawl's field names (a field named like a fixed column gets `field.`). */
export function csvColumns(fieldNames: readonly string[]): { header: string[]; fields: string[] } {
  const taken = new Set<string>(CSV_BASE_COLUMNS);
  const header: string[] = [...CSV_BASE_COLUMNS];
  for (const name of fieldNames) header.push(taken.has(name) ? `field.${name}` : name);
  return { header, fields: [...fieldNames] };
}

const csvRow = (cells: unknown[]) => `${cells.map(csvCell).join(',')}\r\n`;

/** RFC 4180: a header row, CRLF line ends, every field of the crawl as a column. */
export function* encodeCsv(items: Iterable<CrawlItem>, fieldNames: readonly string[] = []): Generator<string> {
  const { header, fields } = csvColumns(fieldNames);
  // Header names are ours or the caller's own field names, but they pass the same quoting as any cell.
  yield csvRow(header);
  for (const item of items) {
    yield csvRow([...CSV_BASE_COLUMNS.map((c) => BASE_VALUE[c](item)), ...fields.map((f) => item.fields?.[f])]);
  }
}

/** The items as `format`, each with the caller's secrets hidden before it is encoded. */
export function* encodeExport(format: ExportFormat, items: Iterable<CrawlItem>, opts: { fieldNames?: readonly string[]; secretForms?: readonly string[] } = {}): Generator<string> {
  const forms = opts.secretForms ?? [];
  const scrubbed = (function* () {
    for (const item of items) yield scrubDeep(item, forms);
  })();
  if (format === 'jsonl') yield* encodeJsonl(scrubbed);
  else if (format === 'json') yield* encodeJson(scrubbed);
  else yield* encodeCsv(scrubbed, opts.fieldNames ?? []);
}
