/**
 * An .xlsx is read whole when small and streamed when large (docs/xlsx-stream.ts); both ways must give the same
 * sheets, rows and cell text, so which one ran never shows in a conversion.
 */
import t from 'tap';
import { createRequire } from 'node:module';
import { xlsxSheets } from '../../../daemon/docs/xlsx-stream.js';

const ExcelJS = createRequire(import.meta.url)('exceljs') as typeof import('exceljs');

async function workbook(): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const a = wb.addWorksheet('Numbers & dates');
  a.addRow(['name', 'amount', 'when']);
  a.addRow(['alpha', 12.5, new Date(Date.UTC(2026, 10, 29))]);
  a.getCell('C2').numFmt = 'yyyy-mm-dd';
  a.addRow(['beta', { formula: 'B2*2', result: 25 }, new Date(Date.UTC(2026, 0, 1, 13, 30))]);
  a.getCell('E4').value = 'a cell after a gap';
  a.getCell('A6').value = { richText: [{ text: 'rich ' }, { font: { bold: true }, text: 'text' }] };
  a.getCell('B6').value = { error: '#DIV/0!' } as never;
  a.getCell('C6').value = true;
  const b = wb.addWorksheet('Second');
  for (let i = 0; i < 1200; i++) b.addRow([`row ${i}`, i, i % 7 === 0 ? '' : `x${i}`]);
  const hidden = wb.addWorksheet('Hidden one', { state: 'hidden' });
  hidden.addRow(['still a sheet']);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

async function read(bytes: Buffer, readWholeMax: number) {
  const out: { name: string; rows: string[][] }[] = [];
  for await (const s of xlsxSheets(bytes, readWholeMax)) {
    const rows: string[][] = [];
    for await (const group of s.batches) rows.push(...group);
    out.push({ name: s.name, rows });
  }
  return out;
}

t.test('read whole and streamed, a workbook gives the same sheets, rows and cells', async (t) => {
  const bytes = await workbook();
  const whole = await read(bytes, Infinity);
  const streamed = await read(bytes, 0);
  t.same(whole.map((s) => s.name), ['Numbers & dates', 'Second', 'Hidden one']);
  t.equal(whole[1]!.rows.length, 1200);
  t.same(whole[0]!.rows[1], ['alpha', '12.5', '2026-11-29']);
  t.same(whole, streamed, 'both ways agree cell for cell');
});

t.test('rows one at a time give what the batches give, both ways', async (t) => {
  const bytes = await workbook();
  for (const max of [Infinity, 0]) {
    const rows: string[][] = [];
    for await (const s of xlsxSheets(bytes, max)) for await (const r of s.rows) rows.push(r);
    t.same(rows, (await read(bytes, max)).flatMap((s) => s.rows), `${max === 0 ? 'streamed' : 'whole'}: the same rows`);
  }
});

t.test('an absent cell reads as empty, and empty cells at the end of a row are dropped', async (t) => {
  const bytes = await workbook();
  for (const max of [Infinity, 0]) {
    const [first, second] = await read(bytes, max);
    t.same(first!.rows[3], ['', '', '', '', 'a cell after a gap'], 'absent cells before one are empty cells');
    t.same(second!.rows[0], ['row 0', '0'], 'a row ending in an empty cell ends before it');
  }
});
