/**
 * A site's shape and what was learned about it: browser_map lists URLs without reading pages, browser_explore
 * reads a few pages read-only and remembers what they are for, browser_recall gives that back with notes,
 * browser_remember keeps a note. Memory is per user and per site (www. counts as the same site).
 */
import { Type } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { params, StringEnum } from '../../protocol/params.js';
import { BrowserdError } from '../../protocol/errors.js';
import { checkUrl } from '../net/url-check.js';
import { siteHost } from '../crawl/rules.js';
import { mapSite } from '../site/map.js';
import { exploreSite, type ExploreMap } from '../site/explore.js';
import { scrubList, scrubText } from '../call/redact.js';
import { userSecrets } from '../secrets/user-secrets.js';
import { inline, type ResponseBuilder } from '../call/response.js';
import { PageText, UrlField } from '../call/output.js';

const Patterns = (description: string) => Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), { maxItems: 50, description }));
const SourceChoice = () => StringEnum(['include', 'only', 'skip'], { description: 'Default include.' });
export const MAX_EXPLORE_PAGES = 100;
export const MAX_NOTE_CHARS = 2000;

/** A site map browser_explore built (daemon/site/explore.ts ExploreMap); titles and form names are the pages'. */
const ExploreMapSchema = Type.Object({
  host: Type.String({ description: 'The site (www. counted as the same).' }),
  startUrl: UrlField,
  exploredAt: Type.String(),
  pages: Type.Array(
    Type.Object({
      url: UrlField,
      title: Type.Optional(PageText()),
      kind: Type.Union(['home', 'login', 'search', 'listing', 'article', 'form', 'other'].map((k) => Type.Literal(k))),
      forms: Type.Array(
        Type.Object({
          action: PageText({ description: 'Where it submits, as the page says.' }),
          method: Type.Union([Type.Literal('get'), Type.Literal('post')]),
          fields: Type.Array(Type.Object({ name: PageText(), type: Type.String() })),
          role: Type.Optional(Type.String({ description: 'What the form is for (login, search ...).' })),
        }),
      ),
      links: Type.Integer({ description: 'Same-site links on the page.' }),
    }),
  ),
  failed: Type.Array(Type.Object({ url: UrlField, error: PageText({ description: "Why, with the page's words the error is about." }) }), { description: 'Pages that could not be read, with why.' }),
  summary: Type.Object({
    loginUrl: Type.Optional(UrlField),
    searchUrl: Type.Optional(UrlField),
    searchParam: Type.Optional(PageText({ description: 'The query parameter the search form sends (GET).' })),
    listings: Type.Array(UrlField, { description: 'URLs of listing pages.' }),
    articles: Type.Integer({ description: 'How many article pages were found.' }),
  }),
});

/** A host name or a URL -> the site key memory is kept under. */
/** The longest DNS name. */
const MAX_HOST_CHARS = 253;

function hostOf(input: string): string {
  const s = input.trim();
  let host: string;
  try {
    host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(s) ? s : `http://${s}`).hostname;
  } catch {
    throw new BrowserdError('validation_error', `"${s.slice(0, 100)}" is not a host name or URL`, { next: 'Give a host such as "example.com" or a URL on the site.' });
  }
  if (!host) throw new BrowserdError('validation_error', 'the host is empty', { next: 'Give a host such as "example.com".' });
  // A DNS name is at most 253 characters; the site's memory is stored under it (an LMDB key, bounded too).
  if (host.length > MAX_HOST_CHARS) throw new BrowserdError('validation_error', `the host name is ${host.length} characters; a host name has at most ${MAX_HOST_CHARS}`, { next: 'Give the site\'s host name, such as "example.com".' });
  return siteHost(host);
}

