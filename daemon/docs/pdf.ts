/**
 * PDF text with pdfjs-dist's legacy build (the build for Node without a DOM): each page's text content in
 * reading order as pdfjs gives it, lines rebuilt from its end-of-line marks and baseline changes, one heading
 * per page. No eval, no font loading, no network: a PDF cannot make the converter fetch anything.
 */
import { BrowserdError } from '../../protocol/errors.js';

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjs: Promise<PdfJs> | undefined;
const loadPdfJs = () => (pdfjs ??= import('pdfjs-dist/legacy/build/pdf.mjs'));

interface TextItem { str: string; hasEOL?: boolean; transform?: number[] }

/** One page's items as lines: a new line at each end-of-line mark or when the baseline moves. */
export function pageText(items: TextItem[]): string {
  let out = '';
  let lastY: number | undefined;
  for (const it of items) {
    if (typeof it.str !== 'string') continue;
    const y = it.transform?.[5];
    if (lastY !== undefined && y !== undefined && Math.abs(y - lastY) > 2 && !out.endsWith('\n')) out += '\n';
    out += it.str;
    if (it.hasEOL) out += '\n';
    if (y !== undefined) lastY = y;
  }
  return out.replace(/[ \t]+\n/g, '\n').replace(/\n{3,}/g, '\n\n').trim();
}

export async function pdfToMarkdown(bytes: Uint8Array): Promise<{ markdown: string; title?: string; parts: number }> {
  const { getDocument } = await loadPdfJs();
  let doc;
  try {
    doc = await getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, disableFontFace: true, useSystemFonts: false, stopAtErrors: false, verbosity: 0 }).promise;
  } catch (e) {
    throw new BrowserdError('validation_error', "the file is not a readable PDF (the parser's words are the page text of this error)", {
      next: 'Check that the file is a whole PDF; a password-protected PDF cannot be read.',
      pageText: (e as Error).message.slice(0, 120),
    });
  }
  try {
    let title: string | undefined;
    try {
      const meta = await doc.getMetadata();
      const t = (meta.info as { Title?: unknown } | undefined)?.Title;
      if (typeof t === 'string' && t.trim()) title = t.trim();
    } catch { /* no metadata is fine */ }
    const pages: string[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      pages.push(`## Page ${n}\n\n${pageText(content.items as TextItem[])}`);
      page.cleanup();
    }
    return { markdown: `${title ? `# ${title}\n\n` : ''}${pages.join('\n\n')}`, title, parts: doc.numPages };
  } finally {
    await doc.destroy();
  }
}
