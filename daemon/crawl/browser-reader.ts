/**
 * Reading one page in a read-mode tab of the user's own profile (crawl browser mode): navigate, scroll its list
 * first when the crawl asks (scrollUntil), then take the page's visible HTML from the in-page script, whose
 * visibility check already removed what a person cannot see (unless includeHidden), and collect the files it
 * offers when asked (after the scroll, so links that loaded while scrolling count). The tab is read-only, so a
 * crawl on the signed-in profile can never write.
 */
import type { Tab } from '../browser/tab.js';
import type { PageInput } from './types.js';
import type { CollectOptions, ScrollUntilInput } from '../../protocol/read-params.js';
import { scrollForReading } from '../read/scroll-until.js';
import { collectFiles, type CollectContext } from '../docs/collect.js';

export interface BrowserReadOptions {
  includeHidden: boolean;
  scrollUntil?: ScrollUntilInput;
  collect?: CollectOptions;
  /** Who collects (the run's user) and until when (the run's stop): needed with collect. */
  collector?: CollectContext;
  signal?: AbortSignal;
}

export async function readInBrowser(tab: Tab, url: string, opts: BrowserReadOptions): Promise<PageInput> {
  await tab.navigate(url);
  const scroll = opts.scrollUntil ? await scrollForReading(tab, opts.scrollUntil, opts.signal) : undefined;
  const page = await tab.call('visibleHtml', { includeHidden: opts.includeHidden });
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
