/** What happened in a tab: its write log and its recent network responses. */
import { Type } from '@sinclair/typebox';
import { defineTool } from './define.js';
import { params, TabParam } from '../../protocol/params.js';

export const diagnosticsTools = [
  defineTool({
    name: 'browser_log',
    title: 'Tab write log',
    description: "The tab's write log, oldest first: writes sent, requests blocked (read tab, allowedDomains), HTTP errors, console errors, dialogs and how they were answered, popups opened.",
    input: params({ tab: TabParam, limit: Type.Optional(Type.Integer({ description: 'Newest N entries, 1-500. Default 100.', minimum: 1, maximum: 500 })) }),
    effect: 'read',
    openWorld: false,
    async handle(ctx, args, out) {
      const tab = await ctx.tab(args.tab);
      const entries = tab.writeLog.all().slice(-(args.limit ?? 100));
      out.set('tab', tab.id).set('entries', entries);
      if (!entries.length) out.text(`Nothing in the log of ${tab.id} yet.`);
      else out.page(`log of ${tab.id}`, entries.map((e) => `${e.at} ${e.kind}${e.method ? ` ${e.method}` : ''}${e.url ? ` ${e.url}` : ''}${e.status ? ` ${e.status}` : ''}${e.detail ? ` — ${e.detail}` : ''}`).join('\n'));
    },
  }),
  defineTool({
    name: 'browser_network',
    title: 'Recent network responses',
    description: 'Recent responses of the tab, newest last: URL, method, status, type. Filter by URL substring, resource type, or failures only.',
    input: params({
      tab: TabParam,
      filter: Type.Optional(Type.String({ description: 'URL substring.', maxLength: 2000 })),
      type: Type.Optional(Type.String({ description: 'Resource type: document, xhr, fetch, script, stylesheet, image, font, media, ping, other.', maxLength: 40 })),
      failedOnly: Type.Optional(Type.Boolean({ description: 'Only status >= 400 and failed requests. Default false.' })),
      limit: Type.Optional(Type.Integer({ description: '1-300. Default 50.', minimum: 1, maximum: 300 })),
    }),
    effect: 'read',
    openWorld: false,
    async handle(ctx, args, out) {
      const tab = await ctx.tab(args.tab);
      let rows = tab.network.all();
      if (args.filter) rows = rows.filter((r) => r.url.includes(args.filter!));
      if (args.type) rows = rows.filter((r) => r.type === args.type!.toLowerCase());
      if (args.failedOnly) rows = rows.filter((r) => r.status >= 400 || r.failed);
      rows = rows.slice(-(args.limit ?? 50));
      out.set('tab', tab.id).set('responses', rows);
      if (!rows.length) out.text(`No matching responses in ${tab.id}.`);
      else out.page(`network of ${tab.id}`, rows.map((r) => `${r.method} ${r.status || r.failed} ${r.type} ${r.url}`).join('\n'));
    },
  }),
];
