/**
 * browser_convert: a document (one of the user's files, an address on the web, or bytes given inline)
 * as Markdown or text. The converted text is the document's own words, so it goes in the page fence like a
 * page's; a cut says so. With `store`, a fetched or given document joins the user's files once converted.
 */
import { Type } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { params, StringEnum } from '../../protocol/params.js';
import { BrowserdError } from '../../protocol/errors.js';
import { convertDocument } from './index.js';
import { fetchDocument } from './fetch-url.js';
import { extensionForKind, extensionOf } from './detect.js';
import { CONVERT_DEFAULT_CHARS, CONVERT_MAX_CHARS, CONVERTER_CHOICES, DOC_MAX_BYTES, type DocSource } from './types.js';
import { safeFileName } from '../../storage/files.js';
import { pageUrl } from '../call/response.js';
import { PageText } from '../call/output.js';

/** What browser_convert answers beside the document's text (which is only in the fence). */
const ConvertOutput = Type.Object({
  conversion: Type.Object({
    source: StringEnum(['file', 'url', 'base64'] as const, { description: 'Where the document came from.' }),
    kind: Type.String({ description: 'The kind read (pdf, docx, xlsx, pptx, csv, tsv, html, feed, text), or for the markitdown or docling converter the extension it was sent with.' }),
    converter: StringEnum(['builtin', 'markitdown', 'docling'] as const, { description: 'The converter that read it.' }),
    chars: Type.Integer({ description: 'Characters of the whole conversion before any cut.' }),
    truncated: Type.Boolean({ description: 'The text was cut at maxChars.' }),
    title: Type.Optional(PageText({ description: "The document's title, where it names one." })),
    parts: Type.Optional(Type.Integer({ description: 'Pages (PDF), slides (PowerPoint), sheets (Excel) or entries (feeds), where the kind has them.' })),
  }),
  file: Type.Optional(
    Type.Object(
      {
        name: PageText({ description: 'The name in your files (from the site, for a document fetched by url).' }),
        size: Type.Integer({ description: 'Bytes.' }),
        mimeType: Type.String(),
        existing: Type.Boolean({ description: 'The same bytes were already in your files: nothing new was stored.' }),
        url: PageText({ description: 'Where to fetch it (GET, with your token); it holds the name.' }),
      },
      { description: 'With store: the document as kept in your files.' },
    ),
  ),
});

/** Base64 of the largest inline document, with room for line breaks. */
const BASE64_MAX_CHARS = Math.ceil(DOC_MAX_BYTES / 3) * 4 + 65536;
const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

