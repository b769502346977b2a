/**
 * Fetching a file a page links to with the user's cookies (collect), every redirect hop judged BEFORE it is
 * requested. A GET only, so a read tab stays read-only; the body is capped as it streams in.
 *
 * Why the daemon's own guardedFetch and not Chromium's Network.loadNetworkResource (used here before): Chromium
 * follows redirects inside that call and no request interception sees them (tried: Fetch.enable on the tab's
 * session, and on the browser target, saw neither the file's request nor its hops), so `/report.pdf` answering
 * 302 to `/account/delete?id=1` was requested with the user's cookies, unjudged. guardedFetch follows redirects
 * itself: each hop's address is vetted as the egress proxy vets the browser's (private and reserved addresses,
 * the daemon's ports, the user's blocked hosts), then `judgeHop` has its say, and only then are that hop's
 * cookies looked up (Network.getCookies for exactly that address, in the tab's browser context) and sent.
 * Nothing the answers set is kept (Set-Cookie never leaves fetch/guarded-fetch.ts).
 */
import type { Tab } from '../browser/tab.js';
import { guardedFetch, type FetchGuard } from '../fetch/guarded-fetch.js';
import { BrowserdError } from '../../protocol/errors.js';
import { redirectReason } from '../policy/destructive-links.js';

/** A file that fails to arrive in this time is listed as failed; the page read goes on. */
const FILE_TIMEOUT_MS = 60_000;

export type Loaded =
  | { ok: true; status: number; headers: Record<string, string>; bytes: Buffer }
  | { ok: false; reason: 'blocked' | 'too_large' | 'http_error' | 'failed'; detail: string; status?: number };

export interface LoadOptions {
  maxBytes: number;
  signal?: AbortSignal;
  /** The address rules every hop is vetted by before anything is sent to it. */
  guard: FetchGuard;
  /** Why the request may not go on to `to` (a redirect hop), or undefined: asked before anything is sent there. */
  judgeHop: (to: string) => string | undefined;
}

/** A hop judgeHop refused: the file is blocked with `reason`. */
class HopRefused extends Error {}

/** The Cookie header Chromium would send to `url` from the tab's browser context, or undefined. */
async function cookiesFor(tab: Tab, url: URL): Promise<string | undefined> {
  const { cookies } = await tab.send('Network.getCookies', { urls: [url.href] });
  return cookies.length ? cookies.map((c) => `${c.name}=${c.value}`).join('; ') : undefined;
}

export async function loadResource(tab: Tab, url: string, opts: LoadOptions): Promise<Loaded> {
  let tooLarge = false;
  /** The redirect being followed: a refusal of its address (by the guard) names it. */
  let hop: { from: string; to: string } | undefined;
  try {
    const res = await guardedFetch(url, {
      guard: opts.guard,
      maxBytes: opts.maxBytes,
      timeoutMs: FILE_TIMEOUT_MS,
      signal: opts.signal,
      headers: { ...(await tab.agentHeaders()), accept: '*/*' },
      cookiesFor: (u) => cookiesFor(tab, u),
      beforeRedirect: async (to, from) => {
        const why = opts.judgeHop(to);
        if (why) throw new HopRefused(redirectReason(from, to, why));
        hop = { from, to };
      },
      tooLarge: (_u, max) => ((tooLarge = true), new BrowserdError('navigation_failed', `more than the ${max} bytes allowed`)),
    });
    if (res.status < 200 || res.status > 299) return { ok: false, reason: 'http_error', status: res.status, detail: `the server answered ${res.status}` };
    return { ok: true, status: res.status, headers: res.headers, bytes: res.body };
  } catch (e) {
    if (e instanceof HopRefused) return { ok: false, reason: 'blocked', detail: e.message };
    if (!(e instanceof BrowserdError)) return { ok: false, reason: 'failed', detail: e instanceof Error ? e.message : String(e) };
    if (tooLarge) return { ok: false, reason: 'too_large', detail: e.message };
    if (e.code === 'blocked' || e.code === 'validation_error') return { ok: false, reason: 'blocked', detail: hop ? redirectReason(hop.from, hop.to, e.message) : e.message };
    if (e.code === 'timeout' && opts.signal?.aborted) return { ok: false, reason: 'failed', detail: 'the call was cancelled' };
    return { ok: false, reason: 'failed', detail: e.message };
  }
}
