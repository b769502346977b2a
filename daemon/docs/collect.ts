/**
 * collect: the files a page offers (linked documents, images, audio and video), fetched with the cookies of the
 * page's browser tab (load-file.ts: a GET, so read tabs stay read-only; every redirect hop vetted by the
 * address rules and judged by `refusal` before it is requested, so no hop acts on the profile), stored
 * once per user in their files, and listed with the page they came from; documents also as Markdown. Shared by
 * browser_read and crawls. A file that fails is listed with its reason; it never fails the read. With caption,
 * each image is also described by a model (daemon/models/caption.ts), under one budget for the call.
 */
import { extname } from 'node:path';
import { BrowserdError } from '../../protocol/errors.js';
import { Type } from '@sinclair/typebox';
import { COLLECT_DEFAULT_FILES, COLLECT_FILE_TYPES, COLLECT_MAX_FILES, type CollectedEntry, type CollectFileType, type CollectOptions } from '../../protocol/read-params.js';
import { StringEnum } from '../../protocol/params.js';
import { PageText, UrlField } from '../../protocol/output-fields.js';
export type { CollectedEntry } from '../../protocol/read-params.js';
import type { PageFile } from '../../injected/api.js';
import type { Platform } from '../platform.js';
import type { Tab } from '../browser/tab.js';
import { loadResource } from './load-file.js';
import { actionRefusal } from '../policy/destructive-links.js';
import { fetchGuardFor } from '../fetch/guarded-fetch.js';
import { checkUrl } from '../net/url-check.js';
import { evaluateHostPolicy } from '../policy/host-policy.js';
import { allowedByDomains } from '../policy/url-rules.js';
import { safeFileName } from '../../storage/files.js';
import { dispositionName } from './fetch-url.js';
import { convertDocument } from './index.js';
import { DOC_MAX_BYTES } from './types.js';
import { openModelSession, type ModelSession } from '../models/session.js';
import { captionImage, captionRefusal } from '../models/caption.js';
import { own } from '../../protocol/own.js';

/** A CollectedEntry as a result field (browser_read pages[].files, crawls): documents' Markdown and captions fenced over MCP. */
export const CollectedEntrySchema = Type.Object({
  page: UrlField,
  url: UrlField,
  type: StringEnum(COLLECT_FILE_TYPES, { description: 'The file type.' }),
  status: StringEnum(['stored', 'existing', 'failed'] as const, { description: 'stored: new in your files; existing: the same bytes were already there; failed.' }),
  reason: Type.Optional(Type.String({ description: 'Why it failed: blocked, too_large, http_error, not_a_file or failed.' })),
  error: Type.Optional(PageText({ description: 'Why it failed; it may quote the address or what the site answered.' })),
  name: Type.Optional(PageText({ description: 'The name in your files (the site chose it).' })),
  size: Type.Optional(Type.Integer({ description: 'Bytes.' })),
  contentType: Type.Optional(PageText({ description: 'The type the site declared.' })),
  markdown: Type.Optional(PageText({ description: 'A document, converted.' })),
  truncated: Type.Optional(Type.Boolean({ description: 'The Markdown was cut at maxChars.' })),
  convertError: Type.Optional(PageText({ description: 'Why a stored document has no Markdown.' })),
  caption: Type.Optional(PageText({ description: "An image's alt text, written by a model from the image." })),
  captionError: Type.Optional(Type.String({ description: 'Why a collected image has no caption.' })),
});

export const DOCUMENT_TYPES: readonly CollectFileType[] = ['pdf', 'docx', 'doc', 'xlsx', 'xls', 'pptx', 'ppt', 'odt', 'ods', 'odp', 'rtf', 'epub', 'csv', 'tsv'];
export const COLLECT_DEFAULT_CHARS = 20000;
/** Files fetched at once from one tab: a few hide latency without flooding one site. */
const FETCH_CONCURRENCY = 3;