export const convertTools = [
  defineTool({
    name: 'browser_convert',
    maxBodyBytes: BASE64_MAX_CHARS + 65536,
    title: 'Convert a document to Markdown',
    description:
      'A document (PDF, Office, CSV, HTML, feeds...) as Markdown or text, from exactly one of file, url or base64 with name.',
    input: params({
      file: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      url: Type.Optional(Type.String({ minLength: 1, maxLength: 8192 })),
      base64: Type.Optional(Type.String({ description: 'At most 15 MB.', minLength: 1, maxLength: BASE64_MAX_CHARS })),
      name: Type.Optional(Type.String({ description: 'Its extension gives the type.', minLength: 1, maxLength: 200, pattern: '^[^/\\\\\\u0000-\\u001f]+$' })),
      converter: Type.Optional(StringEnum(CONVERTER_CHOICES)),
      format: Type.Optional(StringEnum(['markdown', 'text'] as const)),
      maxChars: Type.Optional(Type.Integer({ description: `Default ${CONVERT_DEFAULT_CHARS}.`, minimum: 1, maximum: CONVERT_MAX_CHARS })),
      store: Type.Optional(Type.Boolean({ description: 'Keep it in your files.' })),
    }),
    output: ConvertOutput,
    effect: 'read',
    hints: { readOnly: false, idempotent: true },
    needsBrowser: false,
    check(args) {
      const given = [args.file, args.url, args.base64].filter((v) => v !== undefined).length;
      if (given !== 1) throw new BrowserdError('validation_error', `give exactly one of file, url or base64 (${given} given)`, { next: 'Pass file for one of your files, url for a web address, or base64 with name for bytes.' });
      if (args.base64 !== undefined && args.name === undefined) throw new BrowserdError('validation_error', 'base64 needs name: its extension tells the type', { next: 'Add name, e.g. "report.pdf".' });
      if (args.file !== undefined && args.name !== undefined) throw new BrowserdError('validation_error', 'name goes with base64 or url, not with file', { next: 'Leave name out; the file has its name.' });
      if (args.store && args.file !== undefined) throw new BrowserdError('validation_error', 'store goes with url or base64; the file is already stored', { next: 'Leave store out.' });
      if (args.base64 !== undefined && !BASE64.test(args.base64)) throw new BrowserdError('validation_error', 'base64 holds characters that are not base64', { next: 'Encode the file with standard base64 (A-Z, a-z, 0-9, +, /, =).' });
    },
    async handle(ctx, args, out) {
      const user = ctx.user.id;
      let src: DocSource & { url?: string };
      let label: string;
      if (args.file !== undefined) {
        const bytes = ctx.env.files.read(user, args.file);
        if (!bytes) throw new BrowserdError('not_found', 'no file of that name in your files (the name asked for is the page text of this error)', { next: 'List your files with browser_downloads.', pageText: args.file });
        src = { bytes, name: args.file };
        label = args.file;
      } else if (args.url !== undefined) {
        src = await fetchDocument(ctx.env, user, args.url, ctx.signal);
        if (args.name) src.name = args.name;
        label = src.url!;
      } else {
        const bytes = Buffer.from(args.base64!, 'base64');
        if (bytes.length > DOC_MAX_BYTES) throw new BrowserdError('validation_error', `the document is ${Math.round(bytes.length / 1024 / 1024)} MB; inline documents may be at most 15 MB`, { next: 'Put it at a URL, or split it.' });
        src = { bytes, name: args.name };
        label = args.name!;
      }
      ctx.checkCancelled();
      const conv = await convertDocument(ctx.env.cfg, src, { converter: args.converter, format: args.format, maxChars: args.maxChars, signal: ctx.signal });
      let stored;
      if (args.store) {
        const ext = extensionOf(src.name) || (conv.converter === 'builtin' ? extensionForKind(conv.kind as never) : conv.kind);
        const base = safeFileName(src.name ?? `document.${ext}`);
        const name = extensionOf(base) ? base : `${base}.${ext}`;
        stored = await ctx.env.files.addBytes(user, name, src.bytes);
      }
      const { content, ...about } = conv;
      out.set('conversion', { source: args.file !== undefined ? 'file' : args.url !== undefined ? 'url' : 'base64', ...about });
      if (stored) out.set('file', { name: stored.name, size: stored.size, mimeType: stored.mimeType, existing: stored.existing, url: `/v1/files/${encodeURIComponent(stored.name)}` });
      const parts = conv.parts !== undefined ? `, ${conv.parts} ${partWord(conv.kind)}` : '';
      const cut = conv.truncated ? ` Cut at ${content.length} of ${conv.chars} characters: ask for a larger maxChars (at most ${CONVERT_MAX_CHARS}) for more.` : '';
      const keep = stored ? ` ${stored.existing ? 'Already in your files' : 'Stored in your files'} under the name that heads the text.` : '';
      // The source's name or address and the stored name are the page's (a download name, Content-Disposition):
      // they head the fenced text, and our line says only what was done.
      const source = args.url !== undefined ? `${pageUrl(label)} (whole address below)` : 'the document';
      out.text(`Converted ${source} (${conv.kind}, ${conv.converter} converter${parts}).${cut}${keep}`);
      out.page('the document', `source: ${label}\n${stored ? `stored as: ${stored.name}\n` : ''}\n${content}`);
    },
  }),
];

function partWord(kind: string): string {
  return ({ pdf: 'pages', pptx: 'slides', xlsx: 'sheets', feed: 'entries', csv: 'table', tsv: 'table' } as Record<string, string>)[kind] ?? 'parts';
}
