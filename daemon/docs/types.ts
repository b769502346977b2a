/**
 * The shapes every part of document handling shares: what a conversion is asked for and what it answers,
 * the rows of a sheet, and the converter names a caller may pick.
 */

/** The kinds of document the built-in converters read. */
export const DOC_KINDS = ['pdf', 'docx', 'xlsx', 'pptx', 'csv', 'tsv', 'html', 'feed', 'text'] as const;
export type DocKind = (typeof DOC_KINDS)[number];

export const CONVERTER_CHOICES = ['auto', 'builtin', 'markitdown', 'docling'] as const;
export type ConverterChoice = (typeof CONVERTER_CHOICES)[number];
export type ConverterName = Exclude<ConverterChoice, 'auto'>;

/** Largest document we take inline (base64, upload, by URL) or convert: 15 MB. */
export const DOC_MAX_BYTES = 15 * 1024 * 1024;
export const CONVERT_DEFAULT_CHARS = 50000;
export const CONVERT_MAX_CHARS = 200000;

/** A document's bytes with what is known of its type; `name` gives an extension, `contentType` a MIME type. */
export interface DocSource {
  bytes: Buffer;
  name?: string;
  contentType?: string;
}

export interface ConvertOptions {
  converter?: ConverterChoice;
  format?: 'markdown' | 'text';
  /** Cut the answer here (default 50000); a cut says so in `truncated`. */
  maxChars?: number;
  signal?: AbortSignal;
}

export interface Conversion {
  /** The kind read, or for a sidecar the extension it was sent with (e.g. "epub"). */
  kind: string;
  converter: ConverterName;
  /** Markdown, or plain text when format was text. Untrusted: callers put it in the page fence. */
  content: string;
  /** Characters of the whole conversion before any cut. */
  chars: number;
  truncated: boolean;
  title?: string;
  /** Pages (PDF), slides (PowerPoint), sheets (Excel) or entries (feeds), where the kind has them. */
  parts?: number;
}

/** Rows of a CSV, TSV or Excel sheet, as `browser_download_get{as: rows}` answers them. */
export interface SheetRows {
  /** Every sheet of the workbook in order (one, named after the file, for CSV/TSV). */
  sheets: string[];
  sheet: string;
  rows: string[][];
  /** Rows the sheet holds in all. */
  total: number;
  truncated: boolean;
}
