/**
 * Where a filled vault value lives, and where the agent's own code lives: the two must never meet.
 *
 * A value filled into a page can be read back by any script that runs in that document (or in another
 * document of the same site that holds a handle to it: opener, popup, named window), in any encoding: no
 * scrubbing of results can win against btoa. So the rule is about what runs where:
 *   - a document holding a filled value (fill_secret, login, fill_totp, fill_otp, `%vault:...%` fills) runs no
 *     agent script, and neither does any document of the same browser context on the same site;
 *   - a value is not filled while agent code is alive in a document of the same site in that context (a
 *     script the agent ran there, which may have left timers or handles behind), nor while any tab of the
 *     context answers requests with the agent's own responses (browser_route mocks: their bodies can be script,
 *     in any frame of any site);
 *   - no value is filled while a timed CDP session is open on the browser, and no session starts or connects
 *     while the browser holds one (raw CDP can run anything anywhere);
 *   - a document holding a filled value takes no typing and no editing keys from the agent (only Enter, Tab and
 *     Escape, which send or move on): keys could cut the value into parts (End+Backspace in one tab, Home+Delete
 *     in another) that the page shows back and that no scrubber can tell from other text;
 *   - no value is filled on a site whose own storage agent code may have written (a service worker, Cache Storage:
 *     they outlive the page that wrote them and can make the site's pages later) until the daemon cleaned it
 *     (site-storage.ts).
 *
 * A document is the main frame's document of a tab, known by its loader id (one per document: a same-document
 * navigation such as pushState keeps it, a new document or a crash replaces it, closing the tab ends it). A
 * value filled into a child frame is held against the whole page, which lives at least as long as the frame.
 * The value is also held by the tab's history entry: going back to it brings the document back whole (the
 * back-forward cache) or loads it again with its text fields refilled by the browser (form restoration), so
 * any document shown in that entry holds the value too.
 * The checks and the marks they guard are made together, with nothing awaited in between, so a fill and a
 * script cannot slip past each other.
 */
import type { Tab } from '../browser/tab.js';
import { BrowserdError } from '../../protocol/errors.js';
import { siteOf } from './site-match.js';
import type { AgentStorageStore } from '../../storage/agent-storage.js';
import { markWritten, tabsOnSites, writtenSites } from './site-storage.js';

/** A registrable domain; undefined when the document's site is not known (about:blank ...): it meets every site. */
type Site = string | undefined;

interface TabDocuments {
  /** The main frame's document now (its loader id), kept current by the tab's navigation events. */
  current?: string;
  /** The tab's history entry now (its unique id); undefined while it is being asked after a navigation. */
  entry?: number;
  /** Answers about the entry older than the last navigation are ignored. */
  entryAsks: number;
  /** Documents holding a filled vault value, with the sites of the page and of the frame it went into. */
  secret: Map<string, Site[]>;
  /** History entries whose document held a filled value, with the same sites. */
  secretEntries: Map<number, Site[]>;
  /** Documents the agent ran a script in (its code may still be running there), with their origins. */
  touched: Map<string, string>;
  ready: Promise<void>;
}

const byTab = new WeakMap<Tab, TabDocuments>();

/**
 * Agent code can outlive the document it ran in. A script the agent ran may have put code into any window it
 * holds a handle to (its opener, the popups it opens, theirs: the tabs linked by openers), and a timed CDP
 * session may have put code into any page of the browser. Planted code cannot be seen, so the tabs it could
 * reach are remembered: no vault value is filled on that site in that browser while any of them, or a popup
 * opened from one of them since, is still open. Closing them ends it; so does a browser restart (no tab of
 * the taint is open until it reopens, with fresh documents).
 */
interface Taint {
  /** The user's browser: user and profile. */
  owner: string;
  /** The browser context the code ran in; undefined for every context (a CDP session). */
  context?: string;
  /** The site the code ran on; '*' for every site. */
  site: Site | '*';
  /** The tabs that may hold the code, grown by opener links as popups come. */
  ids: Set<string>;
  why: 'script' | 'cdp';
}
const taints = new Set<Taint>();
/** The session end each browser's CDP taint was made for: one taint per ended session. */
const cdpSeeded = new Map<string, number>();

