// Cutting Markdown to maxChars without breaking its structure.
//
// We cut between blocks. A block that does not fit whole is cut between its
// lines only where a line is a unit of its own: table rows (the header stays),
// list lines, quote lines and code lines (the fence is closed again). Without
// that a single big table, common on data pages, would be all or nothing.
// A last line says that the text was cut and how much was left out; the
// content itself stays within maxChars, that line comes on top.
import type { Block } from './block.js';
import { joinBlocks } from './md-walk.js';

export interface Truncated {
  markdown: string;
  /** Characters of the full Markdown not shown; 0 when nothing was cut. */
  omitted: number;
}

const SEP = '\n\n';

export function truncateBlocks(blocks: Block[], maxChars: number): Truncated {
  const full = joinBlocks(blocks);
  if (full.length <= maxChars) return { markdown: full, omitted: 0 };

  const kept: string[] = [];
  let used = 0;
  for (const b of blocks) {
    const sep = kept.length ? SEP.length : 0;
    if (used + sep + b.text.length <= maxChars) {
      kept.push(b.text);
      used += sep + b.text.length;
      continue;
    }
    const part = partialBlock(b, maxChars - used - sep);
    if (part) kept.push(part);
    else if (!kept.length) kept.push(hardCut(b.text, maxChars));
    break;
  }
  const shown = kept.join(SEP);
  const omitted = full.length - shown.length;
  const note = `[Cut at ${maxChars} characters: ${omitted} more characters left out.]`;
  return { markdown: shown ? shown + SEP + note : note, omitted };
}

/** The longest line-aligned head of a block that fits in `room`, or '' if none. */
function partialBlock(b: Block, room: number): string {
  if (room <= 0) return '';
  const lines = b.text.split('\n');
  switch (b.kind) {
    case 'table':
      return headLines(lines, room, 3); // header, separator, at least one row
    case 'list':
    case 'quote':
      return headLines(lines, room, 1);
    case 'code': {
      const close = lines[lines.length - 1];
      const body = headLines(lines.slice(0, -1), room - close.length - 1, 2);
      return body ? body + '\n' + close : '';
    }
    default:
      return '';
  }
}

function headLines(lines: string[], room: number, min: number): string {
  let len = -1;
  let n = 0;
  while (n < lines.length && len + 1 + lines[n].length <= room) len += 1 + lines[n++].length;
  return n >= min ? lines.slice(0, n).join('\n') : '';
}

/** Nothing fits at a boundary: cut the first block at the last space before the limit. */
function hardCut(text: string, maxChars: number): string {
  const head = text.slice(0, maxChars);
  const space = head.search(/\s\S*$/);
  return (space > maxChars / 2 ? head.slice(0, space) : head).trimEnd();
}
