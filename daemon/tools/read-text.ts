/** Reading text: the visible text of a tab or one element. */
import { Type } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { IncludeHiddenParam, params, RefParam, TabParam } from '../../protocol/params.js';
import { pageUrl, urlLine } from '../call/response.js';
import { TabIdField, UrlField } from '../call/output.js';

const MAX_DEFAULT = 50000;

export const readTools = [
  defineTool({
    name: 'browser_read_text',
    title: 'Read visible text',
    description: 'The visible text of the page or of one element (ref), in reading order, frames included.',
    input: params({
      tab: TabParam,
      ref: Type.Optional(RefParam()),
      includeHidden: IncludeHiddenParam,
      maxChars: Type.Optional(Type.Integer({ description: 'Default 50000.', minimum: 1, maximum: 200000 })),
    }),
    // The text itself is page text in the fenced text block.
    output: Type.Object({
      tab: TabIdField,
      url: UrlField,
      chars: Type.Integer({ description: 'Length of the whole text, before any cut.' }),
      truncated: Type.Boolean({ description: 'The text was cut at maxChars.' }),
    }),
    effect: 'read',
    async handle(ctx, args, out) {
      const tab = await ctx.tab(args.tab);
      const r = await tab.call('readText', { includeHidden: args.includeHidden, ref: args.ref });
      const max = args.maxChars ?? MAX_DEFAULT;
      const cut = r.text.length > max;
      const text = cut ? r.text.slice(0, max) : r.text;
      out.set('tab', tab.id).set('url', r.url).set('chars', r.text.length).set('truncated', cut);
      out.text(`Text of ${tab.id} at ${pageUrl(r.url)}${cut ? ` (cut at ${max} of ${r.text.length} characters)` : ''}:`);
      out.page(`text of ${tab.id}`, `${urlLine(r.url)}title: ${r.title}\n${text}`);
    },
  }),
];