const ownerOf = (tab: Tab) => `${tab.record.user}\u0000${tab.record.profile ?? ''}`;

/** Grows `ids` by opener links in both directions (a popup reaches its opener, an opener its popups). */
function growByOpeners(ids: Set<string>, tabs: Tab[]): void {
  for (let grew = true; grew; ) {
    grew = false;
    for (const t of tabs) {
      const o = t.record.opener;
      if (o === undefined || ids.has(o) === ids.has(t.id)) continue;
      ids.add(ids.has(o) ? t.id : o);
      grew = true;
    }
  }
}

/** Remembers that agent code ran in `tab` (on `site`): every tab linked to it by openers may hold it now. */
function taintFromScript(tab: Tab, site: Site, browserTabs: Tab[]): void {
  const ids = new Set([tab.id]);
  growByOpeners(ids, browserTabs);
  taints.add({ owner: ownerOf(tab), context: tab.record.context, site, ids, why: 'script' });
}

/**
 * The open tabs of this browser that may hold code the agent planted on a site the fill reaches, with why;
 * taints none of whose tabs is open any more are forgotten.
 */
function plantedCodeTabs(tab: Tab, sites: Site[], browserTabs: Tab[], cdpEndedAt: number | undefined): { tabs: Tab[]; why: 'script' | 'cdp' } | undefined {
  const owner = ownerOf(tab);
  if (cdpEndedAt !== undefined && cdpSeeded.get(owner) !== cdpEndedAt) {
    cdpSeeded.set(owner, cdpEndedAt);
    // Every tab that was open when the session ended may hold what it left (tab records carry their birth).
    const ids = new Set(browserTabs.filter((t) => Date.parse(t.record.createdAt) <= cdpEndedAt).map((t) => t.id));
    if (ids.size) taints.add({ owner, site: '*', ids, why: 'cdp' });
  }
  let found: { tabs: Tab[]; why: 'script' | 'cdp' } | undefined;
  for (const taint of [...taints]) {
    if (taint.owner !== owner) continue;
    growByOpeners(taint.ids, browserTabs);
    const open = browserTabs.filter((t) => !t.closed && taint.ids.has(t.id));
    if (!open.length) {
      taints.delete(taint);
      continue;
    }
    // A script's taint on a tab linked to no other is the document check's business (touched, below): its code
    // went with its document, and going back to that document finds it marked.
    if (taint.why === 'script' && taint.ids.size < 2) continue;
    if (taint.context !== undefined && taint.context !== tab.record.context) continue;
    if (taint.site !== '*' && !sites.some((s) => meets(s, taint.site as Site))) continue;
    found ??= { tabs: open, why: taint.why };
  }
  return found;
}

/**
 * Starts following a tab's documents (once); resolves when its current document is known. A document the agent
 * ran a script in that comes back whole from history (the back-forward cache) runs that code again: its site's
 * storage counts as written again from then (site-storage.ts).
 */
async function follow(tab: Tab, storage: AgentStorageStore): Promise<TabDocuments> {
  let docs = byTab.get(tab);
  if (!docs) {
    const d: TabDocuments = { secret: new Map(), secretEntries: new Map(), touched: new Map(), entryAsks: 0, ready: Promise.resolve() };
    let navigated = false;
    // Subscribed before asking, so a navigation that commits meanwhile is not lost behind the answer.
    tab.onPageEvents((e) => {
      if (e.kind !== 'navigated') return;
      d.current = e.loaderId;
      navigated = true;
      const back = d.touched.get(e.loaderId);
      if (back) void markWritten(storage, tab.record, [back])?.catch(() => undefined);
      void askEntry(tab, d).catch(() => undefined);
    });
    d.ready = Promise.all([
      tab.send('Page.getFrameTree', {}).then((r) => {
        if (!navigated) d.current = r.frameTree.frame.loaderId;
      }),
      askEntry(tab, d),
    ]).then(() => undefined);
    d.ready.catch(() => byTab.delete(tab));
    byTab.set(tab, d);
    docs = d;
  }
  await docs.ready;
  return docs;
}

