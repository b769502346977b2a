/** browser_search: web search through the backend the admin configured. */
import { Type } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { params } from '../../protocol/params.js';
import { BrowserdError } from '../../protocol/errors.js';
import { PageText } from '../call/output.js';

export const searchTools = [
  defineTool({
    name: 'browser_search',
    title: 'Search the web',
    description: 'Web search through the configured backend: title, URL and snippet per result.',
    input: params({
      query: Type.String({ minLength: 1, maxLength: 500 }),
      limit: Type.Optional(Type.Integer({ description: 'Default 10.', minimum: 1, maximum: 50 })),
      language: Type.Optional(Type.String({ description: 'e.g. en, de.', pattern: '^[a-z]{2}(-[A-Z]{2})?$' })),
    }),
    output: Type.Object({
      backend: Type.String({ description: 'The search backend that answered: searxng or brave.' }),
      results: Type.Array(
        Type.Object({
          title: PageText(),
          url: PageText(),
          snippet: PageText({ description: "The result page's words as the backend quotes them." }),
        }),
        { description: 'Best first.' },
      ),
    }),
    effect: 'read',
    needsBrowser: false,
    async handle(ctx, args, out) {
      const backend = ctx.env.search;
      if (!backend) throw new BrowserdError('not_configured', 'no search backend is configured on this host', { next: 'Ask the admin to set BROWSERD_SEARXNG_URL or BROWSERD_BRAVE_API_KEY; meanwhile open a search page with browser_open.' });
      const results = await backend.search(args.query, { limit: args.limit ?? 10, language: args.language, signal: ctx.signal });
      out.set('backend', backend.name).set('results', results);
      out.text(`${results.length} result(s) from ${backend.name}.`);
      if (results.length) out.page('search results', results.map((r, i) => `${i + 1}. ${r.title}\n   ${r.url}\n   ${r.snippet}`).join('\n'));
    },
  }),
];
