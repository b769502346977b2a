/**
 * Documents in, Markdown out: the one way the rest of the daemon converts a file (browser_convert, POST
 * /v1/convert, collect on reads and crawls, browser_download_get) and reads a sheet's rows.
 */
export type { Conversion, ConvertOptions, DocSource, SheetRows } from './types.js';
export { convertDocument, convertersStatus } from './convert.js';
export { readSheetRows } from './rows.js';