/** Asks which history entry the tab shows; until the answer comes, the entry is unknown (undefined). */
async function askEntry(tab: Tab, d: TabDocuments): Promise<number | undefined> {
  const ask = ++d.entryAsks;
  d.entry = undefined;
  const h = await tab.send('Page.getNavigationHistory', {});
  if (ask === d.entryAsks) d.entry = h.entries[h.currentIndex]?.id;
  return d.entry;
}

/** The site of a page address; blob: URLs carry their origin inside. */
export function siteOfUrl(url: string): Site {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.protocol === 'blob:') return siteOfUrl(u.pathname);
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname) return undefined;
  return siteOf(u.hostname.replace(/^\[|\]$/g, ''));
}

function siteOfHost(host: string): Site {
  return host ? siteOf(host.replace(/^\[|\]$/g, '')) : undefined;
}

/** Two documents may reach each other's DOM when their sites are the same or either is unknown. */
function meets(a: Site, b: Site): boolean {
  return a === undefined || b === undefined || a === b;
}

/** The sites of the filled value the tab's current document holds; undefined when it holds none (or is gone). */
function heldSites(tab: Tab): Site[] | undefined {
  const d = byTab.get(tab);
  if (!d || tab.closed) return undefined;
  const byDocument = d.current === undefined ? undefined : d.secret.get(d.current);
  if (byDocument) return byDocument;
  if (!d.secretEntries.size) return undefined;
  // While the entry is not known yet, the tab may be showing one that holds a value: it is taken to.
  if (d.entry === undefined) return [...d.secretEntries.values()].flat();
  return d.secretEntries.get(d.entry);
}

function entryPending(tab: Tab): boolean {
  const d = byTab.get(tab);
  return !!d && !tab.closed && d.entry === undefined && d.secretEntries.size > 0;
}

/**
 * Waits until every tab that once held a value knows which history entry it shows: a tab that just navigated
 * away counts as still holding the value until then (the checks fail closed), which would refuse for nothing.
 */
export async function settleDocuments(browserTabs: Iterable<Tab>): Promise<void> {
  await Promise.all([...browserTabs].map((t) => entryPending(t) && askEntry(t, byTab.get(t)!).catch(() => undefined)));
}

/** Keys that send a form or move on, and edit no value: all a sign-in needs after a fill. */
const PASSING_KEYS = new Set(['Enter', 'Tab', 'Escape']);

/**
 * Refuses keyboard input the agent chose (`key` for one press, none for typed text) in a tab whose document holds
 * a filled vault value: only Enter, Tab and Escape without modifiers go through there.
 */
export async function assertNoEditingKeys(tab: Tab, chord?: { key: { key: string }; modifiers: string[] }): Promise<void> {
  if (chord && !chord.modifiers.length && PASSING_KEYS.has(chord.key.key)) return;
  await settleDocuments([tab]);
  if (!holdsSecret(tab)) return;
  throw new BrowserdError('refused', `${tab.id} holds a value filled from the vault: ${chord ? 'only Enter, Tab and Escape are pressed' : 'nothing is typed'} in a page that holds one, since keys could edit the value into parts the page shows back`, {
    next: `Send the form (browser_press Enter or browser_click on its button), type the other fields before filling the vault value, or navigate ${tab.id} away first.`,
  });
}

/** Whether the tab shows a document that holds a filled vault value (screenshots mask it then). */
export function holdsSecret(tab: Tab): boolean {
  return heldSites(tab) !== undefined;
}

/** Whether the tab's current document runs code the agent wrote, and how. */
function agentCodeIn(tab: Tab): 'script' | 'mock' | undefined {
  if (tab.closed) return undefined;
  if (tab.routes.writesResponses) return 'mock';
  const d = byTab.get(tab);
  return d && d.current !== undefined && d.touched.has(d.current) ? 'script' : undefined;
}

function sameContext(tab: Tab, browserTabs: Iterable<Tab>): Tab[] {
  const out = new Set<Tab>([tab]);
  for (const t of browserTabs) if (t.record.context === tab.record.context) out.add(t);
  return [...out];
}

