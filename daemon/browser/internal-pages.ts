/**
 * The catch-all behind every address check: no page of the browser stays on a browser-internal page
 * (chrome:, chrome-untrusted:, devtools:, view-source:, file:, any about: page but about:blank, any scheme that is
 * not the web). The checks (net/url-check.ts, cdp-proxy/policy.ts) refuse the routes we know; this watch sees
 * every page target of the browser, whatever took it there (a route no check knows, history, a fix-up Chromium
 * makes of an address), and takes it off such a page as soon as Chromium says where it is.
 *
 * Internal pages are more than pages to read: chrome://inspect, open for a moment, connects to loopback debugging
 * ports straight from the browser process, past the egress guard; settings, flags and policy pages change the
 * browser itself. A page the daemon did not make is closed (its history goes with it, so "back" cannot return
 * there). One of the daemon's own tabs is blanked instead and its history dropped, so the tab id lives on.
 *
 * While a page is flagged, the CDP proxy refuses commands to it (cdp-proxy/client.ts asks isInternal()).
 */
import type { Logger } from 'pino';
import type { CdpConnection, Disposable } from '../cdp/connection.js';
import { DisposableStore } from '../cdp/connection.js';
import { isAboutBlank } from '../net/url-check.js';

/** Schemes a page may show: the web, documents built inline, and Chromium's error page (no privileges). */
const PAGE_SCHEMES = new Set(['http:', 'https:', 'data:', 'blob:', 'chrome-error:']);

/**
 * Whether a page at this URL is one of the browser's own (or the host's). Fails closed: a URL that does not
 * parse counts as internal. The empty URL is a page that has not navigated yet; about:srcdoc is an iframe's
 * inline document.
 */
export function isBrowserInternalUrl(url: string): boolean {
  if (url === '') return false;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return true;
  }
  if (parsed.protocol === 'about:') return !(isAboutBlank(parsed) || parsed.pathname === 'srcdoc');
  return !PAGE_SCHEMES.has(parsed.protocol);
}

/**
 * Target types that show a document as a tab would. Frames inside a page ('iframe', 'webview') are not watched:
 * a web page cannot frame an internal page, and the PDF viewer is a chrome-extension: frame of this kind.
 */
const PAGE_TYPES = new Set(['page', 'tab']);

interface TargetInfo { targetId: string; type: string; url: string }

export interface InternalPageWatchOptions {
  /** The daemon's session on one of its own tabs (blanked, not closed), or undefined for any other page. */
  daemonTabSession(targetId: string): string | undefined;
  log: Logger;
}

const watches = new WeakMap<CdpConnection, InternalPageWatch>();

/** The watch on a browser connection, if one runs: the CDP proxy asks it before passing on a command. */
export function internalPageWatchOf(conn: CdpConnection): InternalPageWatch | undefined {
  return watches.get(conn);
}

export class InternalPageWatch implements Disposable {
  /** Pages showing an internal page now, until they are closed or back on a web page. */
  private flagged = new Set<string>();
  private d = new DisposableStore();

  constructor(private conn: CdpConnection, private opts: InternalPageWatchOptions) {}

  /**
   * Listens on the browser session (Target.setDiscoverTargets is on there: the daemon sees every target of every
   * context, also those a CDP client made). Call before discovery is switched on, so pages already open are seen.
   */
  start(): this {
    const c = this.conn;
    const see = (p: { targetInfo: TargetInfo }) => this.see(p.targetInfo);
    this.d.add(c.on('Target.targetCreated', '', see));
    this.d.add(c.on('Target.targetInfoChanged', '', see));
    this.d.add(c.on('Target.attachedToTarget', '', see));
    this.d.add(c.on('Target.targetDestroyed', '', (p) => this.flagged.delete(p.targetId)));
    watches.set(c, this);
    return this;
  }

  /** True while the target shows an internal page (and is being closed or blanked). */
  isInternal(targetId: string | undefined): boolean {
    return targetId !== undefined && this.flagged.has(targetId);
  }

  /**
   * A target's URL as someone saw it (Chromium's target events, or a page's own navigation event the proxy
   * forwards): an internal page is flagged at once and taken off it.
   */
  see(info: TargetInfo) {
    if (!PAGE_TYPES.has(info.type)) return;
    if (!isBrowserInternalUrl(info.url)) {
      this.flagged.delete(info.targetId);
      return;
    }
    if (this.flagged.has(info.targetId)) return;
    this.flagged.add(info.targetId);
    void this.takeOff(info);
  }

  private async takeOff(info: TargetInfo) {
    const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(info.url)?.[0] ?? 'an unreadable address';
    const session = this.opts.daemonTabSession(info.targetId);
    // The scheme only: the rest of the address may be a page's own text.
    this.opts.log.warn({ target: info.targetId, scheme, daemonTab: Boolean(session) }, session ? 'a tab showed a browser-internal page: blanked' : 'a page showed a browser-internal page: closed');
    if (session) {
      const nav = await this.conn.sendMayFail('Page.navigate', { url: 'about:blank' }, session, 5000);
      if (nav && !nav.errorText) {
        // The internal page stays in the tab's history otherwise, one "back" away.
        if (await this.conn.sendMayFail('Page.resetNavigationHistory', {}, session, 5000)) return;
      }
    }
    if (!(await this.conn.sendMayFail('Target.closeTarget', { targetId: info.targetId }, undefined, 5000))) {
      this.opts.log.error({ target: info.targetId, scheme }, 'a page on a browser-internal page could not be closed');
    }
  }

  dispose() {
    this.d.dispose();
    if (watches.get(this.conn) === this) watches.delete(this.conn);
    this.flagged.clear();
  }
}
