/**
 * Reading and putting back a tab's signed-in state over CDP: the cookies of its sites (from its own browser
 * context: the default one, a named context or a named profile's browser) and the local storage of the
 * origins it has open. Values pass through here and into the sealed store only; nothing here logs them.
 */
import type { CdpConnection } from '../cdp/connection.js';
import type { Protocol } from 'devtools-protocol';
import { BrowserdError } from '../../protocol/errors.js';
import { parseHostAsIp } from '../net/address.js';
import type { SavedCookie, SavedOriginStorage, SessionContents } from '../../storage/saved-sessions.js';
import type { Tab } from './tab.js';
import type { BrowserInstance } from './instance.js';
import { reload } from './history.js';

/**
 * Two-label public suffixes under which a site is three labels (example.co.uk). A short list on purpose, not
 * the full Public Suffix List: a site here only chooses which of the user's own cookies a saved session
 * takes, and a suffix it misses (a rare ccTLD scheme, a hosting suffix such as github.io) only makes that
 * choice wider: more of the same user's cookies saved, nothing shown to anyone.
 */
const TWO_LABEL_SUFFIXES = new Set([
  'co.uk', 'org.uk', 'ac.uk', 'gov.uk', 'me.uk', 'ltd.uk', 'plc.uk', 'net.uk', 'sch.uk', 'nhs.uk',
  'com.au', 'net.au', 'org.au', 'edu.au', 'gov.au', 'co.nz', 'net.nz', 'org.nz', 'govt.nz',
  'co.jp', 'ne.jp', 'or.jp', 'ac.jp', 'go.jp', 'co.kr', 'or.kr', 'co.in', 'net.in', 'org.in', 'gov.in',
  'com.br', 'net.br', 'org.br', 'gov.br', 'com.cn', 'net.cn', 'org.cn', 'gov.cn', 'com.hk', 'com.tw', 'com.sg',
  'com.my', 'com.mx', 'com.ar', 'com.tr', 'com.ua', 'com.pl', 'co.za', 'co.il', 'co.id', 'com.ph', 'com.vn',
]);

/**
 * The site a host belongs to, "eTLD+1"-ish: the last two labels (three under a suffix above), the whole host
 * for an IP address or a one-label name such as localhost. Ports play no part, as for cookies.
 */
export function siteOfHost(host: string): string {
  const h = host.trim().toLowerCase().replace(/^\.+/, '').replace(/\.$/, '').replace(/^\[(.*)\]$/, '$1');
  if (parseHostAsIp(h) !== undefined || !h.includes('.')) return h;
  const labels = h.split('.');
  const take = labels.length >= 3 && TWO_LABEL_SUFFIXES.has(labels.slice(-2).join('.')) ? 3 : 2;
  return labels.slice(-take).join('.');
}

/** The web origins (http and https) of the tab's top page and all its frames, top first. */
async function frameOrigins(tab: Tab): Promise<string[]> {
  const { frameTree } = await tab.send('Page.getFrameTree', {});
  const origins: string[] = [];
  const walk = (node: Protocol.Page.FrameTree) => {
    try {
      const u = new URL(node.frame.url);
      if ((u.protocol === 'http:' || u.protocol === 'https:') && !origins.includes(u.origin)) origins.push(u.origin);
    } catch {
      // about:blank, data: and the like belong to no site.
    }
    for (const child of node.childFrames ?? []) walk(child);
  };
  walk(frameTree);
  return origins;
}

/** The browser-level connection: cookies and hidden targets are the browser's business, not one page's. */
function connOf(inst: BrowserInstance): CdpConnection {
  if (!inst.alive || !inst.conn) throw new BrowserdError('browser_crashed', "the user's browser stopped", { next: 'Call again: it restarts with your tabs.' });
  return inst.conn;
}

/**
 * The browser context to name in Storage and Target calls: none for a tab of the profile's own (default)
 * context, the id this browser made for a named context otherwise. The id is never taken from the target:
 * Target.getTargetInfo reports the default context's id too, and Chromium's Storage and Target calls look an
 * id up only among the contexts made over CDP, so naming the default context by id failed ("Failed to find
 * browser context for id"). A named context closed since the tab was resolved is a clear not_found.
 */
function contextOf(inst: BrowserInstance, tab: Tab): string | undefined {
  const name = tab.record.context;
  if (!name) return undefined;
  const id = inst.contexts.get(name);
  if (!id || tab.closed) throw contextGone(tab);
  return id;
}

/** The tab was closed, or its context ended or was made anew, since the call resolved it. */
function gone(inst: BrowserInstance, tab: Tab, id: string | undefined): boolean {
  return tab.closed || inst.tabs.get(tab.id) !== tab || (!!tab.record.context && inst.contexts.get(tab.record.context) !== id);
}

