/**
 * Fetching a file the way the tab's page would: Network.loadNetworkResource in the tab's main frame, so the
 * user's cookies go along, the request leaves through the egress guard like every other request of the
 * browser, and it is a GET (a read tab stays read-only). The body is read from the stream in chunks and given
 * up past a byte cap, so a huge file never sits in memory whole.
 */
import type { Tab } from './tab.js';
import { EGRESS_HEADER } from '../net/egress-proxy.js';

/** Bytes per IO.read: big enough to be few round trips, small enough to stop soon after the cap. */
const CHUNK = 256 * 1024;

export type Loaded =
  | { ok: true; status: number; headers: Record<string, string>; bytes: Buffer }
  | { ok: false; reason: 'blocked' | 'too_large' | 'http_error' | 'failed'; detail: string; status?: number };

export async function loadResource(tab: Tab, url: string, opts: { maxBytes: number; signal?: AbortSignal }): Promise<Loaded> {
  const tree = await tab.send('Page.getFrameTree', {});
  const { resource: r } = await tab.send('Network.loadNetworkResource', { frameId: tree.frameTree.frame.id, url, options: { disableCache: false, includeCredentials: true } });
  const headers = Object.fromEntries(Object.entries(r.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
  const close = () => (r.stream ? tab.send('IO.close', { handle: r.stream }).catch(() => undefined) : undefined);
  if (headers[EGRESS_HEADER] === 'blocked') {
    await close();
    return { ok: false, reason: 'blocked', detail: 'a loopback, private or link-local address, which pages may not reach' };
  }
  if (!r.success || !r.stream) {
    await close();
    if (r.httpStatusCode && r.httpStatusCode >= 400) return { ok: false, reason: 'http_error', status: r.httpStatusCode, detail: `the server answered ${r.httpStatusCode}` };
    // The guard refuses an https tunnel before any response: Chromium reports the tunnel as failed.
    if (r.netErrorName === 'net::ERR_TUNNEL_CONNECTION_FAILED') return { ok: false, reason: 'blocked', detail: 'the network guard refused the address' };
    return { ok: false, reason: 'failed', detail: r.netErrorName ?? 'the file did not load' };
  }
  const status = r.httpStatusCode ?? 200;
  if (status >= 400) {
    await close();
    return { ok: false, reason: 'http_error', status, detail: `the server answered ${status}` };
  }
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > opts.maxBytes) {
    await close();
    return { ok: false, reason: 'too_large', detail: `${declared} bytes, more than the ${opts.maxBytes} allowed` };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for (;;) {
      if (opts.signal?.aborted) return { ok: false, reason: 'failed', detail: 'the call was cancelled' };
      const part = await tab.send('IO.read', { handle: r.stream, size: CHUNK });
      const buf = Buffer.from(part.data, part.base64Encoded ? 'base64' : 'utf8');
      size += buf.length;
      if (size > opts.maxBytes) return { ok: false, reason: 'too_large', detail: `more than the ${opts.maxBytes} bytes allowed` };
      chunks.push(buf);
      if (part.eof) break;
    }
  } finally {
    await close();
  }
  return { ok: true, status, headers, bytes: Buffer.concat(chunks) };
}
