/** Excel (.xlsx): a heading and a Markdown table per sheet, rows streamed; text past the budget is counted, not kept. */
import { xlsxSheets } from './xlsx-stream.js';
import { tableHead, tableRow } from './table.js';

export async function xlsxToMarkdown(bytes: Buffer, budget: number): Promise<{ markdown: string; parts: number; chars: number }> {
  const out: string[] = [];
  let kept = 0;
  let chars = 0;
  let sheets = 0;
  for await (const sheet of xlsxSheets(bytes)) {
    sheets++;
    const heading = `${sheets > 1 ? '\n\n' : ''}## ${sheet.name}\n\n`;
    chars += heading.length;
    if (kept < budget) { out.push(heading); kept += heading.length; }
    let header: string[] | undefined;
    for await (const group of sheet.batches) {
      for (const cells of group) {
        // The first row is the header; each later row becomes one table line of its own.
        const line = header ? tableRow(cells, header.length) : tableHead(cells);
        header ??= cells;
        const piece = `${line}\n`;
        chars += piece.length;
        if (kept < budget) { out.push(piece); kept += piece.length; }
      }
    }
  }
  return { markdown: out.join('').trimEnd(), parts: sheets, chars };
}
