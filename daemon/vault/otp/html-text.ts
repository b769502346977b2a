/**
 * The readable text of an e-mail's HTML part, for code extraction: scripts, styles and the head dropped,
 * blocks and line breaks turned into newlines so "Your code" and "482913" in two table cells stay apart as
 * a person would read them. htmlparser2 streams it without building a DOM.
 */
import { Parser } from 'htmlparser2';

const SKIP = new Set(['script', 'style', 'head', 'title', 'noscript', 'template']);
const BLOCK = new Set(['p', 'div', 'br', 'tr', 'td', 'th', 'li', 'ul', 'ol', 'table', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'section', 'article', 'header', 'footer', 'blockquote', 'hr', 'center']);

export function htmlToText(html: string): string {
  const parts: string[] = [];
  let skipping = 0;
  const parser = new Parser(
    {
      onopentag(name) {
        if (SKIP.has(name)) skipping++;
        else if (BLOCK.has(name)) parts.push('\n');
      },
      onclosetag(name) {
        if (SKIP.has(name)) skipping = Math.max(0, skipping - 1);
        else if (BLOCK.has(name)) parts.push('\n');
      },
      ontext(text) {
        if (!skipping) parts.push(text);
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(html);
  parser.end();
  return parts
    .join('')
    .replace(/[ \t\f\r\u00a0]+/g, ' ')
    .replace(/ *\n[\n ]*/g, '\n')
    .trim();
}
