// Small Markdown syntax helpers: escaping, code spans and fences.
//
// Escaping is deliberately minimal. The reader is usually a language model, and
// a page full of `\_` and `\*` is harder to read than the rare mis-rendered
// underscore. We escape only what would change the structure: brackets inside
// link text/alt, pipes in table cells, and block markers at the start of a line.

/** Brackets would end link text or alt text early. */
export function escapeBrackets(s: string): string {
  return s.replace(/[[\]]/g, '\\$&');
}

/** A pipe would split a table cell. */
export function escapePipes(s: string): string {
  return s.replace(/\|/g, '\\|');
}

/**
 * A paragraph line that starts like a heading, quote, list item or rule would be
 * read as one; escape its first character so it stays text.
 */
export function escapeLineStart(line: string): string {
  return line
    .replace(/^(#{1,6})(?=\s|$)/, '\\$1')
    .replace(/^([>+])(?=\s|$)/, '\\$1')
    .replace(/^([-*])(?=\s|$|\1\1)/, '\\$1')
    .replace(/^(\d{1,9})([.)])(?=\s|$)/, '$1\\$2')
    .replace(/^(```|~~~)/, '\\$1')
    .replace(/^(={3,}|-{3,})\s*$/, '\\$1');
}

function longestRun(s: string, ch: string): number {
  let best = 0;
  let cur = 0;
  for (const c of s) {
    cur = c === ch ? cur + 1 : 0;
    if (cur > best) best = cur;
  }
  return best;
}

/** Inline code whose delimiter is longer than any backtick run inside it (CommonMark rule). */
export function codeSpan(code: string): string {
  if (!code.trim()) return '';
  const ticks = '`'.repeat(longestRun(code, '`') + 1);
  const pad = code.startsWith('`') || code.endsWith('`') ? ' ' : '';
  return ticks + pad + code + pad + ticks;
}

/** A fenced code block; the fence outgrows any backtick run in the code. */
export function codeFence(code: string, lang: string): string {
  const fence = '`'.repeat(Math.max(3, longestRun(code, '`') + 1));
  return `${fence}${lang}\n${code}\n${fence}`;
}

/** Puts emphasis markers around the text but leaves edge whitespace outside them. */
export function wrapMarks(inner: string, mark: string): string {
  const m = /^(\s*)([\s\S]*?)(\s*)$/.exec(inner)!;
  if (!m[2]) return inner;
  return m[1] + mark + m[2] + mark + m[3];
}
