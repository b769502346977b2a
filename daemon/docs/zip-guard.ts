/**
 * Office files are zip archives, and a zip can claim a few kilobytes and inflate to gigabytes. Before any
 * converter inflates one, its central directory is read (nothing inflated) and refused when the entries or
 * their declared sizes pass the caps. A zip that lies about its sizes still meets the worker's heap cap.
 */
import JSZip from 'jszip';
import { BrowserdError } from '../../protocol/errors.js';

export const ZIP_MAX_ENTRIES = 10000;
export const ZIP_MAX_TOTAL_BYTES = 512 * 1024 * 1024;
export const ZIP_MAX_ENTRY_BYTES = 256 * 1024 * 1024;
/** Text XML compresses well, but not a thousand to one. */
export const ZIP_MAX_RATIO = 1000;

interface EntryData { compressedSize?: number; uncompressedSize?: number }

export async function openCheckedZip(bytes: Buffer | Uint8Array, what: string): Promise<JSZip> {
  let zip: JSZip;
  try {
    zip = await JSZip.loadAsync(bytes, { checkCRC32: false });
  } catch (e) {
    throw new BrowserdError('validation_error', `the file is not a readable ${what} (the parser's words are the page text of this error)`, { next: 'Check that the file is whole and of the type its name says.', pageText: (e as Error).message.slice(0, 120) });
  }
  const entries = Object.values(zip.files);
  if (entries.length > ZIP_MAX_ENTRIES) throw bomb(what, `${entries.length} entries`);
  let total = 0;
  for (const f of entries) {
    const d = (f as unknown as { _data?: EntryData })._data;
    // jszip reads the 32-bit sizes as signed: a claim of 3 GB arrives negative.
    const size = (d?.uncompressedSize ?? 0) >>> 0;
    const packed = (d?.compressedSize ?? 0) >>> 0;
    total += size;
    if (size > ZIP_MAX_ENTRY_BYTES || total > ZIP_MAX_TOTAL_BYTES) throw bomb(what, 'more than it may inflate to');
    if (packed > 0 && size / packed > ZIP_MAX_RATIO && size > 1024 * 1024) throw bomb(what, `an entry compressed ${Math.round(size / packed)} to 1`);
  }
  return zip;
}

function bomb(what: string, why: string): BrowserdError {
  return new BrowserdError('validation_error', `the ${what} is refused: its archive holds ${why} (a zip bomb, or far larger than a document)`, {
    next: 'Convert a smaller document, or split it.',
  });
}
