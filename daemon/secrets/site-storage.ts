/**
 * Code the agent leaves in a site's own storage: a service worker or Cache Storage entries written by a script it
 * ran on a page of the site (browser_evaluate), by a page it wrote (browser_route mocks) or through a timed CDP
 * session. A worker outlives the page that registered it: it can later answer the site's sign-in page with a page
 * of its own, claim pages already open, and read every form posted through it. Which of the site's pages it made
 * cannot be told afterwards (clearing the worker also drops its hold on the pages it controls), so the rule is
 * about time, per browser context and site:
 *   - from the moment such code runs, the site's storage counts as written (storage/agent-storage.ts, kept across
 *     restarts like the storage itself), and every page of the site in that context may be the worker's;
 *   - no vault value is filled on the site while it counts as written (secret-documents.ts asks writtenSites);
 *   - the daemon cleans it (service workers and Cache Storage: nothing the user's sign-ins live in) when it opens a
 *     page of the site itself (browser_navigate, browser_open, browser_login) and no other page of the site is open
 *     in the context, so no code of the worker's is left to write it again. The page opened then loads from the
 *     site. A tab that shows the site itself leaves it for about:blank first. Cleaned are the origins marked, the
 *     one opened, and every origin of the site that holds a service worker registration in the context (code on
 *     one origin can register a worker on another one of the site: a frame, a navigation, a CDP session).
 */
import type { Tab } from '../browser/tab.js';
import type { AgentStorageMarks, AgentStorageStore } from '../../storage/agent-storage.js';
import { siteOf } from './site-match.js';

/** Whose browser and which context: a tab's record. */
type Where = { user: string; profile?: string; context?: string };

/** What a page may turn into running code later, and may be cleared without signing the user out of anything. */
const CLEANED_TYPES = 'service_workers,cache_storage';

