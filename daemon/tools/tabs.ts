/** Tab tools: open, list, close, focus. */
import { Type, type Static } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { SnapshotAfterParam, withSnapshotAfter } from './snapshot-after.js';
import { params, TabParam, StringEnum } from '../../protocol/params.js';
import { BrowserdError } from '../../protocol/errors.js';
import { checkUrl } from '../net/url-check.js';
import { NAME } from '../../protocol/ids.js';
import type { ToolContext } from '../call/context.js';
import { pageUrl, type ResponseBuilder } from '../call/response.js';
import type { TabRecord } from '../../storage/tabs.js';
import { bringToFront } from '../browser/layout.js';
import { createLiveLink } from '../viewer/index.js';
import { LiveModeField, TabIdField, TabInfo, TabModeField, UrlField } from '../call/output.js';
import { cleanBeforeOpening } from '../secrets/site-storage.js';

export const OpenInput = params({
  url: Type.Optional(Type.String({ description: 'First address ("example.com" means https). Default blank.', maxLength: 8192 })),
  mode: Type.Optional(StringEnum(['read', 'act'], { description: 'read (default): network writes aborted, sensitive actions refused. act: may change things, under the host policy.', default: 'read' })),
  visible: Type.Optional(Type.Boolean({ description: 'Bring to the front, maximised. Default true.', default: true })),
  allowedDomains: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 253 }), { description: 'Only these domains (and sub-domains), popups too.', maxItems: 50 })),
  live: Type.Optional(StringEnum(['interactive', 'view', 'none'], { description: 'Live link: interactive (default; view where take-over is not allowed), view or none.', default: 'interactive' })),
  context: Type.Optional(Type.String({ description: 'Isolated context of this name (own cookies and storage), made on first use.', pattern: NAME.source })),
  snapshot: SnapshotAfterParam,
  profile: Type.Optional(Type.String({ description: "A named profile of the user (own persistent logins).", pattern: NAME.source })),
});

/** browser_open (POST /v1/tabs reaches it through the same dispatch). */
async function openTab(ctx: ToolContext, args: Static<typeof OpenInput>, out: ResponseBuilder) {
  let url: string | undefined;
  if (args.url !== undefined) url = checkUrl(args.url, ctx.env.cfg);
  if (args.context && args.profile) throw new BrowserdError('validation_error', 'give context or profile, not both', { next: 'A context is an incognito-like space inside a profile; pick one.' });
  const inst = await ctx.browser(args.profile);
  const tab = await inst.openTab({
    url, mode: args.mode ?? 'read', allowedDomains: args.allowedDomains, context: args.context, visible: args.visible,
    // A site whose own storage agent code may have written is cleaned first when nothing of it is open.
    beforeNavigate: (t) => cleanBeforeOpening(ctx.env.agentStorage, t, url!, inst.tabs.values()),
  });
  ctx.touch(tab);
  await ctx.env.tabs.setDefault(ctx.user.id, tab.id);
  const title = await tab.title();
  out.set('tab', tab.id).set('url', tab.url).set('mode', tab.mode);
  if (tab.record.context) out.set('context', tab.record.context);
  if (tab.record.profile) out.set('profile', tab.record.profile);
  if (tab.record.allowedDomains) out.set('allowedDomains', tab.record.allowedDomains);
  out.text(`Opened tab ${tab.id} (${tab.mode} mode${tab.record.context ? `, context ${tab.record.context}` : ''}) at ${pageUrl(tab.url)}.`).fullUrl(`address of ${tab.id}`, tab.url);
  if (title) out.page(`title of ${tab.id}`, title);
  if (args.live !== 'none') {
    const link = createLiveLink(ctx.env, ctx.user.id, tab.id, { mode: args.live });
    out.set('live_url', link.url).set('live', link.mode);
    out.text(`Live link for a person to ${link.mode === 'interactive' ? 'watch or take over' : 'watch'} this tab (a few minutes unless open): ${link.url}`);
  }
  if (!args.snapshot) out.text('Next: browser_snapshot to see the page with element refs.');
}

