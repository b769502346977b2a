/**
 * A document at a URL, fetched by the daemon through the same guard as pages (every redirect hop vetted,
 * private addresses and the user's blocked hosts refused, no cookies sent), capped at 15 MB as it streams in.
 */
import { BrowserdError } from '../../protocol/errors.js';
import type { Platform } from '../platform.js';
import { fetchGuardFor, guardedFetch } from '../fetch/guarded-fetch.js';
import { DOC_MAX_BYTES, type DocSource } from './types.js';

const FETCH_TIMEOUT_MS = 60_000;

/** The file name a Content-Disposition header gives (filename* first, as RFC 6266 says), else undefined. */
export function dispositionName(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const star = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header);
  if (star) {
    try {
      return decodeURIComponent(star[1]!.trim());
    } catch { /* fall through to the plain form */ }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/.exec(header);
  return plain ? (plain[1] ?? plain[2])!.replace(/\\(.)/g, '$1') : undefined;
}

/** The last path segment of a URL, when it looks like a file name. */
function pathName(url: string): string | undefined {
  try {
    const last = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
    return last && /\.[A-Za-z0-9]{1,8}$/.test(last) ? last : undefined;
  } catch {
    return undefined;
  }
}

export async function fetchDocument(env: Pick<Platform, 'cfg' | 'deniedPorts' | 'policies'>, user: string, url: string, signal?: AbortSignal): Promise<DocSource & { url: string }> {
  const res = await guardedFetch(url, {
    guard: fetchGuardFor(env, user),
    maxBytes: DOC_MAX_BYTES,
    timeoutMs: FETCH_TIMEOUT_MS,
    signal,
    headers: { accept: '*/*' },
    tooLarge: (u, max) => new BrowserdError('validation_error', `${u} is larger than ${Math.round(max / 1024 / 1024)} MB, the most a conversion takes`, { next: 'Convert a smaller document, or split it.' }),
  });
  if (res.status < 200 || res.status > 299) {
    throw new BrowserdError('navigation_failed', `${res.url} answered HTTP ${res.status}`, { next: 'Check the address; the document may have moved or need a sign-in.' });
  }
  return {
    bytes: res.body,
    url: res.url,
    contentType: res.headers['content-type'],
    name: dispositionName(res.headers['content-disposition']) ?? pathName(res.url),
  };
}
