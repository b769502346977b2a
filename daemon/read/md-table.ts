// HTML tables -> GitHub Markdown tables, cell for cell.
//
// Spans are laid out on a grid the way a browser does. A cell spanning several
// columns or rows is repeated in each slot it covers (the pandas.read_html
// convention): every row then reads on its own, and a group header such as
// "Q1" over Jan/Feb/Mar still labels each of its columns.
//
// Tables used for page layout (one cell, one column without headers, tables
// holding tables, role=presentation) are not data: their cells are rendered as
// ordinary blocks instead.
import { type HElement, type HNode, isElement, findFirst, byTag } from './html-tree.js';
import { escapePipes } from './md-text.js';
import type { Block } from './block.js';

/** What the table renderer needs from the walker. */
export interface TableHost {
  blocks(nodes: HNode[], out?: Block[]): Block[];
  inlineOf(nodes: HNode[]): string;
}

// Browsers clamp spans to these; an absurd colspan must not make a million columns.
const MAX_COLSPAN = 1000;
const MAX_ROWSPAN = 65534;

interface Rows {
  caption?: HElement;
  head: HElement[];
  body: HElement[];
  foot: HElement[];
}

export function renderTable(table: HElement, host: TableHost, out: Block[]): void {
  const rows = collectRows(table);
  const all = [...rows.head, ...rows.body, ...rows.foot];
  const cells = all.map(rowCells);

  const caption = rows.caption ? oneLine(host.inlineOf(rows.caption.children)) : '';
  if (caption) out.push({ kind: 'p', text: caption });

  if (isLayout(table, cells)) {
    for (const row of cells) for (const cell of row) host.blocks(cell.children, out);
    return;
  }

  const grid = layOut(cells, (cell) => cellText(host, cell));
  let headerRows = rows.head.length;
  if (!headerRows) {
    // Leading rows made only of <th>; if none (or every row is), the first row.
    while (headerRows < cells.length && cells[headerRows].length && cells[headerRows].every(isTh)) headerRows++;
    if (headerRows === 0 || headerRows === cells.length) headerRows = 1;
  }

  const width = Math.max(0, ...grid.map((r) => r.length));
  for (const r of grid) while (r.length < width) r.push('');
  // Columns empty from top to bottom (often the tail of an oversized colspan) say nothing.
  const keep = [...Array(width).keys()].filter((c) => grid.some((r) => r[c] !== ''));
  if (!keep.length) return;

  const header = keep.map((c) => mergeHeader(grid.slice(0, headerRows).map((r) => r[c])));
  const lines = [mdRow(header), mdRow(keep.map(() => '---'))];
  for (const r of grid.slice(headerRows)) {
    const row = keep.map((c) => r[c]);
    if (row.some((v) => v !== '')) lines.push(mdRow(row));
  }
  out.push({ kind: 'table', text: lines.join('\n') });
}

function collectRows(table: HElement): Rows {
  const rows: Rows = { head: [], body: [], foot: [] };
  const visit = (parent: HElement, into: HElement[]) => {
    for (const c of parent.children) {
      if (!isElement(c)) continue;
      switch (c.name) {
        case 'caption':
          rows.caption ??= c;
          break;
        case 'thead':
          visit(c, rows.head);
          break;
        case 'tfoot':
          visit(c, rows.foot); // shown last wherever it sits in the source
          break;
        case 'tbody':
          visit(c, rows.body);
          break;
        case 'tr':
          into.push(c);
          break;
        case 'table':
        case 'colgroup':
        case 'col':
          break;
        default:
          visit(c, into); // e.g. a <form> wrapped around rows
      }
    }
  };
  visit(table, rows.body);
  return rows;
}

function rowCells(tr: HElement): HElement[] {
  return tr.children.filter((c): c is HElement => isElement(c) && (c.name === 'td' || c.name === 'th'));
}

function isTh(cell: HElement): boolean {
  return cell.name === 'th';
}

function isLayout(table: HElement, cells: HElement[][]): boolean {
  const role = table.attribs.role;
  if (role === 'presentation' || role === 'none') return true;
  const count = cells.reduce((n, r) => n + r.length, 0);
  if (count <= 1) return true;
  const oneColumn = cells.every((r) => r.reduce((n, c) => n + span(c, 'colspan', MAX_COLSPAN), 0) <= 1);
  if (oneColumn && !cells.some((r) => r.some(isTh))) return true;
  // A table holding tables is scaffolding for them (one pass over the table, not one per cell).
  return findFirst(table, byTag('table')) !== undefined;
}

function span(cell: HElement, attr: string, max: number): number {
  const n = parseInt(cell.attribs[attr] ?? '', 10);
  if (!Number.isFinite(n) || n < 0) return 1;
  return Math.min(n, max); // 0 is kept: rowspan=0 means "to the end"
}

/** Places cells on a grid honouring colspan/rowspan, repeating a spanning cell's text. */
function layOut(cells: HElement[][], text: (c: HElement) => string): string[][] {
  const grid: string[][] = cells.map(() => []);
  cells.forEach((row, r) => {
    let col = 0;
    for (const cell of row) {
      while (grid[r][col] !== undefined) col++;
      const cs = Math.max(1, span(cell, 'colspan', MAX_COLSPAN));
      let rs = span(cell, 'rowspan', MAX_ROWSPAN);
      if (rs === 0) rs = cells.length - r;
      rs = Math.min(rs, cells.length - r);
      const t = text(cell);
      for (let dr = 0; dr < rs; dr++) {
        const g = grid[r + dr];
        for (let dc = 0; dc < cs; dc++) g[col + dc] = t;
      }
      col += cs;
    }
  });
  // Slots no cell covered (ragged rows) are empty, not holes.
  return grid.map((r) => Array.from(r, (v) => v ?? ''));
}

function cellText(host: TableHost, cell: HElement): string {
  const raw = host.inlineOf(cell.children);
  if (!raw.includes('\n')) return escapePipes(raw.replace(/\s+/g, ' ').trim()); // the common one-line cell
  const lines = raw
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .filter(Boolean);
  return escapePipes(lines.join('<br>'));
}

/** Several header rows become one: "Q1 / Jan"; a value spanning rows appears once. */
function mergeHeader(values: string[]): string {
  const parts: string[] = [];
  for (const v of values) if (v && parts[parts.length - 1] !== v) parts.push(v);
  return parts.join(' / ');
}

function mdRow(cells: string[]): string {
  return '| ' + cells.join(' | ') + ' |';
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}