export function describeTab(r: TabRecord, isDefault: boolean) {
  return {
    id: r.id,
    url: r.url,
    mode: r.mode,
    ...(r.context ? { context: r.context } : {}),
    ...(r.profile ? { profile: r.profile } : {}),
    ...(r.allowedDomains ? { allowedDomains: r.allowedDomains } : {}),
    ...(r.opener ? { opener: r.opener } : {}),
    default: isDefault,
  };
}

export const tabTools = [
  defineTool({
    name: 'browser_open',
    title: 'Open a tab',
    description: 'Opens a new tab (never reuses one; none is left if the first page fails). Returns its id, the default for later calls, and a live link for a person to watch or take over.',
    input: OpenInput,
    output: withSnapshotAfter(Type.Object({
      tab: TabIdField,
      url: UrlField,
      mode: TabModeField,
      context: Type.Optional(Type.String()),
      profile: Type.Optional(Type.String()),
      allowedDomains: Type.Optional(Type.Array(Type.String())),
      live_url: Type.Optional(Type.String({ description: 'A link a person can open to watch or take over the tab.' })),
      live: Type.Optional(LiveModeField),
    })),
    effect: 'read',
    hints: { readOnly: false, idempotent: false },
    handle: (ctx, args, out) => openTab(ctx, args, out),
  }),
  defineTool({
    name: 'browser_tabs',
    title: 'List tabs',
    description: "The user's tabs: id, URL, mode, context. A new popup comes with its live link.",
    input: params({}),
    output: Type.Object({ tabs: Type.Array(TabInfo) }),
    effect: 'read',
    needsBrowser: false,
    openWorld: false,
    async handle(ctx, _args, out) {
      const def = ctx.defaultTabId();
      // A popup's live link comes with the first listing that shows it (its opener's call could not return one).
      const tabs = ctx.env.tabs.list(ctx.user.id).map((r) => ({
        ...describeTab(r, r.id === def),
        ...(r.opener && ctx.env.live.firstListing(ctx.user.id, r.id) ? { live_url: createLiveLink(ctx.env, ctx.user.id, r.id).url } : {}),
      }));
      out.set('tabs', tabs);
      if (!tabs.length) out.text('No tabs are open. Open one with browser_open.');
      else out.page('tab list', tabs.map((t) => `${t.id}${t.default ? ' (default)' : ''} [${t.mode}${t.context ? `, context ${t.context}` : ''}] ${t.url}`).join('\n'));
      for (const t of tabs) if (t.live_url) out.text(`Live link for popup ${t.id} (a few minutes unless open): ${t.live_url}`);
    },
  }),
  defineTool({
    name: 'browser_close_tab',
    title: 'Close a tab',
    description: 'Closes a tab for good. Ending a connection never closes tabs.',
    input: params({ tab: TabParam }),
    output: Type.Object({ closed: TabIdField }),
    effect: 'write',
    hints: { destructive: true, idempotent: true },
    openWorld: false,
    async handle(ctx, args, out) {
      const id = args.tab ?? ctx.defaultTabId();
      if (!id || !ctx.env.tabs.get(ctx.user.id, id)) throw new BrowserdError('not_found', `no tab ${id ?? ''}`.trim(), { next: 'List your tabs with browser_tabs.' });
      const rec = ctx.env.tabs.get(ctx.user.id, id)!;
      const inst = ctx.env.pool.peek(ctx.user.id, rec.profile);
      if (inst) await inst.closeTab(id);
      else await ctx.env.tabs.remove(ctx.user.id, id);
      if (ctx.env.tabs.getDefault(ctx.user.id) === id) await ctx.env.tabs.setDefault(ctx.user.id, undefined);
      out.set('closed', id).text(`Closed tab ${id}.`);
    },
  }),
  defineTool({
    name: 'browser_focus_tab',
    title: 'Focus a tab',
    description: 'Makes a tab the default for later calls and brings it to the front.',
    input: params({ tab: Type.String({ pattern: TabParam.pattern }) }),
    output: Type.Object({ tab: TabIdField, url: UrlField }),
    effect: 'read',
    hints: { readOnly: false, idempotent: true },
    async handle(ctx, args, out) {
      const tab = await ctx.tab(args.tab);
      await bringToFront(tab);
      await ctx.env.tabs.setDefault(ctx.user.id, tab.id);
      out.set('tab', tab.id).set('url', tab.url).text(`Tab ${tab.id} is now the default.`);
    },
  }),
];