/** Whether any tab of this browser holds a filled vault value now (timed CDP sessions are refused then). */
export function browserHoldsSecret(browserTabs: Iterable<Tab>): Tab | undefined {
  for (const t of browserTabs) if (heldSites(t)) return t;
  return undefined;
}

/** The refusal for raw CDP on a browser that holds a filled value, or undefined when it holds none. */
export function cdpRefusal(browserTabs: Iterable<Tab>): BrowserdError | undefined {
  const holder = browserHoldsSecret(browserTabs);
  if (!holder) return undefined;
  return new BrowserdError('refused', `tab ${holder.id} holds a value filled from the vault: no CDP session runs on this browser while it does`, {
    next: `Finish the sign-in or navigate ${holder.id} to another page (or close it), then start the session again.`,
  });
}

/**
 * Before an agent's script runs in `tab`: refuses when a document holding a filled value is within its reach,
 * else marks the tab's document as running agent code and returns a guard to put in front of the script. The
 * guard makes the script throw unless it runs in the very document that was checked (the page could move to
 * another document, even back to one holding a value, between this check and the script).
 */
export async function admitAgentScript(tab: Tab, browserTabs: Iterable<Tab>, storage: AgentStorageStore): Promise<string> {
  const docs = await follow(tab, storage);
  const context = sameContext(tab, browserTabs);
  await settleDocuments(context);
  const checked = docs.current;
  const stamp = await tab.call('documentStamp');
  // The document's origin (an about:blank page has its opener's): the storage the script can write.
  const { frameTree } = await tab.send('Page.getFrameTree', {});
  if (checked === undefined || docs.current !== checked || frameTree.frame.loaderId !== checked || typeof stamp !== 'number' || !Number.isFinite(stamp)) {
    throw new BrowserdError('action_failed', `the page in ${tab.id} was changing documents, so the script was not run`, { next: 'Wait for the page to settle (browser_wait) and run it again.' });
  }
  // Nothing is awaited from here to the mark: no fill can land between the check and it.
  const reach = siteOfUrl(tab.url);
  for (const t of context) {
    const sites = heldSites(t);
    if (!sites || (t !== tab && !sites.some((s) => meets(s, reach)))) continue;
    throw new BrowserdError(
      'refused',
      t === tab
        ? `${tab.id} holds a value filled from the vault: no script runs in a page that holds one`
        : `${t.id} holds a value filled from the vault and ${tab.id} is on the same site, where a script could reach it: no script runs there`,
      { next: `Finish the sign-in (send the form) or navigate ${t.id} to another page, or close it; then run the script again. Read the page with browser_snapshot meanwhile.` },
    );
  }
  docs.touched.set(checked, frameTree.frame.securityOrigin ?? '');
  taintFromScript(tab, reach, [...context]);
  const written = markWritten(storage, tab.record, [frameTree.frame.securityOrigin ?? '']);
  // On disk before the script runs: what it writes outlives a restart of the daemon.
  await written;
  return `if (globalThis.performance?.timeOrigin !== ${JSON.stringify(stamp)}) throw new Error('browserd: the page moved to another document; the script was not run');\n`;
}

export interface FillPlace {
  /** The host of the frame holding the field. */
  fieldHost: string;
  /** Whether a timed CDP session is open on this browser, asked at the moment of the decision. */
  cdpSessionOpen: () => boolean;
  /** When the last timed CDP session on this browser ended (ms), if one did since the daemon started. */
  cdpSessionEndedAt?: () => number | undefined;
  /** Which sites' storage agent code may have written (site-storage.ts). */
  storage: AgentStorageStore;
}

/**
 * Before a vault value (or code) goes into `tab`: refuses while agent code could read it (a live script of the
 * agent on the same site, mock routes anywhere in the browser context, a timed CDP session), else marks the
 * document as holding it. Marked before the value goes in, so nothing that starts meanwhile sees a clean page.
 */
