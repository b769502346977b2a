/**
 * One conversion: find the document's kind, pick the converter (built-in when it reads the kind; otherwise
 * a sidecar the admin set up), run it off the main thread, then shape the answer (plain text if asked, cut at
 * maxChars with the cut said). Nothing here stores or fetches: callers bring the bytes and keep them.
 */
import { BrowserdError } from '../../protocol/errors.js';
import type { Config } from '../config.js';
import { markdownToText } from '../read/plain-text.js';
import { detectKind } from './detect.js';
import { runOnConverterThread } from './pool.js';
import { convertWithDocling, convertWithMarkitdown } from './sidecars.js';
import { CONVERT_DEFAULT_CHARS, DOC_KINDS, DOC_MAX_BYTES, type Conversion, type ConverterName, type ConvertOptions, type DocKind, type DocSource } from './types.js';

type DocsConfig = Pick<Config, 'markitdownUrl' | 'doclingUrl' | 'converterTimeoutMs'>;

const MB = (n: number) => `${Math.round(n / 1024 / 1024)} MB`;

function pickConverter(cfg: DocsConfig, asked: ConvertOptions['converter'], kind: DocKind | undefined, ext: string): ConverterName {
  const what = ext ? `.${ext} files` : 'this kind of file';
  if (asked === 'builtin' && !kind) {
    throw new BrowserdError('validation_error', `the built-in converters do not read ${what}; they read ${DOC_KINDS.join(', ')}`, {
      next: cfg.markitdownUrl || cfg.doclingUrl ? 'Pass converter "auto" to use the server\'s other converter.' : 'Convert it to PDF or another kind first.',
    });
  }
  if (asked && asked !== 'auto') return asked;
  if (kind) return 'builtin';
  if (cfg.markitdownUrl) return 'markitdown';
  if (cfg.doclingUrl) return 'docling';
  throw new BrowserdError('not_configured', `no converter on this server reads ${what}; the built-in ones read ${DOC_KINDS.join(', ')}`, {
    next: 'Convert it to one of those first, or ask the admin to set up a markitdown or docling converter.',
  });
}

export async function convertDocument(cfg: DocsConfig, src: DocSource & { url?: string }, opts: ConvertOptions = {}): Promise<Conversion> {
  if (src.bytes.length > DOC_MAX_BYTES) {
    throw new BrowserdError('validation_error', `the document is ${MB(src.bytes.length)}; conversions take at most ${MB(DOC_MAX_BYTES)}`, { next: 'Split the document, or convert a smaller one.' });
  }
  if (src.bytes.length === 0) throw new BrowserdError('validation_error', 'the document is empty', { next: 'Give a file with something in it.' });
  const maxChars = opts.maxChars ?? CONVERT_DEFAULT_CHARS;
  const detected = await detectKind(src.bytes, src.name, src.contentType);
  const converter = pickConverter(cfg, opts.converter, detected.kind, detected.ext);
  let content: string;
  let chars: number | undefined;
  let title: string | undefined;
  let parts: number | undefined;
  if (converter === 'builtin') {
    // Text past the budget is counted but not built; the extra room lets a format change keep maxChars whole.
    const answer = await runOnConverterThread({ op: 'convert', kind: detected.kind!, bytes: src.bytes, budget: maxChars * 2 + 1024, url: src.url }, opts.signal, cfg.converterTimeoutMs);
    if (!answer.ok) throw new BrowserdError(answer.code as never, answer.message, { next: answer.next, pageText: answer.pageText });
    ({ markdown: content, title, parts } = answer);
    chars = answer.chars;
  } else {
    const fileName = (src.name && /\.[A-Za-z0-9]{1,8}$/.test(src.name) ? src.name : `document.${detected.ext}`).replace(/[^A-Za-z0-9._ -]/g, '_');
    const input = { bytes: src.bytes, fileName, mime: detected.mime ?? 'application/octet-stream' };
    content = converter === 'markitdown' ? await convertWithMarkitdown(cfg, input, opts.signal) : await convertWithDocling(cfg, input, opts.signal);
  }
  if (opts.format === 'text') content = markdownToText(content);
  const whole = opts.format === 'text' || chars === undefined ? Math.max(content.length, chars ?? 0) : chars;
  const truncated = whole > maxChars || content.length > maxChars;
  if (content.length > maxChars) content = content.slice(0, maxChars);
  return { kind: detected.kind ?? detected.ext, converter, content, chars: whole, truncated, title, parts };
}

/** What `browser_status` shows: which converters this server has. */
export function convertersStatus(cfg: DocsConfig): { name: ConverterName; available: boolean; reads: string }[] {
  return [
    { name: 'builtin', available: true, reads: DOC_KINDS.join(', ') },
    { name: 'markitdown', available: !!cfg.markitdownUrl, reads: cfg.markitdownUrl ? 'what markitdown reads (Office, EPUB, images, ...)' : 'not set up (BROWSERD_MARKITDOWN_URL)' },
    { name: 'docling', available: !!cfg.doclingUrl, reads: cfg.doclingUrl ? 'what docling reads (PDF, Office, HTML, images)' : 'not set up (BROWSERD_DOCLING_URL)' },
  ];
}
