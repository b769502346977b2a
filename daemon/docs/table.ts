/** Rows of cells as a Markdown table: the first row is the header; pipes and line breaks in cells are escaped. */

/** Anything cell() must escape; most cells have none, and one test is cheaper than three replaces. */
const NEEDS_ESCAPE = /[\\|\r\n]/;

function cell(v: string): string {
  if (!NEEDS_ESCAPE.test(v)) return v.trim();
  return v.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n|\r/g, '<br>').trim();
}

/** One table line; `width` pads short rows so every line has the header's cells. */
export function tableRow(cells: string[], width = cells.length): string {
  const w = Math.max(width, cells.length, 1);
  let line = '|';
  for (let i = 0; i < w; i++) line += ` ${cell(cells[i] ?? '')} |`;
  return line;
}

/** The header row and the rule under it. */
export function tableHead(cells: string[]): string {
  const w = Math.max(cells.length, 1);
  return `${tableRow(cells, w)}\n|${' --- |'.repeat(w)}`;
}

export function rowsToMarkdownTable(rows: string[][]): string {
  if (!rows.length) return '';
  const width = Math.max(...rows.map((r) => r.length), 1);
  const [head, ...body] = rows;
  return [tableHead([...head!, ...Array(width - head!.length).fill('')]), ...body.map((r) => tableRow(r, width))].join('\n');
}
