/**
 * The user's files as an agent sees them: what is stored (page downloads, PDFs, stored conversions), one
 * file read as Markdown, as rows or as bytes, and a short-lived link that opens it without a token.
 */
import { Type, type Static } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { PageText } from '../call/output.js';
import { params, StringEnum } from '../../protocol/params.js';
import { BrowserdError } from '../../protocol/errors.js';
import type { ToolContext } from '../call/context.js';
import type { FileInfo } from '../../storage/files.js';
import { ShareLinks } from '../../storage/share-links.js';
import { convertDocument, readSheetRows } from '../docs/index.js';
import { ROWS_DEFAULT_LIMIT as ROWS_DEFAULT, ROWS_MAX_LIMIT as ROWS_MAX } from '../docs/rows.js';
import { DOC_MAX_BYTES as INLINE_MAX_BYTES } from '../docs/types.js';
import type { DownloadInProgress } from '../browser/downloads.js';
import type { SameType } from '../traffic/same-type.js';

const FileParam = Type.String({ description: 'Name from browser_downloads.', minLength: 1, maxLength: 200 });

const fileUrl = (name: string) => `/v1/files/${encodeURIComponent(name)}`;

/**
 * A file's name is the page's choice (a download's suggested name): our lines say "the file" and the name
 * follows fenced; an error carries it as its page text. Its MIME type is ours (storage/files.ts, by extension).
 */
const aboutFile = (info: Pick<FileInfo, 'name'>) => `file: ${info.name}`;

/** The caller's stored file, or not_found saying where the names are. */
function storedFile(ctx: ToolContext, name: string): FileInfo {
  const info = ctx.env.files.info(ctx.user.id, name);
  if (!info) throw new BrowserdError('not_found', 'no file of that name in your files (the name asked for is the page text of this error)', { next: 'List your files with browser_downloads and pass a name exactly as listed.', pageText: name });
  return info;
}

function tooLarge(info: FileInfo, what: string): BrowserdError {
  return new BrowserdError('validation_error', `the file is ${info.size} bytes: ${what} at most ${INLINE_MAX_BYTES} bytes (15 MB)`, {
    next: 'Fetch it whole with GET at its url (details.url, bearer token), or share it with browser_download_link.',
    details: { url: fileUrl(info.name), size: info.size },
    pageText: `file: ${info.name}\nurl: ${fileUrl(info.name)}`,
  });
}

/** The file's bytes for reading here, refused past 15 MB (before anything is read). */
function smallBytes(ctx: ToolContext, info: FileInfo, what: string): Buffer {
  if (info.size > INLINE_MAX_BYTES) throw tooLarge(info, what);
  const bytes = ctx.env.files.read(ctx.user.id, info.name);
  if (!bytes) throw new BrowserdError('not_found', 'the file was removed meanwhile', { next: 'List your files with browser_downloads.', pageText: info.name });
  return bytes;
}

// A file's name is the page's choice (a download's suggested name): fenced over MCP, like its address.
const UrlOfFile = PageText({ description: 'Where to GET the file: /v1/files/<name>, with the bearer token.' });

const DownloadUnderWay = Type.Object({
  name: PageText({ description: 'The name the site suggested.' }),
  url: PageText(),
  receivedBytes: Type.Integer(),
  totalBytes: Type.Integer({ description: '0 when the site did not say.' }),
  tab: Type.Optional(Type.String({ description: 'The tab it came from.' })),
});
const sameUnderWay: SameType<Static<typeof DownloadUnderWay>, DownloadInProgress> = true;
void sameUnderWay;