function describeMap(out: ResponseBuilder, map: ExploreMap) {
  const s = map.summary;
  out.text(`Site ${map.host}: ${map.pages.length} page(s) explored ${map.exploredAt}${map.failed.length ? `, ${map.failed.length} could not be read` : ''}.`);
  // The addresses (and the search parameter) are what the site's pages link to: page data, fenced.
  out.page(`what the pages of ${map.host} point to`, `Sign-in: ${s.loginUrl ?? 'not found'}. Search: ${s.searchUrl ? `${s.searchUrl}${s.searchParam ? ` (parameter ${s.searchParam})` : ''}` : 'not found'}. Listings: ${s.listings.length ? s.listings.join(', ') : 'none'}. Articles: ${s.articles}.`);
  out.page(
    `site map of ${map.host}`,
    map.pages
      .map((p) => `${p.kind.padEnd(7)} ${p.url}${p.title ? ` — ${p.title}` : ''}${p.forms.length ? ` [forms: ${p.forms.map((f) => `${f.method.toUpperCase()} ${f.action} (${f.fields.map((x) => `${x.name}:${x.type}`).join(', ')})`).join('; ')}]` : ''}`)
      .join('\n'),
  );
}

export const siteTools = [
  defineTool({
    name: 'browser_map',
    title: 'List a site\'s URLs',
    description:
      "A site's URLs from its sitemaps, feeds and start page links, without reading pages; query ranks them (BM25).",
    input: params({
      url: Type.String({ minLength: 1, maxLength: 8192 }),
      query: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 5000, description: 'Default 100.' })),
      sitemap: Type.Optional(SourceChoice()),
      includeSubdomains: Type.Optional(Type.Boolean()),
      allow: Patterns('URL patterns (* wildcard; with :// the whole URL, else the path).'),
      deny: Patterns('Wins over allow.'),
      useBrowser: Type.Optional(Type.Boolean({ description: 'Start page in a read-only tab of your profile.' })),
      feeds: Type.Optional(SourceChoice()),
    }),
    output: Type.Object({
      urls: Type.Array(
        Type.Object({
          url: UrlField,
          source: Type.Union([Type.Literal('link'), Type.Literal('sitemap'), Type.Literal('feed')]),
          title: Type.Optional(PageText({ description: "The link's text or the entry's title, as the site gives it." })),
          score: Type.Optional(Type.Number({ description: 'Relevance to query (BM25).' })),
        }),
        { description: 'Best matches first when query is given.' },
      ),
      found: Type.Object({ link: Type.Integer(), sitemap: Type.Integer(), feed: Type.Integer() }, { description: 'URLs each source gave before filtering and the limit.' }),
      disallowed: Type.Integer({ description: 'URLs left out by robots.txt.' }),
    }),
    effect: 'read',
    needsBrowser: false,
    async handle(ctx, args, out) {
      const url = checkUrl(args.url, ctx.env.cfg);
      if (url === 'about:blank') throw new BrowserdError('validation_error', 'give the site\'s address', { next: 'Pass {"url": "https://example.com/"}.' });
      const result = await mapSite(ctx.env, ctx.user.id, {
        url,
        query: args.query,
        limit: args.limit ?? 100,
        sitemap: args.sitemap ?? 'include',
        feeds: args.feeds ?? 'include',
        includeSubdomains: args.includeSubdomains ?? false,
        allow: args.allow ?? [],
        deny: args.deny ?? [],
        browser: args.useBrowser ? () => ctx.browser() : undefined,
        signal: ctx.signal,
      });
      out.set('urls', result.urls);
      out.set('found', result.found);
      out.set('disallowed', result.disallowed);
      const f = result.found;
      out.text(`${result.urls.length} URL(s) of ${inline(new URL(url).host)} (found: ${f.link} on the page, ${f.sitemap} in sitemaps, ${f.feed} in feeds; ${result.disallowed} left out by robots.txt)${args.query ? ', best matches first' : ''}:`);
      if (result.urls.length) out.page(`URLs of ${new URL(url).host}`, result.urls.map((u) => `${u.url} (${u.source})${u.title ? ` ${u.title}` : ''}`).join('\n'));
    },
  }),
  defineTool({
    name: 'browser_explore',
    title: 'Explore a site read-only',
    description:
      'Reads pages of one site in a read-only tab (never a link that would act) and answers a map: each page\'s kind and forms, where sign-in, search and listings are. Kept for browser_recall.',
    input: params({
      url: Type.String({ minLength: 1, maxLength: 8192 }),
      maxPages: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_EXPLORE_PAGES, description: 'Default 25.' })),
    }),
    output: Type.Object({ map: ExploreMapSchema }),
    effect: 'read',
    hints: { readOnly: false, idempotent: true },
    async handle(ctx, args, out) {
      const url = checkUrl(args.url, ctx.env.cfg);
      if (url === 'about:blank') throw new BrowserdError('validation_error', 'give the site\'s address', { next: 'Pass {"url": "https://example.com/"}.' });
      // The map is remembered under the host: bounded like browser_remember's, before any page is read.
      hostOf(url);
      const tab = await (await ctx.browser()).scratchTab();
      let map: ExploreMap;
      try {
        map = await exploreSite(tab, url, args.maxPages ?? 25, ctx.signal);
      } finally {
        await tab.close().catch(() => undefined);
      }
      ctx.checkCancelled();
      await ctx.env.siteMemory.saveMap(ctx.user.id, map.host, map);
      out.set('map', map);
      describeMap(out, map);
      out.text(`Remembered: browser_recall {"host": "${map.host}"} gives this map back with your notes.`);
    },
  }),
  defineTool({
    name: 'browser_recall',
    title: 'Recall a site',
    description: "A site's map (browser_explore) and notes (browser_remember).",
    input: params({ host: Type.String({ minLength: 1, maxLength: 2048, description: 'Host or URL.' }) }),
    output: Type.Object({
      host: Type.String({ description: 'The site memory is kept under.' }),
      memory: Type.Optional(
        Type.Object(
          {
            host: Type.String(),
            map: Type.Optional(ExploreMapSchema),
            exploredAt: Type.Optional(Type.String()),
            notes: Type.Array(Type.Object({ note: PageText({ description: 'A note stored with browser_remember.' }), at: Type.String() })),
          },
          { description: 'Absent when nothing is remembered about the site.' },
        ),
      ),
    }),
    effect: 'read',
    openWorld: false,
    needsBrowser: false,
    async handle(ctx, args, out) {
      const host = hostOf(args.host);
      const m = ctx.env.siteMemory.get(ctx.user.id, host);
      out.set('host', host);
      if (!m) {
        out.text(`Nothing is remembered about ${inline(host)}. Build a map with browser_explore {"url": "https://${host}/"}, or store a note with browser_remember.`);
        return;
      }
      out.set('memory', m);
      if (m.map) describeMap(out, m.map as ExploreMap);
      else out.text(`No map of ${inline(host)} yet (browser_explore builds one).`);
      if (m.notes.length) out.page(`notes about ${host}`, m.notes.map((n) => `${n.at}: ${n.note}`).join('\n'));
      else out.text('No notes.');
    },
  }),
  defineTool({
    name: 'browser_remember',
    title: 'Remember about a site',
    description: 'Stores a note about a site for browser_recall (100 newest kept). Never secrets.',
    input: params({
      host: Type.String({ minLength: 1, maxLength: 2048, description: 'Host or URL.' }),
      note: Type.String({ minLength: 1, maxLength: MAX_NOTE_CHARS }),
    }),
    output: Type.Object({ host: Type.String({ description: 'The site the note is kept under.' }), notes: Type.Integer({ description: 'Notes now kept about the site.' }) }),
    effect: 'read',
    hints: { readOnly: false, idempotent: false },
    openWorld: false,
    needsBrowser: false,
    async handle(ctx, args, out) {
      const host = hostOf(args.host);
      // A vault value pasted into a note is not kept: memory is read back to models.
      const note = scrubText(args.note, scrubList(userSecrets(ctx.env, ctx.user.id)));
      const m = await ctx.env.siteMemory.addNote(ctx.user.id, host, note);
      out.set('host', host);
      out.set('notes', m.notes.length);
      out.text(`Remembered a note about ${inline(host)} (${m.notes.length} note(s) kept).`);
    },
  }),
];