function contextGone(tab: Tab): BrowserdError {
  return new BrowserdError('not_found', `tab ${tab.id} or its context was closed during the call`, { next: 'List your tabs with browser_tabs, open the site again, and call again.' });
}

/**
 * Runs a browser-level call for the tab's context; when the context ended meanwhile (closed by another call
 * between the lookup and this one), Chromium's "Failed to find browser context" becomes not_found.
 */
async function inContext<T>(inst: BrowserInstance, tab: Tab, run: (browserContextId: string | undefined) => Promise<T>): Promise<T> {
  const id = contextOf(inst, tab);
  try {
    return await run(id);
  } catch (e) {
    if (e instanceof Error && e.name === 'CdpError' && gone(inst, tab, id)) throw contextGone(tab);
    throw e;
  }
}

function toSaved(c: Protocol.Network.Cookie): SavedCookie {
  return {
    name: c.name,
    value: c.value,
    domain: c.domain,
    path: c.path,
    ...(c.session ? {} : { expires: c.expires }),
    httpOnly: c.httpOnly,
    secure: c.secure,
    ...(c.sameSite ? { sameSite: c.sameSite } : {}),
    priority: c.priority,
    sourceScheme: c.sourceScheme,
    sourcePort: c.sourcePort,
    ...(c.partitionKey ? { partitionKey: c.partitionKey } : {}),
  };
}

export interface TabSessionState {
  sites: string[];
  contents: SessionContents;
}

/**
 * The cookies of the tab's sites in the tab's browser context, and the local storage of each origin the tab
 * has open. Local storage is read for first-party frames only: a third-party frame's storage is partitioned
 * under the page it is embedded in and would not come back anywhere else. sessionStorage is left out: it
 * belongs to one tab's lifetime, and sites keep a sign-in in cookies or local storage.
 */
export async function readSessionState(inst: BrowserInstance, tab: Tab): Promise<TabSessionState> {
  const conn = connOf(inst);
  const origins = await frameOrigins(tab);
  const sites = [...new Set(origins.map((o) => siteOfHost(new URL(o).hostname)))];
  if (!sites.length) {
    throw new BrowserdError('action_failed', `tab ${tab.id} is on no web site (${tab.url}), so there is no session to save`, { next: 'Navigate the tab to the signed-in site first, then save.' });
  }
  const now = Date.now() / 1000;
  const { cookies } = await inContext(inst, tab, (browserContextId) => conn.send('Storage.getCookies', browserContextId ? { browserContextId } : {}));
  const kept = cookies.filter((c) => sites.includes(siteOfHost(c.domain)) && (c.session || c.expires > now)).map(toSaved);
  const stored: SavedOriginStorage[] = [];
  for (const origin of origins) {
    let entries: [string, string][];
    try {
      const r = await tab.send('DOMStorage.getDOMStorageItems', { storageId: { storageKey: `${origin}/`, isLocalStorage: true } });
      entries = r.entries.map((e) => [e[0], e[1]] as [string, string]);
    } catch {
      // Only a first-party frame answers to the bare origin's storage key (see above).
      continue;
    }
    if (entries.length) stored.push({ origin, localStorage: entries });
  }
  return { sites, contents: { cookies: kept, origins: stored } };
}

/** A cookie as Storage.setCookies takes it; host-only cookies are set through a URL so they stay host-only. */
function toParam(c: SavedCookie): Protocol.Network.CookieParam {
  const common = {
    name: c.name,
    value: c.value,
    path: c.path,
    secure: c.secure,
    httpOnly: c.httpOnly,
    ...(c.sameSite ? { sameSite: c.sameSite } : {}),
    ...(c.expires !== undefined ? { expires: c.expires } : {}),
    ...(c.priority ? { priority: c.priority } : {}),
    ...(c.sourceScheme ? { sourceScheme: c.sourceScheme } : {}),
    ...(c.sourcePort !== undefined ? { sourcePort: c.sourcePort } : {}),
    ...(c.partitionKey ? { partitionKey: c.partitionKey } : {}),
  };
  if (c.domain.startsWith('.')) return { ...common, domain: c.domain };
  const host = c.domain.includes(':') && !c.domain.startsWith('[') ? `[${c.domain}]` : c.domain;
  return { ...common, url: `${c.secure || c.sourceScheme === 'Secure' ? 'https' : 'http'}://${host}${c.path || '/'}` };
}

/** An empty page, so a scratch target can stand in an origin without asking the site for anything. */
const EMPTY_PAGE = Buffer.from('<!doctype html><html><head><link rel="icon" href="data:,"></head><body></body></html>').toString('base64');

/**
 * Puts local storage back for origins nobody needs to visit: a hidden scratch target in the tab's browser
 * context navigates to each origin, and the request is answered here with an empty page (Fetch, before any
 * byte leaves the browser), so the origin exists in a frame and DOMStorage.setDOMStorageItem can write to it.
 * Chromium refuses DOMStorage writes for a storage key no frame has open, and the user's own tab must stay
 * where it is. The scratch target is closed afterwards whatever happens.
 */
