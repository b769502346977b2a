/** Word (.docx): mammoth turns the document into clean HTML (headings, lists, tables), our reader into Markdown. */
import mammoth from 'mammoth';
import { htmlToMarkdown } from '../read/markdown.js';
import { openCheckedZip } from './zip-guard.js';

export async function docxToMarkdown(bytes: Buffer): Promise<{ markdown: string; title?: string }> {
  await openCheckedZip(bytes, 'Word document');
  const { value: html } = await mammoth.convertToHtml({ buffer: bytes }, { ignoreEmptyParagraphs: true });
  // The whole document, not Readability's guess at an article: every paragraph of a file counts.
  const md = htmlToMarkdown(`<html><body>${html}</body></html>`, 'about:blank', { mode: 'page' });
  const firstHeading = /^#{1,2} (.+)$/m.exec(md.markdown)?.[1];
  return { markdown: md.markdown, title: firstHeading };
}