const BY_EXTENSION: Record<string, CollectFileType> = {
  ...Object.fromEntries(DOCUMENT_TYPES.map((t) => [`.${t}`, t])),
  '.png': 'image', '.jpg': 'image', '.jpeg': 'image', '.gif': 'image', '.webp': 'image', '.avif': 'image', '.svg': 'image', '.bmp': 'image',
  '.mp3': 'audio', '.wav': 'audio', '.oga': 'audio', '.m4a': 'audio', '.flac': 'audio', '.aac': 'audio', '.opus': 'audio',
  '.mp4': 'video', '.webm': 'video', '.ogv': 'video', '.mov': 'video', '.m4v': 'video', '.mkv': 'video', '.ogg': 'audio',
};

const BY_MIME: Record<string, CollectFileType> = {
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'pptx',
  'application/vnd.ms-powerpoint': 'ppt',
  'application/vnd.oasis.opendocument.text': 'odt',
  'application/vnd.oasis.opendocument.spreadsheet': 'ods',
  'application/vnd.oasis.opendocument.presentation': 'odp',
  'application/rtf': 'rtf', 'text/rtf': 'rtf',
  'application/epub+zip': 'epub',
  'text/csv': 'csv',
  'text/tab-separated-values': 'tsv',
};

/** The collect type a MIME type names, or undefined. */
export function typeOfMime(mime: string | undefined): CollectFileType | undefined {
  const m = (mime ?? '').split(';')[0]!.trim().toLowerCase();
  if (!m) return undefined;
  const byMime = own(BY_MIME, m);
  if (byMime) return byMime;
  if (m.startsWith('image/')) return 'image';
  if (m.startsWith('audio/')) return 'audio';
  if (m.startsWith('video/')) return 'video';
  return undefined;
}

/** The collect type a URL's path or a file name ends with, or undefined. */
export function typeOfName(nameOrUrl: string | undefined): CollectFileType | undefined {
  if (!nameOrUrl) return undefined;
  let path = nameOrUrl;
  try {
    path = decodeURIComponent(new URL(nameOrUrl).pathname);
  } catch {
    // a bare file name
  }
  return own(BY_EXTENSION, extname(path).toLowerCase());
}

/** What a page file is before it is fetched: extension, then declared type, then the download name. */
function expectedType(f: PageFile): CollectFileType | undefined {
  if (f.kind === 'image') return 'image';
  return typeOfName(f.url) ?? typeOfMime(f.type) ?? typeOfName(f.download) ?? (f.kind === 'media' ? 'video' : undefined);
}

/** What documents/images/media ask for (documents unless documents: false). */
function flaggedTypes(o: CollectOptions): Set<CollectFileType> {
  const want = new Set<CollectFileType>();
  if (o.documents !== false) for (const t of DOCUMENT_TYPES) want.add(t);
  if (o.images) want.add('image');
  if (o.media) {
    want.add('audio');
    want.add('video');
  }
  return want;
}

const anyFlag = (o: CollectOptions) => o.documents !== undefined || o.images !== undefined || o.media !== undefined;

/**
 * The types the options ask for. types alone is the list; with documents/images/media it narrows them (a caller
 * naturally sends documents: true with types: ["csv"] and means the CSV documents only).
 */
export function wantedTypes(o: CollectOptions): Set<CollectFileType> {
  if (!o.types?.length) return flaggedTypes(o);
  if (!anyFlag(o)) return new Set(o.types);
  const flagged = flaggedTypes(o);
  return new Set(o.types.filter((t) => flagged.has(t)));
}

