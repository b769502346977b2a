/**
 * The network half of a tab's rules: every request of the tab and of every target it spawned is paused at the
 * request stage and let through, or failed, here. Read tabs send no write; read-only sites get none in act tabs
 * either; blocked hosts and addresses outside allowedDomains are not navigated to.
 */
import type { CdpConnection, DisposableStore } from '../cdp/connection.js';
import { allowedByDomains } from '../policy/url-rules.js';
import type { HostAccess } from '../policy/host-policy.js';
import type { LogKind, LogEntry } from './tab-log.js';
import { SAFE_METHODS } from './tab-network.js';

export interface GuardedOwner {
  readonly mode: 'read' | 'act';
  /** The address of the tab's page: a read-only site's page may not write anywhere. */
  readonly url: string;
  readonly allowedDomains?: string[];
  logEvent(kind: LogKind, e: Omit<LogEntry, 'at' | 'kind'>): void;
}

export type HostAccessFn = (url: string) => HostAccess | 'default';

interface PausedRequest { requestId: string; request: { url: string; method: string }; resourceType: string }

export class WriteGuard {
  constructor(private conn: CdpConnection, private owner: GuardedOwner, private hostAccess: HostAccessFn) {}

  /** Starts intercepting one session's requests; resolves once Chromium holds them for us. */
  async guard(session: string, d: DisposableStore, mayFail = false): Promise<void> {
    d.add(this.conn.on('Fetch.requestPaused', session, (p) => this.decide(p, session)));
    const params = { patterns: [{ urlPattern: '*', requestStage: 'Request' as const }] };
    if (mayFail) await this.conn.sendMayFail('Fetch.enable', params, session);
    else await this.conn.send('Fetch.enable', params, session);
  }

  /** Why a request may not go out, or undefined when it may. */
  verdict(p: PausedRequest): { kind: LogKind; detail: string } | undefined {
    const { method, url } = p.request;
    const o = this.owner;
    if (!SAFE_METHODS.has(method)) {
      if (o.mode === 'read') return { kind: 'write_blocked', detail: `${p.resourceType} request blocked: read tab` };
      if (this.hostAccess(url) === 'read_only' || this.hostAccess(o.url) === 'read_only') {
        return { kind: 'write_blocked', detail: `${p.resourceType} request blocked: the site is read-only by the user's policy` };
      }
    }
    if (p.resourceType === 'Document' && /^https?:/.test(url)) {
      if (this.hostAccess(url) === 'blocked') return { kind: 'navigation_blocked', detail: "the site is blocked by the user's policy" };
      if (o.allowedDomains?.length && !allowedByDomains(url, o.allowedDomains)) return { kind: 'navigation_blocked', detail: `outside allowedDomains (${o.allowedDomains.join(', ')})` };
    }
    return undefined;
  }

  private decide(p: PausedRequest, session: string) {
    const no = this.verdict(p);
    if (no) {
      this.owner.logEvent(no.kind, { method: p.request.method, url: p.request.url, detail: no.detail });
      void this.conn.sendMayFail('Fetch.failRequest', { requestId: p.requestId, errorReason: 'BlockedByClient' }, session);
      return;
    }
    void this.conn.sendMayFail('Fetch.continueRequest', { requestId: p.requestId }, session);
  }
}
