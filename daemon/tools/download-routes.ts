/**
 * Stored files over HTTP: the caller's list, one file and its deletion (bearer), and share links (`/dl/<token>`, no
 * bearer: the signed token is the credential). Files are streamed from disk, never read whole: a download
 * can be a gigabyte.
 */
import type { Platform } from '../platform.js';
import type { UserRecord } from '../../storage/users.js';
import { BrowserdError } from '../../protocol/errors.js';
import { ShareLinks } from '../../storage/share-links.js';
import { sendJson, sendStream } from '../http/exchange.js';
import type { Handler } from '../server/rest-call.js';
import type { RouteSpec } from '../server/routes.js';
import * as S from '../server/route-schemas.js';


export const DOWNLOAD_ROUTES: readonly RouteSpec[] = [
  { method: 'GET', path: '/v1/files', auth: 'user', summary: "The caller's files (PDFs, screenshots, downloads), newest first" },
  { method: 'GET', path: '/v1/files/{name}', auth: 'user', summary: 'Download one of the caller\'s files', params: S.FilePath },
  { method: 'DELETE', path: '/v1/files/{name}', auth: 'user', summary: "Delete one of the caller's files (its share links stop opening); frees its bytes in the storage quota", params: S.FilePath },
  { method: 'GET', path: '/dl/{token}', auth: 'none', summary: 'A shared file (browser_download_link): streamed as an attachment; the signed, expiring token in the path is the only credential' },
];


/** The headers of a file handed out: always saved, never rendered or sniffed, never cached on the way. */
function fileHeaders(name: string, mimeType: string): Record<string, string> {
  return {
    'Content-Type': mimeType,
    // FILE_NAME allows no quote, backslash or control character: the name cannot break out of the header value.
    'Content-Disposition': `attachment; filename="${name}"`,
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
  };
}

/** One answer for every link that does not open, so a holder learns nothing about which check failed. */
const deadLink = () =>
  new BrowserdError('not_found', 'this link does not open: it expired, was altered, or its file was deleted or changed', {
    next: 'Ask the file owner for a new link (browser_download_link).',
  });

/** Only a correctly signed, unexpired link gets this far, so saying why tells a guesser nothing. */
const ownerDisabled = () =>
  new BrowserdError('forbidden', 'this link does not open while the account that shared the file is disabled; nothing was sent', {
    next: 'Ask the file owner, or the admin of this host, to enable the account; the link opens again until it expires.',
  });

export function downloadHandlers(env: Platform): Record<string, Handler> {
  const me = (u: UserRecord | undefined) => u!;
  return {
    'GET /v1/files': async (r, u) => sendJson(r, 200, { ok: true, files: env.files.list(me(u).id).map((f) => ({ ...f, url: `/v1/files/${encodeURIComponent(f.name)}` })) }),
    'GET /v1/files/{name}': async (r, u, _raw, { params }) => {
      const name = params.name!;
      const info = env.files.info(me(u).id, name);
      const stream = info && env.files.stream(me(u).id, name);
      if (!info || !stream) throw new BrowserdError('not_found', `no file ${name}`, { next: 'List your files with GET /v1/files.' });
      await sendStream(r, 200, fileHeaders(name, info.mimeType), stream);
    },
    // The way out of a full storage quota (--max-storage-mb-per-user): a deleted file's bytes are free at once.
    'DELETE /v1/files/{name}': async (r, u, _raw, { params }) => {
      const name = params.name!;
      if (!env.files.remove(me(u).id, name)) throw new BrowserdError('not_found', `no file ${name}`, { next: 'List your files with GET /v1/files.' });
      sendJson(r, 200, { ok: true, name, deleted: true });
    },
    'GET /dl/{token}': async (r, _u, [raw]) => {
      const p = new ShareLinks(env.cfg.dataDir).verify(raw!, (user) => env.users.routingKey(user));
      if (!p || p.e <= Math.floor(Date.now() / 1000) || !env.users.get(p.u)) throw deadLink();
      // A genuine link of a disabled account: refused while the account is disabled, as its token is.
      if (!env.users.isActive(p.u)) throw ownerDisabled();
      const info = env.files.info(p.u, p.f);
      const opened = info && (await env.files.openIfHash(p.u, p.f, p.h));
      if (!info || !opened) throw deadLink();
      await sendStream(r, 200, { ...fileHeaders(info.name, info.mimeType), 'Referrer-Policy': 'no-referrer' }, opened.stream);
    },
  };
}