/** Checks between collect's fields, before anything is read. */
export function checkCollectOptions(o: CollectOptions): void {
  const modelFields = (['captionMax', 'model', 'maxTokensTotal'] as const).filter((k) => o[k] !== undefined);
  if (modelFields.length && !o.caption) {
    throw new BrowserdError('validation_error', `collect.${modelFields.join(', collect.')} go with collect.caption`, { next: 'Add caption: true, or drop them.' });
  }
  if (o.types?.length && anyFlag(o) && wantedTypes(o).size === 0) {
    throw new BrowserdError('validation_error', 'collect.types and documents/images/media leave no type to collect: types narrows what those flags ask for', { next: 'Drop the flag set to false, or list types the flags allow (documents: pdf, csv, ...; images: image; media: audio, video).' });
  }
  if (o.caption && !wantedTypes(o).has('image')) {
    throw new BrowserdError('validation_error', 'collect.caption captions images, and this collect takes none', { next: 'Add images: true (or "image" in types), or drop caption.' });
  }
}

export interface CollectContext {
  env: Pick<Platform, 'cfg' | 'files' | 'policies' | 'deniedPorts'>;
  user: string;
  signal: AbortSignal;
  /**
   * With collect.caption: the call's model session (one budget for every caption) and how many may still be
   * made; or why there is none (a crawl after a restart without a host key), which each image then says.
   */
  captions?: { session: ModelSession; left: number } | { unavailable: string };
}

/**
 * The model session captions use, opened before anything is read so a bad model id or a missing key fails
 * first; undefined without collect.caption.
 */
export function openCaptioner(env: Platform, user: string, key: string | undefined, o: CollectOptions | undefined, signal: AbortSignal): CollectContext['captions'] {
  if (!o?.caption) return undefined;
  const session = openModelSession({ env, user, model: o.model, key, maxTokensTotal: o.maxTokensTotal, signal });
  return { session, left: o.captionMax ?? Number.POSITIVE_INFINITY };
}

/** Captions a stored image in place (entry.caption or entry.captionError); never fails the file. */
async function caption(ctx: CollectContext, entry: CollectedEntry, bytes: Uint8Array) {
  const c = ctx.captions!;
  if ('unavailable' in c) return void (entry.captionError = c.unavailable);
  const no = captionRefusal(bytes);
  if (no) return void (entry.captionError = no);
  if (c.left <= 0) return void (entry.captionError = 'captionMax captions were already made in this call');
  c.left--;
  try {
    entry.caption = await captionImage(c.session, { bytes, url: entry.url });
  } catch (e) {
    entry.captionError = e instanceof BrowserdError ? `${e.code}: ${e.message}` : e instanceof Error ? e.message : String(e);
  }
}

/** The file name a response suggests (Content-Disposition), else the URL's last segment, made one the store takes. */
export function fileNameFor(url: string, headers: Record<string, string>, type: CollectFileType): string {
  let raw = dispositionName(headers['content-disposition']);
  if (!raw) {
    try {
      raw = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
    } catch {
      raw = '';
    }
  }
  const ext = DOCUMENT_TYPES.includes(type) ? `.${type}` : '';
  const name = safeFileName(raw ?? '', 'file');
  return ext && !typeOfName(name) ? `${name}${ext}` : name;
}

/**
 * Why a URL may not be fetched for this user and tab (guard, host policy, allowedDomains), or, since it goes
 * with the user's cookies, an address that acts (sign-out, destructive-links.ts); or undefined. Asked of the
 * file's address and of every redirect hop before it is requested.
 */
function refusal(ctx: CollectContext, tab: Tab, url: string): string | undefined {
  try {
    checkUrl(url, ctx.env.cfg);
  } catch (e) {
    return e instanceof BrowserdError ? e.message : String(e);
  }
  if (evaluateHostPolicy(ctx.env.policies.rules(ctx.user), url) === 'blocked') return "the site is blocked by the user's policy";
  const domains = tab.record.allowedDomains;
  if (domains?.length && !allowedByDomains(url, domains)) return `outside the tab's allowedDomains (${domains.join(', ')})`;
  return actionRefusal(url, true);
}

