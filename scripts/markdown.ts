/** Text made safe for a Markdown table cell: `|` escaped, line breaks as spaces (the generated tables' one rule). */
export const tableCell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