export const downloadTools = [
  defineTool({
    name: 'browser_downloads',
    title: 'Your files and downloads',
    description:
      "The user's files, newest first (downloads, PDFs, conversions), and downloads under way.",
    input: params({}),
    output: Type.Object({
      files: Type.Array(
        Type.Object({ name: PageText(), size: Type.Integer({ description: 'Bytes.' }), mimeType: Type.String(), modifiedAt: Type.String({ description: 'ISO time.' }), url: UrlOfFile }),
        { description: 'Your stored files, newest first.' },
      ),
      inProgress: Type.Array(DownloadUnderWay, { description: 'Downloads still under way.' }),
    }),
    effect: 'read',
    openWorld: false,
    needsBrowser: false,
    async handle(ctx, _args, out) {
      const files = ctx.env.files.list(ctx.user.id).map((f) => ({ name: f.name, size: f.size, mimeType: f.mimeType, modifiedAt: f.modifiedAt, url: fileUrl(f.name) }));
      const underWay = ctx.env.pool
        .list()
        .filter((b) => b.opts.user === ctx.user.id)
        .flatMap((b) => b.downloads?.inProgress() ?? []);
      out.set('files', files).set('inProgress', underWay);
      out.text(files.length ? `${files.length} file${files.length === 1 ? '' : 's'}, newest first:` : 'No files yet.');
      // Names and URLs come from pages (Content-Disposition): listed inside the fence.
      if (files.length) out.page('your files', files.map((f) => `${f.name} | ${f.size} bytes | ${f.mimeType} | ${f.url}`).join('\n'));
      if (underWay.length) {
        out.text(`${underWay.length} download${underWay.length === 1 ? '' : 's'} still under way:`);
        out.page('downloads under way', underWay.map((d) => `${d.name} | ${d.receivedBytes} of ${d.totalBytes || '?'} bytes | ${d.url}`).join('\n'));
      }
    },
  }),
  defineTool({
    name: 'browser_download_get',
    title: 'Read a stored file',
    description:
      'One of your files: as text (default) as Markdown; as rows a CSV, TSV or Excel sheet\'s rows; as file the bytes (at most 15 MB).',
    input: params({
      file: FileParam,
      as: Type.Optional(StringEnum(['text', 'rows', 'file'] as const, { default: 'text' })),
      sheet: Type.Optional(Type.String({ description: 'Default the first.', minLength: 1, maxLength: 200 })),
      limit: Type.Optional(Type.Integer({ description: `Default ${ROWS_DEFAULT}.`, minimum: 1, maximum: ROWS_MAX })),
    }),
    // file, size, mimeType and url always; then what `as` asked for (as "file" puts the bytes in a resource).
    output: Type.Object({
      file: PageText({ description: 'The file name (the site chose it).' }),
      size: Type.Integer({ description: 'Bytes.' }),
      mimeType: Type.String(),
      url: UrlOfFile,
      sheets: Type.Optional(Type.Array(PageText(), { description: 'as rows: every sheet of the workbook in order (one for CSV/TSV).' })),
      sheet: Type.Optional(PageText({ description: 'as rows: the sheet read.' })),
      // Cells are the file's words (a site made the file): each is fenced over MCP like any page text, though the
      // fences can outweigh short cells. REST callers get them as they are.
      rows: Type.Optional(Type.Array(Type.Array(PageText()), { description: 'as rows: the rows, each a list of cell texts.' })),
      total: Type.Optional(Type.Integer({ description: 'as rows: rows the sheet holds in all.' })),
      truncated: Type.Optional(Type.Boolean({ description: 'as rows: cut at limit. as text: the Markdown was cut.' })),
      kind: Type.Optional(Type.String({ description: 'as text: the kind of document read (pdf, docx, xlsx, csv, html, ...).' })),
      converter: Type.Optional(StringEnum(['builtin', 'markitdown', 'docling'] as const, { description: 'as text: the converter that read it.' })),
      chars: Type.Optional(Type.Integer({ description: 'as text: characters of the whole conversion before any cut.' })),
      title: Type.Optional(PageText({ description: "as text: the document's title, when it has one." })),
      parts: Type.Optional(Type.Integer({ description: 'as text: pages, slides, sheets or entries, where the kind has them.' })),
    }),
    effect: 'read',
    openWorld: false,
    needsBrowser: false,
    check(args) {
      const as = args.as ?? 'text';
      if (as !== 'rows' && (args.sheet !== undefined || args.limit !== undefined)) {
        throw new BrowserdError('validation_error', `sheet and limit go with as: "rows", not as: "${as}"`, { next: 'Pass as: "rows" to read a sheet, or drop sheet and limit.' });
      }
    },
    async handle(ctx, args, out) {
      const info = storedFile(ctx, args.file);
      const as = args.as ?? 'text';
      out.set('file', info.name).set('size', info.size).set('mimeType', info.mimeType).set('url', fileUrl(info.name));
      if (as === 'file') {
        const bytes = smallBytes(ctx, info, 'files are handed back inline up to');
        out.resource(`browserd-file:///${encodeURIComponent(info.name)}`, bytes.toString('base64'), info.mimeType);
        out.text(`The bytes of the file (${info.size} bytes, ${info.mimeType}; its name is fenced below) follow as an embedded resource.`);
        out.page('the file', aboutFile(info));
        return;
      }
      const src = { bytes: smallBytes(ctx, info, 'documents are read here up to'), name: info.name, contentType: info.mimeType };
      if (as === 'rows') {
        const limit = args.limit ?? ROWS_DEFAULT;
        // An unknown sheet is not_found naming the sheets there are (the converter thread's answer).
        const r = await readSheetRows(src, { sheet: args.sheet, limit, signal: ctx.signal, timeoutMs: ctx.env.cfg.converterTimeoutMs });
        out.set('sheets', r.sheets).set('sheet', r.sheet).set('rows', r.rows).set('total', r.total).set('truncated', r.truncated);
        out.text(`${r.rows.length} of ${r.total} rows of sheet ${r.sheets.indexOf(r.sheet) + 1} of ${r.sheets.length} in the file${r.truncated ? ` (cut at limit ${limit}: pass a larger limit, up to ${ROWS_MAX})` : ''}; the file and sheet names head the rows below.`);
        out.page('rows of the sheet', `${aboutFile(info)}\nsheet: ${r.sheet}\n\n${r.rows.map((row) => row.join('\t')).join('\n')}`);
        return;
      }
      const c = await convertDocument(ctx.env.cfg, src, { signal: ctx.signal });
      out.set('kind', c.kind).set('converter', c.converter).set('chars', c.chars).set('truncated', c.truncated);
      if (c.title !== undefined) out.set('title', c.title);
      if (c.parts !== undefined) out.set('parts', c.parts);
      out.text(`The file as Markdown (${c.kind}, ${c.chars} characters${c.truncated ? ', cut: read it with browser_convert and a larger maxChars' : ''}); its name heads the text:`);
      out.page('the file as Markdown', `${aboutFile(info)}\n\n${c.content}`);
    },
  }),
  defineTool({
    name: 'browser_download_link',
    title: 'Share a stored file by link',
    description:
      'A link that opens one of your files without a token until it expires (30 minutes by default); anyone holding it can.',
    input: params({ file: FileParam }),
    output: Type.Object({
      url: Type.String({ description: 'Opens the file without a token until expiresAt.' }),
      expiresAt: Type.String({ description: 'ISO time the link stops opening.' }),
      file: PageText({ description: 'The file name (the site chose it).' }),
    }),
    effect: 'read',
    hints: { readOnly: false, idempotent: false },
    openWorld: false,
    needsBrowser: false,
    async handle(ctx, args, out) {
      const info = storedFile(ctx, args.file);
      const sha256 = await ctx.env.files.sha256(ctx.user.id, info.name);
      if (!sha256) throw new BrowserdError('not_found', 'the file was removed meanwhile', { next: 'List your files with browser_downloads.', pageText: info.name });
      const expires = Math.floor(Date.now() / 1000) + ctx.env.cfg.downloadLinkTtlS;
      const token = new ShareLinks(ctx.env.cfg.dataDir).make({ u: ctx.user.id, f: info.name, h: sha256, e: expires }, ctx.env.users.routingKey(ctx.user.id));
      const url = `${ctx.env.baseUrl()}/dl/${token}`;
      const expiresAt = new Date(expires * 1000).toISOString();
      out.set('url', url).set('expiresAt', expiresAt).set('file', info.name);
      out.text(`A link to the file (named below) that opens without a token until ${expiresAt}: ${url}`);
      out.page('the file', aboutFile(info));
    },
  }),
];
