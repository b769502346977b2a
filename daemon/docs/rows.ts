/** Rows of a CSV, TSV or Excel sheet (browser_download_get{as: rows}), read on a converter thread. */
import { BrowserdError } from '../../protocol/errors.js';
import { detectKind } from './detect.js';
import { runOnConverterThread } from './pool.js';
import type { DocSource, SheetRows } from './types.js';

export const ROWS_DEFAULT_LIMIT = 2000;
export const ROWS_MAX_LIMIT = 20000;

export async function readSheetRows(src: DocSource, opts: { sheet?: string; limit?: number; signal?: AbortSignal; timeoutMs?: number } = {}): Promise<SheetRows> {
  const { kind } = await detectKind(src.bytes, src.name, src.contentType);
  if (kind !== 'csv' && kind !== 'tsv' && kind !== 'xlsx') {
    throw new BrowserdError('validation_error', `rows come only from CSV, TSV and Excel (.xlsx) files; this one reads as ${kind ?? 'an unknown type'}`, { next: 'Use as "text" for other files.' });
  }
  const fileName = src.name ?? `data.${kind}`;
  const answer = await runOnConverterThread({ op: 'rows', kind, bytes: src.bytes, sheet: opts.sheet, limit: opts.limit ?? ROWS_DEFAULT_LIMIT, fileName }, opts.signal, opts.timeoutMs);
  if (!answer.ok) throw new BrowserdError(answer.code as never, answer.message, { next: answer.next, pageText: answer.pageText });
  const { ok: _ok, ...rows } = answer;
  return rows;
}
