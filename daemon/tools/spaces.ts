/** Browsing spaces: contexts (incognito-like, gone with the browser) and the workspace view of everything open. */
import { Type } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { params, StringEnum } from '../../protocol/params.js';
import { BrowserdError } from '../../protocol/errors.js';
import { NAME } from '../../protocol/ids.js';
import { describeTab } from './tabs.js';
import type { Platform } from '../platform.js';
import { TabIdField, TabInfo } from '../call/output.js';

/** Named profiles a user has: those with a profile dir on disk or tabs on record. */
export function listProfiles(env: Platform, user: string): { name: string; running: boolean; tabs: number }[] {
  const names = new Set<string>();
  for (const r of env.tabs.list(user)) if (r.profile) names.add(r.profile);
  for (const n of env.profiles.list(user)) names.add(n);
  return [...names].sort().map((name) => ({ name, running: !!env.pool.peek(user, name), tabs: env.tabs.list(user).filter((r) => r.profile === name).length }));
}

export const spacesTools = [
  defineTool({
    name: 'browser_contexts',
    title: 'Contexts',
    description: 'Lists isolated contexts (browser_open context) or closes one with its tabs, cookies and storage.',
    input: params({
      action: Type.Optional(StringEnum(['list', 'close'])),
      name: Type.Optional(Type.String({ pattern: NAME.source })),
    }),
    output: Type.Object({
      contexts: Type.Optional(Type.Array(Type.Object({ name: Type.String(), tabs: Type.Integer({ description: 'Tabs open in it.' }) }), { description: 'list: every context of your default profile.' })),
      closed: Type.Optional(Type.Object({ context: Type.String(), tabs: Type.Array(TabIdField, { description: 'The tabs closed with it.' }) }, { description: 'close: the context ended.' })),
    }),
    effect: 'write',
    hints: { destructive: true },
    openWorld: false,
    needsBrowser: false,
    async handle(ctx, args, out) {
      const records = ctx.env.tabs.list(ctx.user.id).filter((r) => r.context && !r.profile);
      if ((args.action ?? 'list') === 'list') {
        if (args.name) throw new BrowserdError('validation_error', 'name goes with action "close"', { next: 'Drop name, or pass action: "close".' });
        const counts = new Map<string, number>();
        for (const r of records) counts.set(r.context!, (counts.get(r.context!) ?? 0) + 1);
        for (const n of ctx.env.pool.peek(ctx.user.id)?.contexts.keys() ?? []) if (!counts.has(n)) counts.set(n, 0);
        const contexts = [...counts].map(([name, tabs]) => ({ name, tabs }));
        out.set('contexts', contexts);
        out.text(contexts.length ? contexts.map((c) => `${c.name}: ${c.tabs} tab(s)`).join('\n') : 'No contexts. browser_open{context: "name"} makes one.');
        return;
      }
      if (!args.name) throw new BrowserdError('validation_error', 'close needs the context name', { next: 'Pass name.' });
      const known = records.some((r) => r.context === args.name) || ctx.env.pool.peek(ctx.user.id)?.contexts.has(args.name);
      if (!known) throw new BrowserdError('not_found', `no context ${args.name}`, { next: 'List them with browser_contexts.' });
      const inst = ctx.env.pool.peek(ctx.user.id);
      let closed: string[];
      if (inst) closed = await inst.closeContext(args.name);
      else {
        closed = records.filter((r) => r.context === args.name).map((r) => r.id);
        for (const id of closed) await ctx.env.tabs.remove(ctx.user.id, id);
      }
      out.set('closed', { context: args.name, tabs: closed }).text(`Closed context ${args.name} and its tabs ${closed.join(', ') || '(none)'}; its cookies and storage are gone.`);
    },
  }),
  defineTool({
    name: 'browser_workspaces',
    title: 'Workspaces',
    description: 'Everything open: profiles and contexts with their tabs.',
    input: params({}),
    output: Type.Object({
      workspaces: Type.Array(
        Type.Object({
          kind: StringEnum(['profile', 'context'] as const, { description: 'profile: the default or a named profile; context: an isolated context of the default profile.' }),
          name: Type.String(),
          running: Type.Boolean({ description: 'Its browser is running.' }),
          tabs: Type.Array(TabInfo),
        }),
      ),
    }),
    effect: 'read',
    openWorld: false,
    needsBrowser: false,
    async handle(ctx, _args, out) {
      const def = ctx.defaultTabId();
      const all = ctx.env.tabs.list(ctx.user.id);
      const spaces = [
        { kind: 'profile', name: 'default', running: !!ctx.env.pool.peek(ctx.user.id), tabs: all.filter((r) => !r.profile && !r.context).map((r) => describeTab(r, r.id === def)) },
        ...[...new Set(all.filter((r) => r.context && !r.profile).map((r) => r.context!))].map((name) => ({ kind: 'context', name, running: true, tabs: all.filter((r) => r.context === name && !r.profile).map((r) => describeTab(r, r.id === def)) })),
        ...listProfiles(ctx.env, ctx.user.id).map((p) => ({ kind: 'profile', name: p.name, running: p.running, tabs: all.filter((r) => r.profile === p.name).map((r) => describeTab(r, r.id === def)) })),
      ];
      out.set('workspaces', spaces);
      out.page('workspaces', spaces.map((s) => `${s.kind} ${s.name}${s.running ? '' : ' (not running)'}:\n${s.tabs.map((t) => `  ${t.id}${t.default ? ' (default)' : ''} [${t.mode}] ${t.url}`).join('\n') || '  (no tabs)'}`).join('\n'));
    },
  }),
];
