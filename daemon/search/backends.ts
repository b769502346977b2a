/**
 * Web search backends, set by the admin: a SearXNG instance (BROWSERD_SEARXNG_URL, its JSON API) or the Brave
 * Search API (BROWSERD_BRAVE_API_KEY; BROWSERD_BRAVE_URL overrides the endpoint). Results: title, URL, snippet.
 */
import { BrowserdError } from '../../protocol/errors.js';

export interface SearchResult { title: string; url: string; snippet: string }
export interface SearchBackend { name: string; search(q: string, opts: { limit: number; language?: string; signal?: AbortSignal }): Promise<SearchResult[]> }

const TIMEOUT_MS = 15000;

async function getJson(url: string, headers: Record<string, string>, signal?: AbortSignal): Promise<any> {
  const res = await fetch(url, { headers: { Accept: 'application/json', ...headers }, signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)]) : AbortSignal.timeout(TIMEOUT_MS), redirect: 'error' }).catch((e) => {
    throw new BrowserdError('action_failed', `the search backend did not answer: ${e.message}`, { next: 'Try again later; if it persists, tell the admin.' });
  });
  if (!res.ok) throw new BrowserdError('action_failed', `the search backend answered HTTP ${res.status}`, { next: res.status === 429 ? 'Wait a minute and try again.' : 'Tell the admin: the backend refused the query.' });
  return res.json().catch(() => {
    throw new BrowserdError('action_failed', 'the search backend answered something that is not JSON', { next: 'Tell the admin to check the backend URL (SearXNG needs format=json enabled).' });
  });
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');

export function searxng(base: string): SearchBackend {
  return {
    name: 'searxng',
    async search(q, { limit, language, signal }) {
      const u = new URL('search', base.endsWith('/') ? base : `${base}/`);
      u.searchParams.set('q', q);
      u.searchParams.set('format', 'json');
      if (language) u.searchParams.set('language', language);
      const body = await getJson(u.toString(), {}, signal);
      const results: any[] = Array.isArray(body?.results) ? body.results : [];
      return results.filter((r) => typeof r?.url === 'string').slice(0, limit).map((r) => ({ title: str(r.title), url: r.url, snippet: str(r.content) }));
    },
  };
}

export function brave(apiKey: string, endpoint = 'https://api.search.brave.com/res/v1/web/search'): SearchBackend {
  return {
    name: 'brave',
    async search(q, { limit, language, signal }) {
      const u = new URL(endpoint);
      u.searchParams.set('q', q);
      u.searchParams.set('count', String(Math.min(limit, 20)));
      if (language) u.searchParams.set('search_lang', language);
      const body = await getJson(u.toString(), { 'X-Subscription-Token': apiKey }, signal);
      const results: any[] = Array.isArray(body?.web?.results) ? body.web.results : [];
      return results.filter((r) => typeof r?.url === 'string').slice(0, limit).map((r) => ({ title: str(r.title), url: r.url, snippet: str(r.description) }));
    },
  };
}

export function backendFromEnv(env: NodeJS.ProcessEnv = process.env): SearchBackend | undefined {
  if (env.BROWSERD_SEARXNG_URL) return searxng(env.BROWSERD_SEARXNG_URL);
  if (env.BROWSERD_BRAVE_API_KEY) return brave(env.BROWSERD_BRAVE_API_KEY, env.BROWSERD_BRAVE_URL);
  return undefined;
}
