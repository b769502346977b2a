/** CDP's resource types in the engine's words, so $script, $image, $xmlhttprequest and the rest match as written. */
import type { RequestType } from '@ghostery/adblocker';

/**
 * CDP's names lower-cased are the engine's Puppeteer names, but for Document: the guard never asks about the
 * tab's own document (a page is never blocked whole), so a document it asks about is a frame's ($subdocument).
 */
export function engineType(cdpResourceType: string): RequestType {
  if (cdpResourceType === 'Document') return 'sub_frame';
  const t = cdpResourceType.toLowerCase();
  return (KNOWN.has(t) ? t : 'other') as RequestType;
}

const KNOWN = new Set(['stylesheet', 'image', 'media', 'font', 'script', 'texttrack', 'xhr', 'fetch', 'prefetch', 'eventsource', 'websocket', 'manifest', 'signedexchange', 'ping', 'cspviolationreport', 'preflight', 'fedcm', 'other']);