/** The origin (scheme://host:port) of an http(s) URL, or undefined. */
export function httpOrigin(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

const siteOfOrigin = (origin: string) => siteOf(new URL(origin).hostname.replace(/^\[|\]$/g, ''));

/**
 * Remembers that agent code could write the storage of these origins (page URLs or origins; others are skipped)
 * in this context. Marked at once; the promise resolves when the mark is on disk (undefined: nothing new).
 */
export function markWritten(store: AgentStorageStore, where: Where, urls: Iterable<string>): Promise<void> | undefined {
  const m = store.marks(where.user, where.profile);
  const bySite = (m.written[where.context ?? ''] ??= {});
  let changed = false;
  for (const url of urls) {
    const origin = httpOrigin(url);
    if (!origin) continue;
    const list = (bySite[siteOfOrigin(origin)] ??= []);
    if (list.includes(origin)) continue;
    list.push(origin);
    changed = true;
  }
  if (!Object.keys(bySite).length) delete m.written[where.context ?? ''];
  return changed ? store.save(where.user, where.profile) : undefined;
}

/** Code that could write any site's storage ran in this browser (a timed CDP session a client used, ended at `at`). */
export function markWrittenEverywhere(store: AgentStorageStore, user: string, profile: string | undefined, at: number): Promise<void> {
  const m = store.marks(user, profile);
  m.everywhereAt = at;
  m.cleanedSince = {};
  return store.save(user, profile);
}

function written(m: AgentStorageMarks, context: string, site: string): boolean {
  if (m.written[context]?.[site]?.length) return true;
  return m.everywhereAt !== undefined && !m.cleanedSince[context]?.includes(site);
}

/** The sites among `sites` whose storage counts as written by agent code in the tab's context. */
export function writtenSites(store: AgentStorageStore, where: Where, sites: (string | undefined)[]): string[] {
  const m = store.marks(where.user, where.profile);
  return [...new Set(sites.filter((s): s is string => !!s && written(m, where.context ?? '', s)))];
}

/** The origins of the site that hold a service worker registration in the tab's browser context. */
async function registeredOrigins(tab: Tab, site: string): Promise<string[]> {
  const origins = (await tab.serviceWorkerScopes()).map(httpOrigin).filter((o): o is string => !!o && siteOfOrigin(o) === site);
  return [...new Set(origins)];
}

/** The site a tab's page is on, by its address, else (about:blank and the like) by its document's origin. */
async function siteShown(tab: Tab): Promise<string | undefined> {
  const origin = httpOrigin(tab.url);
  if (origin) return siteOfOrigin(origin);
  const tree = await tab.send('Page.getFrameTree', {}).catch(() => undefined);
  const own = tree && httpOrigin(tree.frameTree.frame.securityOrigin ?? '');
  // A page whose origin cannot be asked is taken to be on the site: cleaning waits for a later chance.
  return tree ? own && siteOfOrigin(own) : '*';
}

/**
 * Before the daemon opens `url` in `tab`: cleans the site's storage if it counts as written and nothing of the site
 * is open in the context (see the top of this file); otherwise leaves it as it is, and a fill there says why.
 * `browserTabs` are the browser's tabs (the tab itself need not be among them yet).
 */
export async function cleanBeforeOpening(store: AgentStorageStore, tab: Tab, url: string, browserTabs: Iterable<Tab>): Promise<void> {
  const origin = httpOrigin(url);
  if (!origin) return;
  const site = siteOfOrigin(origin);
  const where = tab.record;
  const context = where.context ?? '';
  const m = store.marks(where.user, where.profile);
  if (!written(m, context, site)) return;
  const others = [...browserTabs].filter((t) => t !== tab && !t.closed && !t.crashed && (t.record.context ?? '') === context);
  if (tabsOnSites(where, [site], others).length) return;
  // The tab's own page may be the worker's: it goes first, so nothing of it is left to write the storage again.
  if (!tab.closed && (await siteShown(tab)) === site) await tab.navigate('about:blank');
  const activity = tab.browserActivity();
  // A navigation under way may land on the site, served by the worker still there.
  if (others.some((t) => t.mode === 'act' && t.navigationPending)) return;
  for (const t of others) {
    const shown = await siteShown(t);
    if (shown === site || shown === '*') return;
  }
  const origins = new Set([...(m.written[context]?.[site] ?? []), origin]);
  try {
    // Code on one origin of the site can register a worker on another (a frame, a navigation, a CDP session on a
    // page never marked): every origin of the site that holds a registration is cleaned too.
    for (const o of await registeredOrigins(tab, site)) origins.add(o);
    // Each origin's own (first-party) storage: the one of the pages a value goes into, a page on the site and its
    // same-origin frames. A frame of the site below another site's page or frame has a storage key of its own,
    // left as it is: no value goes into such a frame (cross-origin frames are not read).
    for (const o of origins) await tab.send('Storage.clearDataForOrigin', { origin: o, storageTypes: CLEANED_TYPES });
  } catch {
    // Not cleaned (the tab or the browser went away): the site stays written, and a fill there says so.
    return;
  }
  // A page of the site that came meanwhile may have been made by the worker before it went: the site stays written.
  if (tab.browserActivity() !== activity) return;
  if (m.written[context]) {
    delete m.written[context][site];
    if (!Object.keys(m.written[context]).length) delete m.written[context];
  }
  if (m.everywhereAt !== undefined) (m.cleanedSince[context] ??= []).push(site);
  await store.save(where.user, where.profile);
}

/** The open tabs of the context whose page is on one of `sites` (by address), for refusals. */
export function tabsOnSites(where: Where, sites: string[], browserTabs: Iterable<Tab>): Tab[] {
  return [...browserTabs].filter((t) => {
    const origin = httpOrigin(t.url);
    return !t.closed && (t.record.context ?? '') === (where.context ?? '') && !!origin && sites.includes(siteOfOrigin(origin));
  });
}
