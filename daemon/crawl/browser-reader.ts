/**
 * Reading one page in a read-mode tab of the user's own profile (crawl browser mode): navigate, scroll its list
 * first when the crawl asks (scrollUntil), then take the page's visible HTML from the in-page script, whose
 * visibility check already removed what a person cannot see (unless includeHidden), and collect the files it
 * offers when asked (after the scroll, so links that loaded while scrolling count). The tab is read-only, so a
 * crawl on the signed-in profile can never write; with `hops` (hops.ts), every redirect hop and every navigation
 * the page starts itself is judged before it goes out, and a refused one ends the read with HopRefused.
 */
import type { Tab } from '../browser/tab.js';
import type { PageInput } from './types.js';
import type { CollectOptions, ScrollUntilInput } from '../../protocol/read-params.js';
import { scrollForReading } from '../read/scroll-until.js';
import { collectFiles, type CollectContext } from '../docs/collect.js';
import { HopRefused, type TabHops } from './hops.js';

export interface BrowserReadOptions {
  includeHidden: boolean;
  scrollUntil?: ScrollUntilInput;
  collect?: CollectOptions;
  /** Who collects (the run's user) and until when (the run's stop): needed with collect. */
  collector?: CollectContext;
  signal?: AbortSignal;
  /** The tab's document judge (installed with tab.judgeDocuments): its refusals for this page end the read. */
  hops?: TabHops;
  /** The page is a start URL (hops.ts: allow/deny do not apply to its redirects). */
  start?: boolean;
  /** Keep data-* attributes (bounded) in the HTML: the crawl's field selectors may key on them. */
  dataAttrs?: boolean;
}

/** Throws HopRefused when the tab's judge stopped a hop of this page. */
function stopIfRefused(hops: TabHops | undefined) {
  const why = hops?.refused();
  if (why) throw new HopRefused(why);
}

export async function readInBrowser(tab: Tab, url: string, opts: BrowserReadOptions): Promise<PageInput> {
  const hops = opts.hops;
  hops?.begin(url, opts.start);
  try {
    return await read(tab, url, opts);
  } catch (e) {
    // A refused hop fails the navigation (or the script waiting on the page): the refusal is the reason.
    stopIfRefused(hops);
    throw e;
  } finally {
    hops?.end();
  }
}

async function read(tab: Tab, url: string, opts: BrowserReadOptions): Promise<PageInput> {
  await tab.navigate(url);
  stopIfRefused(opts.hops);
  const scroll = opts.scrollUntil ? await scrollForReading(tab, opts.scrollUntil, opts.signal) : undefined;
  const page = await tab.call('visibleHtml', { includeHidden: opts.includeHidden, dataAttrs: opts.dataAttrs });
  // The page tried to go elsewhere while it was read (a meta refresh, a script): what it is for is that hop.
  stopIfRefused(opts.hops);
  const doc = tab.lastDocument;
  const finalUrl = page.url || doc?.url || url;
  const files = opts.collect && opts.collector ? await collectFiles(opts.collector, tab, finalUrl, opts.collect) : undefined;
  return {
    url,
    finalUrl,
    status: doc?.status ?? 200,
    contentType: doc?.mimeType || 'text/html',
    html: page.html,
    via: 'browser',
    visibleOnly: true,
    ...(scroll ? { scroll } : {}),
    ...(files ? { files } : {}),
  };
}
