/**
 * Reading one page in a read-mode tab of the user's own profile (crawl browser mode): navigate, then take the
 * page's visible HTML from the in-page script, whose visibility check already removed what a person cannot
 * see (unless includeHidden). The tab is read-only, so a crawl on the signed-in profile can never write.
 */
import type { Tab } from '../browser/tab.js';
import type { PageInput } from './types.js';

export async function readInBrowser(tab: Tab, url: string, opts: { includeHidden: boolean }): Promise<PageInput> {
  await tab.navigate(url);
  const page = await tab.call('visibleHtml', { includeHidden: opts.includeHidden });
  const doc = tab.lastDocument;
  return {
    url,
    finalUrl: page.url || doc?.url || url,
    status: doc?.status ?? 200,
    contentType: doc?.mimeType || 'text/html',
    html: page.html,
    via: 'browser',
    visibleOnly: true,
  };
}
