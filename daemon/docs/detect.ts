/**
 * What kind of document some bytes are: the name's extension first, then the Content-Type, then the bytes
 * themselves (magic numbers through file-type; a text sniff for HTML, feeds, JSON Feed and delimited text).
 * A kind the built-in converters do not read answers its best extension, so a sidecar can be asked.
 */
import { extname } from 'node:path';
import type { DocKind } from './types.js';
import { own } from '../../protocol/own.js';

export interface Detected {
  /** A kind the built-in converters read, or undefined. */
  kind?: DocKind;
  /** The extension to name the file by when it goes to a sidecar or the file store (no dot), e.g. "epub". */
  ext: string;
  mime?: string;
}

const BY_EXT: Record<string, DocKind> = {
  pdf: 'pdf', docx: 'docx', xlsx: 'xlsx', xlsm: 'xlsx', pptx: 'pptx', csv: 'csv', tsv: 'tsv', tab: 'tsv',
  html: 'html', htm: 'html', xhtml: 'html', rss: 'feed', atom: 'feed', txt: 'text', text: 'text', md: 'text',
  markdown: 'text', log: 'text',
};

/** Types only a sidecar reads: never taken for text, even when they look like it (RTF is text; the rest are binary). */
const SIDECAR_ONLY = new Set(['doc', 'xls', 'ppt', 'odt', 'ods', 'odp', 'rtf', 'epub']);

const BY_MIME: Record<string, DocKind> = {
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'pptx',
  'text/csv': 'csv', 'application/csv': 'csv', 'text/tab-separated-values': 'tsv',
  'text/html': 'html', 'application/xhtml+xml': 'html',
  'application/rss+xml': 'feed', 'application/atom+xml': 'feed', 'application/feed+json': 'feed', 'application/rdf+xml': 'feed',
  'text/plain': 'text', 'text/markdown': 'text',
};

const KIND_EXT: Record<DocKind, string> = { pdf: 'pdf', docx: 'docx', xlsx: 'xlsx', pptx: 'pptx', csv: 'csv', tsv: 'tsv', html: 'html', feed: 'xml', text: 'txt' };

export function extensionOf(name: string | undefined): string {
  return name ? extname(name).slice(1).toLowerCase() : '';
}

/** The usual extension of a kind, for naming stored files. */
export function extensionForKind(kind: DocKind): string {
  return KIND_EXT[kind];
}

/** The bare MIME type of a Content-Type header value. */
function bareMime(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** A look at the first bytes as text, for kinds without magic numbers. */
function sniffText(head: string): DocKind | undefined {
  const s = head.replace(/^\uFEFF/, '').trimStart();
  if (/^<\?xml[^>]*>\s*(?:<!--[\s\S]*?-->\s*)*<(?:rss|feed|rdf:RDF)\b/i.test(s) || /^<(?:rss|feed)\b/i.test(s)) return 'feed';
  if (/^(?:<!doctype html|<html|<head|<body)\b/i.test(s)) return 'html';
  if (/^\{\s*"version"\s*:\s*"https:\/\/jsonfeed\.org\/version\//.test(s)) return 'feed';
  return undefined;
}

/** True when the bytes look like text (no NUL in the first 8 KB, mostly printable). */
function looksLikeText(bytes: Buffer): boolean {
  const head = bytes.subarray(0, 8192);
  if (head.includes(0)) return false;
  let odd = 0;
  for (const b of head) if (b < 9 || (b > 13 && b < 32)) odd++;
  return odd <= head.length / 100;
}

export async function detectKind(bytes: Buffer, name?: string, contentType?: string): Promise<Detected> {
  const ext = extensionOf(name);
  const mime = bareMime(contentType);
  // An extension or type that says "some XML" or "some text" still needs the bytes to tell a feed from HTML.
  if (SIDECAR_ONLY.has(ext)) return { ext, mime: mime || undefined };
  const claimed = own(BY_EXT, ext) ?? own(BY_MIME, mime);
  if (claimed && claimed !== 'text' && claimed !== 'html') return { kind: claimed, ext: ext || KIND_EXT[claimed], mime: mime || undefined };
  // Imported here, not at start: the package (ESM only) is about 0.7 MB of heap an idle daemon does not need.
  const { fileTypeFromBuffer } = await import('file-type');
  const magic = await fileTypeFromBuffer(bytes).catch(() => undefined);
  if (magic) {
    const kind = own(BY_EXT, magic.ext) ?? own(BY_MIME, magic.mime);
    // file-type answers "xml" for any XML, which may be a feed.
    if (magic.ext === 'xml') {
      const sniffed = sniffText(bytes.subarray(0, 4096).toString('utf8'));
      if (sniffed) return { kind: sniffed, ext: sniffed === 'feed' ? 'xml' : 'html', mime: magic.mime };
    }
    if (kind) return { kind, ext: magic.ext, mime: magic.mime };
    // A name like report.doc or book.epub keeps its own extension for the sidecar; zip or cfb says less.
    if (!claimed) return { ext: ext || magic.ext, mime: magic.mime };
  }
  if (!looksLikeText(bytes)) return { kind: undefined, ext: ext || 'bin', mime: mime || undefined };
  const sniffed = sniffText(bytes.subarray(0, 4096).toString('utf8'));
  if (sniffed) return { kind: sniffed, ext: ext || KIND_EXT[sniffed], mime: mime || undefined };
  if (claimed) return { kind: claimed, ext: ext || KIND_EXT[claimed], mime: mime || undefined };
  if (mime === 'application/json' || mime.endsWith('+json') || ext === 'json' || ext === 'xml' || mime.endsWith('/xml') || mime.startsWith('text/') || !mime) {
    return { kind: 'text', ext: ext || 'txt', mime: mime || undefined };
  }
  return { ext: ext || 'bin', mime: mime || undefined };
}