export async function admitSecretFill(tab: Tab, browserTabs: Iterable<Tab>, place: FillPlace): Promise<void> {
  const docs = await follow(tab, place.storage);
  const doc = docs.current;
  const entry = await askEntry(tab, docs);
  if (doc === undefined || entry === undefined || docs.current !== doc) {
    throw new BrowserdError('action_failed', `the page in ${tab.id} was changing documents, so nothing was filled`, { next: 'Wait for the page to settle (browser_wait) and try again.' });
  }
  // Nothing is awaited from here to the mark.
  if (place.cdpSessionOpen()) {
    throw new BrowserdError('refused', 'a timed CDP session is open on this browser: no vault value is filled while one is', {
      next: 'Stop it with browser_sessions{action:"stop", id} (or wait until it ends), then fill again.',
    });
  }
  const sites = [siteOfUrl(tab.url), siteOfHost(place.fieldHost)];
  const all = [...browserTabs];
  const planted = plantedCodeTabs(tab, sites, all, place.cdpSessionEndedAt?.());
  if (planted) {
    const names = planted.tabs.map((t) => t.id).join(', ');
    throw new BrowserdError(
      'refused',
      planted.why === 'cdp'
        ? `a timed CDP session ran on this browser while ${names} ${planted.tabs.length > 1 ? 'were' : 'was'} open, and code it left there could read the value: no vault value is filled while ${planted.tabs.length > 1 ? 'they are' : 'it is'} open`
        : `a script you ran (browser_evaluate) could have left code in ${names} (the tab it ran in and the tabs linked to it as opener or popup), on the same site: no vault value is filled while ${planted.tabs.length > 1 ? 'they are' : 'it is'} open`,
      { next: `Close ${names} (browser_close_tab), then open the sign-in page in a new tab and fill there.` },
    );
  }
  for (const t of sameContext(tab, all)) {
    const code = agentCodeIn(t);
    if (code === 'mock') {
      throw new BrowserdError('refused', `${t.id} answers requests with your own responses (browser_route mocks), which can run code in any page of this browser: no vault value is filled meanwhile`, {
        next: `Close ${t.id} (browser_close_tab) and fill in a tab without mock routes.`,
      });
    }
    if (code === 'script' && (t === tab || sites.some((s) => meets(s, siteOfUrl(t.url))))) {
      throw new BrowserdError('refused', `a script you ran (browser_evaluate) may still be running in ${t.id}${t === tab ? '' : `, on the same site as ${tab.id}`}: no vault value is filled where it could read it`, {
        next: `Navigate ${t.id} to a new page (browser_navigate) or close it, then fill again.`,
      });
    }
  }
  const written = writtenSites(place.storage, tab.record, sites);
  if (written.length) {
    const names = written.join(' and ');
    const others = tabsOnSites(tab.record, written, all).filter((t) => t !== tab).map((t) => t.id);
    throw new BrowserdError(
      'refused',
      `code you ran (browser_evaluate, a mock, a CDP session) may have left a service worker or cached pages in the storage of ${names}, which may have made this page: no vault value is filled there until browserd cleans that storage, which it does when it opens a page of the site (browser_navigate, browser_open, browser_login) while no other tab of this context shows it${others.length ? `; ${others.join(', ')} ${others.length > 1 ? 'do' : 'does'}` : ''}`,
      { next: `${others.length ? `Close ${others.join(', ')} (browser_close_tab) or navigate ${others.length > 1 ? 'them' : 'it'} to another site, then o` : 'O'}pen the sign-in page again with browser_navigate in ${tab.id} (or use browser_login), and fill there.` },
    );
  }
  docs.secret.set(doc, [...(docs.secret.get(doc) ?? []), ...sites]);
  docs.secretEntries.set(entry, [...(docs.secretEntries.get(entry) ?? []), ...sites]);
}

/**
 * Before a mock route is added to `tab`: its responses could be script in any frame of any site, so none is
 * added while a document of the browser context holds a filled value.
 */
export function assertNoSecretForMocks(tab: Tab, browserTabs: Iterable<Tab>): void {
  for (const t of sameContext(tab, browserTabs)) {
    if (!heldSites(t)) continue;
    throw new BrowserdError('refused', `${t.id} holds a value filled from the vault: no mock route is added while it does`, {
      next: `Finish the sign-in or navigate ${t.id} to another page (or close it), then add the route.`,
    });
  }
}
