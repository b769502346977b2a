/** browser_extract: tables, links, meta, forms and images as data. */
import { Type } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { IncludeHiddenParam, params, TabParam, StringEnum } from '../../protocol/params.js';
import { PageText, TabIdField } from '../call/output.js';

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

/**
 * The item of each kind, as injected/extract.ts builds it. Words of the page (cells, link texts, labels,
 * values, alt texts) and locators (which quote its attribute values) are page text; addresses and names are not.
 */
const Locator = PageText({ description: 'A stable CSS locator for the element.' });

const TableItem = Type.Object(
  {
    caption: Type.Optional(PageText({ description: 'The caption or aria-label, when it has one.' })),
    headers: Type.Array(PageText(), { description: 'Column headers; empty when the table has none.' }),
    rows: Type.Array(Type.Array(PageText()), { description: 'Body rows, cell for cell.' }),
    locator: Locator,
  },
  { title: 'table', description: 'kind tables: one table.' },
);

const LinkItem = Type.Object(
  { text: PageText({ description: 'The link text.' }), href: PageText({ description: 'Absolute address.' }), rel: Type.Optional(PageText()) },
  { title: 'link', description: 'kind links: one link.' },
);

const MetaItem = Type.Object(
  { name: PageText({ description: 'title, canonical, lang, or the meta tag name/property/http-equiv/itemprop.' }), content: PageText() },
  { title: 'meta', description: 'kind meta: one entry.' },
);

const FormField = Type.Object({
  name: PageText(),
  type: Type.String({ description: 'Input type, select-one, select-multiple or textarea.' }),
  label: PageText(),
  value: PageText({ description: 'Current value: "true"/"false" for checkboxes and radios, "••••" for a filled password, selected option texts joined by ", ".' }),
  required: Type.Boolean(),
  options: Type.Optional(Type.Array(PageText(), { description: "A select's option texts (at most 100)." })),
  ref: Type.Optional(Type.String({ description: 'Given to fields a person can see.' })),
});

const FormItem = Type.Object(
  {
    form: PageText({ description: 'Name, id or aria-label of the form; "(no form)" for fields outside any.' }),
    locator: Locator,
    action: Type.Union([PageText(), Type.Null()], { description: 'Where it submits (the page chose it); null for fields outside any form.' }),
    method: Type.Union([Type.String(), Type.Null()], { description: 'get or post; null for fields outside any form.' }),
    fields: Type.Array(FormField),
  },
  { title: 'form', description: 'kind form: one form (or the fields outside any).' },
);

const ImageItem = Type.Object(
  {
    src: PageText({ description: 'Absolute address.' }),
    alt: PageText(),
    width: Type.Integer({ description: 'Shown width in CSS pixels.' }),
    height: Type.Integer({ description: 'Shown height in CSS pixels.' }),
    source: StringEnum(['img', 'background'] as const, { description: 'An <img>, or a CSS background image.' }),
    context: PageText({ description: 'A figure caption or nearby text, cut.' }),
    link: Type.Optional(PageText({ description: 'Where the image links to.' })),
  },
  { title: 'image', description: 'kind images: one image.' },
);

export const extractTools = [
  defineTool({
    name: 'browser_extract',
    title: 'Extract data',
    description:
      'Tables, links, meta, form fields (passwords masked) or images of the page.',
    input: params({
      kind: Type.Optional(StringEnum(['tables', 'links', 'meta', 'form', 'images'] as const, { description: 'Default tables.' })),
      scope: Type.Optional(Type.String({ description: 'CSS selector.', minLength: 1, maxLength: 2000 })),
      limit: Type.Optional(Type.Integer({ description: 'Default 500.', minimum: 1, maximum: EXTRACT_MAX_LIMIT })),
      includeHidden: IncludeHiddenParam,
      tab: TabParam,
    }),
    output: Type.Object({
      tab: TabIdField,
      kind: StringEnum(['tables', 'links', 'meta', 'form', 'images'] as const, { description: 'The kind extracted: the shape of every item.' }),
      items: Type.Array(Type.Union([TableItem, LinkItem, MetaItem, FormItem, ImageItem]), { description: 'Items of the kind asked for (each of its shape).' }),
      total: Type.Integer({ description: 'Every item (rows for tables), not only those returned.' }),
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
