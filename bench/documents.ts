/**
 * Large documents for bench/docs.ts, written to files once per run: a text PDF of many pages (pdf-lib), the
 * same with incompressible images to reach a size, and a long single-sheet workbook written with exceljs's
 * streaming WorkbookWriter (rows go to disk as they are added, so building 400,000 rows stays small).
 * Content is deterministic (a seeded generator), so every run converts the same bytes.
 */
import { createRequire } from 'node:module';
import { statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import { PDFDocument, StandardFonts } from 'pdf-lib';

const ExcelJS = createRequire(import.meta.url)('exceljs') as typeof import('exceljs');

const WORDS = 'alpha beta gamma delta river stone market ledger winter copper signal harbor basket orange pencil window quarter budget north south invoice meadow silver engine'.split(' ');

function seeded(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

export const PDF_LINES_PER_PAGE = 35;
export const PDF_WORDS_PER_LINE = 10;

/** A noise RGB image as a PNG: noise does not compress, so each one adds its raw size to the PDF. */
function noisePng(w: number, h: number): Buffer {
  const stride = w * 3 + 1;
  const raw = Buffer.alloc(stride * h);
  for (let y = 0; y < h; y++) randomBytes(w * 3).copy(raw, y * stride + 1);
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 1 })), chunk('IEND', Buffer.alloc(0))]);
}

/**
 * `pages` pages of PDF_LINES_PER_PAGE lines of PDF_WORDS_PER_LINE words (350 words a page); then, when
 * `fillToBytes` is given, 600x600 noise images (about 1.1 MB each) on the first pages until the file is near it.
 */
export async function writeTextPdf(path: string, pages: number, fillToBytes = 0): Promise<{ bytes: number; images: number }> {
  const doc = await PDFDocument.create();
  doc.setTitle('Benchmark document');
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const rnd = seeded(7);
  for (let p = 0; p < pages; p++) {
    const page = doc.addPage([600, 800]);
    page.drawText(`Page marker ${p + 1}`, { x: 40, y: 770, size: 11, font });
    for (let l = 1; l < PDF_LINES_PER_PAGE; l++) {
      const line = Array.from({ length: PDF_WORDS_PER_LINE }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(' ');
      page.drawText(line, { x: 40, y: 770 - l * 20, size: 11, font });
    }
  }
  let images = 0;
  if (fillToBytes) {
    const textOnly = (await doc.save()).length;
    const perImage = 600 * 600 * 3 + 8 * 600;
    const count = Math.max(0, Math.floor((fillToBytes - textOnly) / perImage));
    for (let i = 0; i < count; i++) {
      const img = await doc.embedPng(noisePng(600, 600));
      doc.getPage(i % pages).drawImage(img, { x: 300, y: 40, width: 120, height: 120 });
      images++;
    }
  }
  writeFileSync(path, await doc.save());
  return { bytes: statSync(path).size, images };
}

export const XLSX_HEADER = ['id', 'customer', 'city', 'quantity', 'unit price', 'status'];

/** One sheet: a header row, then `rows` rows of six cells, strings (shared) and numbers mixed. */
export async function writeLongXlsx(path: string, rows: number): Promise<{ bytes: number }> {
  const cities = ['Lisbon', 'Porto', 'Berlin', 'Paris', 'Oslo', 'Kyiv', 'Rome', 'Madrid', 'Dublin', 'Vienna'];
  const status = ['open', 'paid', 'shipped', 'returned'];
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path, useSharedStrings: true, useStyles: true });
  const ws = wb.addWorksheet('Orders');
  ws.addRow(XLSX_HEADER).commit();
  for (let i = 1; i <= rows; i++) {
    ws.addRow([i, `Customer ${(i * 7919) % 50021}`, cities[i % cities.length], (i * 7) % 100, Math.round(i * 137) / 100, status[i % status.length]]).commit();
  }
  ws.commit();
  await wb.commit();
  return { bytes: statSync(path).size };
}
