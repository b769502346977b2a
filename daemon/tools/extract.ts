/** browser_extract: tables, links, meta, forms and images as data. */
import { Type } from '@sinclair/typebox';
import { defineTool } from './define.js';
import { IncludeHiddenParam, params, TabParam, StringEnum } from '../../protocol/params.js';

export const EXTRACT_MAX_LIMIT = 5000;

function render(kind: string, items: any[]): string {
  switch (kind) {
    case 'tables':
      return items.map((t, i) => `table ${i + 1}${t.caption ? ` "${t.caption}"` : ''} (${t.rows.length} rows) ${t.locator}\n| ${t.headers.join(' | ')} |\n${t.rows.slice(0, 50).map((r: string[]) => `| ${r.join(' | ')} |`).join('\n')}${t.rows.length > 50 ? `\n… ${t.rows.length - 50} more rows in the JSON result` : ''}`).join('\n\n');
    case 'links':
      return items.map((l) => `${l.text} -> ${l.href}`).join('\n');
    case 'meta':
      return items.map((m) => `${m.name}: ${m.content}`).join('\n');
    case 'form':
      return items.map((f) => `form ${f.locator} ${f.method ?? 'get'} ${f.action ?? ''}\n${f.fields.map((x: any) => `  ${x.ref ? `[ref=${x.ref}] ` : ''}${x.type} ${x.name || '(no name)'} "${x.label}" = ${JSON.stringify(x.value)}${x.options ? ` options: ${x.options.join(', ')}` : ''}`).join('\n')}`).join('\n\n');
    default:
      return items.map((im) => `${im.source} ${im.src} alt="${im.alt}" ${im.width}x${im.height}${im.link ? ` link ${im.link}` : ''}${im.context ? ` — ${im.context}` : ''}`).join('\n');
  }
}

export const extractTools = [
  defineTool({
    name: 'browser_extract',
    title: 'Extract data',
    description:
      'Structured data from the page: tables (header + rows, cell for cell), links, meta, form (fields with labels and values; passwords masked), images (src, alt, width, height, source img|background, link, context). scope narrows to a CSS selector.',
    input: params({
      kind: Type.Optional(StringEnum(['tables', 'links', 'meta', 'form', 'images'] as const, { description: 'Default tables.' })),
      scope: Type.Optional(Type.String({ description: 'CSS selector to extract within.', minLength: 1, maxLength: 2000 })),
      limit: Type.Optional(Type.Integer({ description: 'Items (rows for tables), 1-5000. Default 500.', minimum: 1, maximum: EXTRACT_MAX_LIMIT })),
      includeHidden: IncludeHiddenParam,
      tab: TabParam,
    }),
    effect: 'read',
    async handle(ctx, args, out) {
      const tab = await ctx.tab(args.tab);
      const kind = (args.kind ?? 'tables') as 'tables';
      const r = await tab.call('extract', { kind, scope: args.scope, limit: args.limit ?? 500, includeHidden: args.includeHidden });
      out.set('tab', tab.id).set('kind', kind).set('items', r.items).set('total', r.total);
      out.text(`${r.total} ${kind} item(s) in ${tab.id}${r.total > r.items.length ? `; ${r.items.length} returned (raise limit up to ${EXTRACT_MAX_LIMIT})` : ''}.`);
      if (r.items.length) out.page(`${kind} of ${tab.id}`, render(kind, r.items));
    },
  }),
];
