/** Pictures and prints of a tab: screenshots (viewport, full page, a clip) and PDFs. */
import { BrowserdError } from '../../protocol/errors.js';
import type { Tab } from './tab.js';
import { contentSize } from './layout.js';
import { runBeforeCapture } from './before-capture.js';

/** Chromium refuses captures taller than this; a longer page is cut. */
const MAX_CAPTURE_HEIGHT = 16384;

export interface Clip { x: number; y: number; width: number; height: number }

/** A base64 image of the viewport, the whole page (fullPage) or a clip in page CSS pixels. */
export async function screenshot(tab: Tab, opts: { format: 'png' | 'jpeg'; quality?: number; fullPage?: boolean; clip?: Clip }): Promise<string> {
  let clip: (Clip & { scale: number }) | undefined;
  if (opts.clip) clip = { ...opts.clip, scale: 1 };
  else if (opts.fullPage) {
    const s = await contentSize(tab);
    clip = { x: 0, y: 0, width: Math.ceil(s.width), height: Math.min(Math.ceil(s.height), MAX_CAPTURE_HEIGHT), scale: 1 };
  }
  // The vault's filled fields are masked again here (secrets/masking.ts registers the step when it fills one).
  await runBeforeCapture(tab);
  const shot = await tab.send('Page.captureScreenshot', {
    format: opts.format,
    quality: opts.format === 'jpeg' ? opts.quality ?? 80 : undefined,
    captureBeyondViewport: !!opts.fullPage,
    ...(clip ? { clip } : {}),
  });
  return shot.data;
}

export interface PdfOptions {
  landscape: boolean;
  printBackground: boolean;
  scale: number;
  /** Inches, as Chromium takes them. */
  paperWidth: number;
  paperHeight: number;
  margin: number;
  pageRanges: string;
}

/** The page printed to PDF bytes. Chromium refuses page ranges beyond the last page: that is the caller's argument. */
export async function printPdf(tab: Tab, o: PdfOptions): Promise<Buffer> {
  const r = await tab
    .send('Page.printToPDF', {
      landscape: o.landscape,
      printBackground: o.printBackground,
      scale: o.scale,
      paperWidth: o.paperWidth,
      paperHeight: o.paperHeight,
      marginTop: o.margin, marginBottom: o.margin, marginLeft: o.margin, marginRight: o.margin,
      pageRanges: o.pageRanges,
    })
    .catch((e: Error) => {
      throw new BrowserdError('validation_error', `the PDF could not be made: ${e.message}`, { next: 'Check pageRanges against the page count.' });
    });
  return Buffer.from(r.data, 'base64');
}
