/** CSV and TSV: csv-parse reads quoting the RFC 4180 way (a quoted comma stays in its cell); the first row heads the table. */
import { parse } from 'csv-parse';
import { Readable } from 'node:stream';
import { BrowserdError } from '../../protocol/errors.js';

/** Comma for CSV unless the first line clearly uses semicolons (as spreadsheets in many locales write). */
export function delimiterFor(kind: 'csv' | 'tsv', bytes: Buffer): string {
  if (kind === 'tsv') return '\t';
  const first = bytes.subarray(0, 4096).toString('utf8').split(/\r?\n/, 1)[0] ?? '';
  const count = (c: string) => first.split(c).length - 1;
  return count(';') > count(',') ? ';' : ',';
}

/** The rows one at a time, so a large file is never held parsed as a whole. */
export async function* delimitedRows(bytes: Buffer, kind: 'csv' | 'tsv'): AsyncGenerator<string[]> {
  const parser = Readable.from([bytes]).pipe(
    parse({ delimiter: delimiterFor(kind, bytes), bom: true, relax_column_count: true, relax_quotes: true, skip_empty_lines: true, max_record_size: 1024 * 1024 }),
  );
  try {
    for await (const rec of parser) yield rec as string[];
  } catch (e) {
    throw new BrowserdError('validation_error', `the file is not readable as ${kind.toUpperCase()} (the parser's words are the page text of this error)`, { next: 'Check the quoting of the file.', pageText: (e as Error).message.slice(0, 120) });
  }
}