async function restoreLocalStorage(conn: CdpConnection, browserContextId: string | undefined, origins: SavedOriginStorage[]): Promise<{ restored: string[]; failed: string[] }> {
  const restored: string[] = [];
  const failed: string[] = [];
  if (!origins.length) return { restored, failed };
  const { targetId } = await conn.send('Target.createTarget', { url: 'about:blank', ...(browserContextId ? { browserContextId } : {}), hidden: true, background: true });
  try {
    const { sessionId } = await conn.send('Target.attachToTarget', { targetId, flatten: true });
    await conn.send('Page.enable', {}, sessionId);
    // A service worker of the origin must not answer the scratch navigation with the real site.
    await conn.send('Network.setBypassServiceWorker', { bypass: true }, sessionId);
    await conn.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] }, sessionId);
    const expected = new Set<string>();
    const sub = conn.on('Fetch.requestPaused', sessionId, (p) => {
      const answer =
        p.resourceType === 'Document' && expected.has(p.request.url)
          ? conn.sendMayFail('Fetch.fulfillRequest', { requestId: p.requestId, responseCode: 200, responseHeaders: [{ name: 'content-type', value: 'text/html' }], body: EMPTY_PAGE }, sessionId)
          : conn.sendMayFail('Fetch.failRequest', { requestId: p.requestId, errorReason: 'BlockedByClient' }, sessionId);
      void answer;
    });
    // Auto-attach holds every new target until it is let go; letting it go twice is harmless.
    await conn.sendMayFail('Runtime.runIfWaitingForDebugger', {}, sessionId);
    try {
      for (const o of origins) {
        const url = `${o.origin}/`;
        expected.add(url);
        try {
          const loaded = conn.waitFor('Page.loadEventFired', sessionId, () => true, 10000);
          loaded.catch(() => undefined);
          const nav = await conn.send('Page.navigate', { url }, sessionId);
          if (nav.errorText) throw new Error(nav.errorText);
          await loaded;
          for (const [key, value] of o.localStorage) {
            await conn.send('DOMStorage.setDOMStorageItem', { storageId: { storageKey: url, isLocalStorage: true }, key, value }, sessionId);
          }
          restored.push(o.origin);
        } catch {
          failed.push(o.origin);
        }
      }
    } finally {
      sub.dispose();
    }
  } finally {
    await conn.sendMayFail('Target.closeTarget', { targetId });
  }
  return { restored, failed };
}

export interface LoadOutcome {
  cookiesSet: number;
  /** Cookies Chromium refused (for example a Secure cookie whose site it no longer accepts); names only. */
  cookiesRefused: string[];
  storageRestored: string[];
  storageFailed: string[];
  /** Whether the tab was reloaded because it is on one of the session's sites. */
  reloaded: boolean;
}

/**
 * Sets the cookies into the tab's browser context, restores local storage per origin, then reloads the tab
 * when it is on one of the session's sites so the page sees the signed-in state.
 */
export async function writeSessionState(inst: BrowserInstance, tab: Tab, sites: string[], contents: SessionContents): Promise<LoadOutcome> {
  const conn = connOf(inst);
  let cookiesSet = 0;
  const cookiesRefused: string[] = [];
  const now = Date.now() / 1000;
  for (const c of contents.cookies) {
    if (c.expires !== undefined && c.expires <= now) continue;
    try {
      await inContext(inst, tab, (browserContextId) => conn.send('Storage.setCookies', { ...(browserContextId ? { browserContextId } : {}), cookies: [toParam(c)] }));
      cookiesSet++;
    } catch (e) {
      // A context that ended is the call's failure, not one refused cookie.
      if (e instanceof BrowserdError) throw e;
      cookiesRefused.push(c.name);
    }
  }
  const { restored, failed } = await inContext(inst, tab, (browserContextId) => restoreLocalStorage(conn, browserContextId, contents.origins));
  let reloaded = false;
  let onSite = false;
  try {
    const u = new URL(tab.url);
    onSite = (u.protocol === 'http:' || u.protocol === 'https:') && sites.includes(siteOfHost(u.hostname));
  } catch {
    onSite = false;
  }
  if (onSite) {
    try {
      await reload(tab);
      await tab.settle();
    } catch (e) {
      // The tab (or its context) was closed by another call while the state went in.
      if (gone(inst, tab, tab.record.context ? inst.contexts.get(tab.record.context) : undefined)) throw contextGone(tab);
      throw e;
    }
    reloaded = true;
  }
  return { cookiesSet, cookiesRefused, storageRestored: restored, storageFailed: failed, reloaded };
}
