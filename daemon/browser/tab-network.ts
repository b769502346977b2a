/**
 * A tab's network bookkeeping: what is in flight (so actions can wait for quiet), the ring of recent responses
 * browser_network shows, writes an act tab sent, and the egress guard's verdict on the main document.
 */
import type { CdpConnection, DisposableStore } from '../cdp/connection.js';
import { BrowserdError } from '../../protocol/errors.js';
import { EGRESS_HEADER } from '../net/egress-proxy.js';
import { Ring, type LogKind, type LogEntry, type NetworkEntry } from './tab-log.js';

/** Methods a read tab may send: they do not change anything on a well-behaved site. */
export const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface NetworkOwner {
  readonly mode: 'read' | 'act';
  readonly closed: boolean;
  readonly crashed: boolean;
  mainFrameId(): string | undefined;
  logEvent(kind: LogKind, e: Omit<LogEntry, 'at' | 'kind'>): void;
}

export class TabNetwork {
  readonly ring = new Ring<NetworkEntry>(1000);
  private requestMeta = new Map<string, { url: string; method: string; type: string }>();
  private inflight = new Set<string>();
  /** Requests the guard failed as ads (network ids), so their failure reads blocked:ads rather than Chromium's words. */
  private adBlocked = new Set<string>();
  private lastActivity = 0;
  /** The egress guard's verdict on the main document just loaded, if the guard answered instead of the site. */
  documentEgress?: { url: string; verdict: string };
  /** The main document's last response (status, type): what a crawl records for a page read in the browser. */
  lastDocument?: { url: string; status: number; mimeType: string; requestId: string };

  constructor(private conn: CdpConnection, private owner: NetworkOwner) {}

  /** Marks a request the guard failed as an ad or tracker; kept bounded should its failure never be reported. */
  markAdBlocked(networkId: string) {
    this.adBlocked.add(networkId);
    if (this.adBlocked.size > 1000) this.adBlocked.delete(this.adBlocked.values().next().value!);
  }

  /** Follows one session's Network events (the tab's own; children report through the tab's session). */
  listen(session: string, d: DisposableStore) {
    const c = this.conn;
    const owner = this.owner;
    d.add(c.on('Network.requestWillBeSent', session, (p) => {
      // Long-lived streams never finish: they must not hold a settle open.
      if (p.type !== 'EventSource') this.inflight.add(p.requestId);
      this.lastActivity = Date.now();
      this.requestMeta.set(p.requestId, { url: p.request.url, method: p.request.method, type: (p.type ?? 'Other').toLowerCase() });
      if (owner.mode === 'act' && !SAFE_METHODS.has(p.request.method)) owner.logEvent('write_sent', { method: p.request.method, url: p.request.url });
    }));
    d.add(c.on('Network.responseReceived', session, (p) => {
      const meta = this.requestMeta.get(p.requestId);
      this.ring.push({ at: new Date().toISOString(), url: p.response.url, method: meta?.method ?? 'GET', status: p.response.status, type: p.type.toLowerCase(), mimeType: p.response.mimeType });
      if (p.response.status >= 400) owner.logEvent('http_error', { method: meta?.method, url: p.response.url, status: p.response.status });
      if (p.type === 'Document' && p.frameId === owner.mainFrameId()) {
        this.lastDocument = { url: p.response.url, status: p.response.status, mimeType: p.response.mimeType, requestId: p.requestId };
        const verdict = Object.entries(p.response.headers).find(([k]) => k.toLowerCase() === EGRESS_HEADER)?.[1];
        this.documentEgress = verdict ? { url: p.response.url, verdict: String(verdict) } : undefined;
        if (verdict === 'blocked') owner.logEvent('navigation_blocked', { url: p.response.url, detail: 'private network address (egress guard)' });
      }
    }));
    d.add(c.on('Network.loadingFailed', session, (p) => {
      this.done(p.requestId);
      const meta = this.requestMeta.get(p.requestId);
      this.requestMeta.delete(p.requestId);
      const ad = this.adBlocked.delete(p.requestId);
      if (meta) this.ring.push({ at: new Date().toISOString(), url: meta.url, method: meta.method, status: 0, type: p.type.toLowerCase(), failed: ad ? 'blocked:ads' : p.blockedReason ? `blocked:${p.blockedReason}` : p.errorText });
    }));
    d.add(c.on('Network.loadingFinished', session, (p) => {
      this.done(p.requestId);
      this.requestMeta.delete(p.requestId);
    }));
  }

  private done(id: string) {
    this.inflight.delete(id);
    this.lastActivity = Date.now();
  }

  /**
   * Waits for network quiet (nothing in flight for quietMs), bounded by maxMs: a page that polls forever costs
   * at most that. A page that crashes meanwhile ends the wait with browser_crashed rather than a silent return.
   */
  async settle(maxMs = 1500, quietMs = 80): Promise<void> {
    const deadline = Date.now() + maxMs;
    while (Date.now() < deadline) {
      assertAlive(this.owner);
      if (this.owner.closed) return;
      if (this.inflight.size === 0 && Date.now() - this.lastActivity >= quietMs) return;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

/** The one place a wait on a page learns that the page is gone. */
export function assertAlive(owner: { crashed: boolean }) {
  if (owner.crashed) throw new BrowserdError('browser_crashed', 'the page crashed while the call waited on it', { next: 'Call again: the tab is reloaded at its last address.' });
}
