/** Finding things on the page: find_text, query (css/xpath/text/regex), similar (repeated items). */
import { Type } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { IncludeHiddenParam, params, RefParam, TabParam } from '../../protocol/params.js';
import { BrowserdError } from '../../protocol/errors.js';
import { PageText, TabIdField } from '../call/output.js';

export const QUERY_MAX_LIMIT = 500;
export const QUERY_MAX_ATTR = 20;

/**
 * A locator quotes the page's own ids, classes and attribute values (an aria-label or placeholder of up to 120
 * characters), so it is page text like the element's words: fenced over MCP, as it is in the text block.
 */
const Locator = (description: string) => PageText({ description });

const FindTextMatch = Type.Object({
  ref: Type.String({ description: 'The element holding the match.' }),
  text: PageText({ description: 'The matched text as the page has it.' }),
  context: PageText({ description: 'The text around the match.' }),
});

const QueryMatch = Type.Object({
  ref: Type.String(),
  tag: PageText({ description: 'Tag name, lower case (a page may name its own elements).' }),
  text: PageText({ description: "The element's text (or a control's value or label), cut." }),
  attrs: Type.Record(Type.String(), Type.Union([PageText(), Type.Null()]), { description: 'The attributes asked for by attr; null where the element has none.' }),
  locator: Locator('A stable CSS locator for the element (" >>> " into shadow roots and frames).'),
});

const SimilarItem = Type.Object({
  ref: Type.String(),
  locator: Locator('A CSS locator for this item.'),
  text: PageText({ description: "The item's text, cut." }),
  fields: Type.Record(Type.String(), PageText(), { description: 'Labelled parts of the item (title, link, price, image...) as found on it.' }),
});

export const queryTools = [
  defineTool({
    name: 'browser_find_text',
    title: 'Find text',
    description: 'Finds visible text (case-insensitive, frames too), scrolls the first match into view, answers a ref per match.',
    input: params({
      text: Type.String({ minLength: 1, maxLength: 1000 }),
      limit: Type.Optional(Type.Integer({ description: 'Default 20.', minimum: 1, maximum: 100 })),
      includeHidden: IncludeHiddenParam,
      tab: TabParam,
    }),
    output: Type.Object({ tab: TabIdField, matches: Type.Array(FindTextMatch) }),
    effect: 'read',
    async handle(ctx, args, out) {
      const tab = await ctx.tab(args.tab);
      const r = await tab.call('findText', { text: args.text, limit: args.limit ?? 20, includeHidden: args.includeHidden });
      out.set('tab', tab.id).set('matches', r.matches);
      out.text(`${r.matches.length} match(es) for the text in ${tab.id}${r.matches.length ? '; the first is scrolled into view' : ''}.`);
      if (r.matches.length) out.page(`matches in ${tab.id}`, r.matches.map((m) => `[ref=${m.ref}] ${m.context}`).join('\n'));
    },
  }),
  defineTool({
    name: 'browser_query',
    title: 'Query elements',
    description:
      'Elements by exactly one of css, xpath, text (case-insensitive) or regex (JavaScript, no slashes), frames too; each with ref, tag, text, asked attributes and a CSS locator.',
    input: params({
      css: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
      xpath: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
      text: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
      regex: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
      flags: Type.Optional(Type.String({ description: 'Any of i, m, s, u.', pattern: '^(?!.*(.).*\\1)[imsu]{0,4}$' })),
      attr: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: QUERY_MAX_ATTR })),
      limit: Type.Optional(Type.Integer({ description: 'Default 50.', minimum: 1, maximum: QUERY_MAX_LIMIT })),
      scope: Type.Optional(Type.String({ description: 'CSS selector.', minLength: 1, maxLength: 2000 })),
      includeHidden: IncludeHiddenParam,
      tab: TabParam,
    }),
    output: Type.Object({
      tab: TabIdField,
      matches: Type.Array(QueryMatch, { description: 'The first `limit` matches in document order.' }),
      total: Type.Integer({ description: 'Every match, not only those returned.' }),
      more: Type.Boolean({ description: 'There were more matches than returned.' }),
    }),
    effect: 'read',
    async handle(ctx, args, out) {
      const given = ['css', 'xpath', 'text', 'regex'].filter((k) => (args as any)[k] !== undefined);
      if (given.length !== 1) throw new BrowserdError('validation_error', `browser_query takes exactly one of css, xpath, text, regex (got ${given.length ? given.join(', ') : 'none'})`, { next: 'Pass one of them.' });
      if (args.flags !== undefined && !args.regex) throw new BrowserdError('validation_error', 'flags go with regex only', { next: 'Drop flags or use regex.' });
      if (args.regex) {
        try {
          new RegExp(args.regex, args.flags);
        } catch (e) {
          throw new BrowserdError('validation_error', `bad regex: ${(e as Error).message}`, { next: 'Fix the expression (JavaScript syntax, no slashes).' });
        }
      }
      const tab = await ctx.tab(args.tab);
      const limit = args.limit ?? 50;
      const r = await tab.call('query', { css: args.css, xpath: args.xpath, text: args.text, regex: args.regex, flags: args.flags, attr: args.attr, limit, scope: args.scope, includeHidden: args.includeHidden });
      out.set('tab', tab.id).set('matches', r.matches).set('total', r.total).set('more', r.total > r.matches.length);
      out.text(`${r.total} match(es) in ${tab.id}${r.total > r.matches.length ? `; showing the first ${r.matches.length} (raise limit, up to ${QUERY_MAX_LIMIT}, or narrow with scope)` : ''}.`);
      if (r.matches.length) {
        out.page(
          `query matches in ${tab.id}`,
          r.matches.map((m) => `[ref=${m.ref}] <${m.tag}> ${m.locator} :: ${m.text}${Object.keys(m.attrs).length ? ` ${JSON.stringify(m.attrs)}` : ''}`).join('\n'),
        );
      }
    },
  }),
  defineTool({
    name: 'browser_similar',
    title: 'Similar elements',
    description: 'Every item like the one holding ref (a list, grid or cards), with its fields (title, link, price, image...) and a locator.',
    input: params({ ref: RefParam(), limit: Type.Optional(Type.Integer({ description: 'Default 100.', minimum: 1, maximum: 500 })), includeHidden: IncludeHiddenParam, tab: TabParam }),
    output: Type.Object({
      tab: TabIdField,
      items: Type.Array(SimilarItem, { description: 'The first `limit` items.' }),
      total: Type.Integer({ description: 'Every item of the pattern, not only those returned.' }),
      itemLocator: Locator('A CSS locator matching every item of the pattern.'),
    }),
    effect: 'read',
    async handle(ctx, args, out) {
      const tab = await ctx.tab(args.tab);
      const r = await tab.call('similar', { ref: args.ref, limit: args.limit ?? 100, includeHidden: args.includeHidden });
      out.set('tab', tab.id).set('items', r.items).set('total', r.total).set('itemLocator', r.itemLocator);
      // The item locator is built from the page's class names: page text, so it goes inside the fence.
      out.text(`${r.total} similar item(s)${r.total > r.items.length ? `, showing ${r.items.length}` : ''}; the first fenced line is their locator.`);
      out.page(`similar items in ${tab.id}`, `item locator: ${r.itemLocator}\n` + r.items.map((it, i) => `${i + 1}. [ref=${it.ref}] ${Object.entries(it.fields).map(([k, v]) => `${k}: ${v}`).join(' | ') || it.text}`).join('\n'));
    },
  }),
];
