/**
 * browser_explore: reads up to maxPages pages of one site breadth-first in a READ tab of the user's own profile
 * (so it sees what the user sees, and can send nothing), and builds a map: what each page is for, its forms,
 * and where sign-in, search and listings are. Sign-out links are never followed, nor any link that would act
 * on the signed-in profile (destructive-links.ts: delete, unsubscribe, add to cart ...): those are listed in
 * `failed` with the reason, unread, and take nothing of maxPages; nor a redirect or a navigation of the page
 * itself to such an address (crawl/hops.ts): the page is then in `failed` with the reason. The map is remembered.
 */
import type { Tab } from '../browser/tab.js';
import { readInBrowser } from '../crawl/browser-reader.js';
import { judgeActions } from '../crawl/hops.js';
import { pageKey, siteHost } from '../crawl/rules.js';
import { looksLikeSignOut } from '../policy/destructive-links.js';
import { pageLinks } from './links.js';
import { destructiveLink, destructiveReason } from '../policy/destructive-links.js';
import { pageFacts, type FormInfo, type PageKind } from './page-kinds.js';
import { BrowserdError } from '../../protocol/errors.js';
import { errorLine, errorString, messageWithPageText } from '../call/error-line.js';

export interface ExploredPage {
  url: string;
  title?: string;
  kind: PageKind;
  forms: FormInfo[];
  /** Same-site links on the page. */
  links: number;
}

export interface ExploreMap {
  host: string;
  startUrl: string;
  exploredAt: string;
  pages: ExploredPage[];
  /** Pages that could not be read, with why. */
  failed: { url: string; error: string }[];
  summary: {
    loginUrl?: string;
    searchUrl?: string;
    /** The query parameter the search form sends (GET). */
    searchParam?: string;
    listings: string[];
    articles: number;
  };
}

export async function exploreSite(tab: Tab, startUrl: string, maxPages: number, signal?: AbortSignal): Promise<ExploreMap> {
  const home = siteHost(new URL(startUrl).hostname);
  const queue = [pageKey(startUrl)];
  const queued = new Set(queue);
  const pages: ExploredPage[] = [];
  const failed: { url: string; error: string }[] = [];
  let skipped = 0;
  const hops = await judgeActions(tab);
  while (queue.length && pages.length + failed.length - skipped < maxPages && !signal?.aborted) {
    const url = queue.shift()!;
    // The start URL is judged here (found links were judged with their text before they were queued): given by
    // the caller, it is still read with the person's cookies.
    const acts = destructiveLink(url);
    if (acts) {
      failed.push({ url, error: destructiveReason(acts) });
      skipped++;
      continue;
    }
    let html: string;
    let finalUrl: string;
    try {
      const page = await readInBrowser(tab, url, { includeHidden: false, hops });
      if (page.status >= 400) throw new BrowserdError('navigation_failed', `the page answered HTTP ${page.status}`);
      html = page.html;
      finalUrl = page.finalUrl;
    } catch (e) {
      // Kept whole (the page's part too): the field is page text, fenced where it is shown.
      const l = errorLine(e);
      failed.push({ url, error: messageWithPageText({ message: errorString(l), pageText: l.pageText }) });
      continue;
    }
    const facts = pageFacts(html, finalUrl);
    const links = pageLinks(html, finalUrl, true).filter((l) => siteHost(new URL(l.url).hostname) === home);
    pages.push({ url, ...(facts.title ? { title: facts.title } : {}), kind: facts.kind, forms: facts.forms, links: links.length });
    for (const l of links) {
      const key = pageKey(l.url);
      if (queued.has(key) || looksLikeSignOut(key)) continue;
      queued.add(key);
      const acts = destructiveLink(l.url, l.text);
      if (acts) {
        failed.push({ url: key, error: destructiveReason(acts) });
        skipped++;
      } else queue.push(key);
    }
  }
  const login = pages.find((p) => p.kind === 'login');
  const search = pages.find((p) => p.kind === 'search');
  const searchForm = search?.forms.find((f) => f.method === 'get');
  const searchParam = searchForm?.fields.find((x) => x.type === 'search' || /^(q|query|search|s|keywords?|term|k)$/i.test(x.name))?.name;
  return {
    host: home,
    startUrl,
    exploredAt: new Date().toISOString(),
    pages,
    failed,
    summary: {
      ...(login ? { loginUrl: login.url } : {}),
      ...(search ? { searchUrl: searchForm?.action ?? search.url } : {}),
      ...(searchParam ? { searchParam } : {}),
      listings: pages.filter((p) => p.kind === 'listing').map((p) => p.url),
      articles: pages.filter((p) => p.kind === 'article').length,
    },
  };
}