async function collectOne(ctx: CollectContext, tab: Tab, pageUrl: string, f: PageFile, type: CollectFileType, o: CollectOptions): Promise<CollectedEntry> {
  const entry: CollectedEntry = { page: pageUrl, url: f.url, type, status: 'failed' };
  const fail = (reason: string, error: string): CollectedEntry => Object.assign(entry, { status: 'failed' as const, reason, error });
  const no = refusal(ctx, tab, f.url);
  if (no) return fail('blocked', no);
  const maxBytes = Math.min(o.maxBytes ?? DOC_MAX_BYTES, DOC_MAX_BYTES);
  const judgeHop = (to: string) => refusal(ctx, tab, to);
  const loaded = await loadResource(tab, f.url, { maxBytes, signal: ctx.signal, guard: fetchGuardFor(ctx.env, ctx.user), judgeHop }).catch((e) => ({ ok: false as const, reason: 'failed' as const, detail: e instanceof Error ? e.message : String(e) }));
  if (!loaded.ok) return fail(loaded.reason, loaded.detail);
  const contentType = loaded.headers['content-type'];
  const served = typeOfMime(contentType);
  // The link promised a file and the site answered a web page (a sign-in wall, an error page): not the file.
  if (/^text\/html\b/i.test(contentType ?? '') && type !== 'image') return fail('not_a_file', `the link answered a web page (text/html), not a ${type} file`);
  if (served && served !== type && !typeOfName(f.url)) entry.type = served;
  const stored = await ctx.env.files.addBytes(ctx.user, fileNameFor(f.url, loaded.headers, entry.type), loaded.bytes);
  Object.assign(entry, { status: stored.existing ? 'existing' : 'stored', name: stored.name, size: loaded.bytes.length, contentType });
  if (entry.type === 'image' && ctx.captions) await caption(ctx, entry, loaded.bytes);
  if (DOCUMENT_TYPES.includes(entry.type) && o.convert !== false) {
    try {
      const conv = await convertDocument(ctx.env.cfg, { bytes: loaded.bytes, name: stored.name, contentType }, { converter: o.converter, maxChars: o.maxChars ?? COLLECT_DEFAULT_CHARS, signal: ctx.signal });
      entry.markdown = conv.content;
      entry.truncated = conv.truncated;
    } catch (e) {
      entry.convertError = e instanceof BrowserdError ? `${e.code}: ${e.message}` : e instanceof Error ? e.message : String(e);
    }
  }
  return entry;
}

/**
 * Collects the files of the page open in `tab` (its address is `pageUrl`), as the options ask: at most
 * maxFiles (default 20, at most 200), each at most maxBytes (default and most 15 MB). Answers one entry per
 * file in page order.
 */
export async function collectFiles(ctx: CollectContext, tab: Tab, pageUrl: string, o: CollectOptions): Promise<CollectedEntry[]> {
  checkCollectOptions(o);
  const want = wantedTypes(o);
  const maxFiles = Math.min(o.maxFiles ?? COLLECT_DEFAULT_FILES, COLLECT_MAX_FILES);
  const picked: { f: PageFile; type: CollectFileType }[] = [];
  for (const f of await tab.call('fileLinks', { limit: 5000 })) {
    if (picked.length >= maxFiles) break;
    const type = expectedType(f);
    if (!type || !want.has(type)) continue;
    if (f.kind === 'image' && o.minImagePx && ((f.width ?? 0) < o.minImagePx || (f.height ?? 0) < o.minImagePx)) continue;
    picked.push({ f, type });
  }
  const out: CollectedEntry[] = new Array(picked.length);
  let next = 0;
  const worker = async () => {
    while (next < picked.length) {
      const i = next++;
      if (ctx.signal.aborted) {
        out[i] = { page: pageUrl, url: picked[i]!.f.url, type: picked[i]!.type, status: 'failed', reason: 'failed', error: 'the call was cancelled' };
        continue;
      }
      out[i] = await collectOne(ctx, tab, pageUrl, picked[i]!.f, picked[i]!.type, o);
    }
  };
  await Promise.all(Array.from({ length: Math.min(FETCH_CONCURRENCY, picked.length) }, worker));
  return out;
}
