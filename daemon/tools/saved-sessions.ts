/**
 * Saved sessions: keep a tab's signed-in state (cookies and local storage of its sites) under a name, sealed
 * with the vault key, and put it back into any tab later: another context, a named profile, after a restart.
 * No result ever shows a cookie or storage value; listings show sites and counts.
 */
import { Type } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { params, TabParam } from '../../protocol/params.js';
import { BrowserdError } from '../../protocol/errors.js';
import { VAULT_NAME } from '../../storage/vault.js';
import { evaluateHostPolicy } from '../policy/host-policy.js';
import { readSessionState, writeSessionState } from '../browser/session-state.js';
import type { SavedSessionInfo, SessionContents } from '../../storage/saved-sessions.js';
import type { ToolContext } from '../call/context.js';
import { inline, pageUrl } from '../call/response.js';
import { PageText, TabIdField } from '../call/output.js';

const SessionName = Type.String({ description: 'e.g. "github-work".', pattern: VAULT_NAME.source, maxLength: 200 });

/** Every saved-session tool needs the vault key: while the vault is locked they all say why, the vault's way. */
/** A saved session as listings show it (storage SavedSessionInfo): sites and counts, never a value. */
const SessionInfoSchema = Type.Object({
  name: Type.String(),
  sites: Type.Array(Type.String(), { description: 'Registrable domains the session covers.' }),
  cookies: Type.Integer({ description: 'How many cookies it holds.' }),
  storageOrigins: Type.Array(Type.String(), { description: 'Origins whose local storage it keeps (names only).' }),
  savedAt: Type.String(),
});

function store(ctx: ToolContext) {
  ctx.env.vault.requireOpen();
  return ctx.env.savedSessions;
}

function notFound(name: string): BrowserdError {
  return new BrowserdError('not_found', `no saved session ${name}`, { next: 'List saved sessions with browser_session_list, or save one with browser_session_save.' });
}

function describe(i: SavedSessionInfo): string {
  return `${i.name}: sites ${i.sites.join(', ')}; ${i.cookies} cookie(s); local storage of ${i.storageOrigins.length} origin(s); saved ${i.savedAt}`;
}

/** Hosts the session would set state for that the user's host policy blocks. */
function blockedHosts(ctx: ToolContext, sites: string[], contents: SessionContents): string[] {
  const rules = ctx.env.policies.rules(ctx.user.id);
  const hosts = new Set<string>([...sites, ...contents.cookies.map((c) => c.domain.replace(/^\./, '')), ...contents.origins.map((o) => new URL(o.origin).hostname)]);
  return [...hosts].filter((h) => evaluateHostPolicy(rules, h) === 'blocked').sort();
}

export const savedSessionTools = [
  defineTool({
    name: 'browser_session_save',
    title: 'Save a signed-in session',
    description:
      "Saves the tab's signed-in state (its sites' cookies and local storage) under a name, encrypted; replaces one of that name.",
    input: params({ name: SessionName, tab: TabParam }),
    output: Type.Object({
      session: SessionInfoSchema,
      replaced: Type.Boolean({ description: 'A session of this name existed and was replaced.' }),
      tab: TabIdField,
    }),
    effect: 'write',
    hints: { destructive: true },
    openWorld: false,
    async handle(ctx, args, out) {
      const sessions = store(ctx);
      const tab = await ctx.tab(args.tab);
      const inst = await ctx.browser(tab.record.profile);
      const { sites, contents } = await readSessionState(inst, tab);
      if (!contents.cookies.length && !contents.origins.length) {
        throw new BrowserdError('action_failed', `the tab's sites (${sites.join(', ')}) have no cookies or local storage to save`, { next: 'Sign in on the site in this tab first, then save.' });
      }
      const { info, replaced } = await sessions.save(ctx.user.id, args.name, sites, contents);
      out.set('session', info).set('replaced', replaced).set('tab', tab.id);
      out.text(`Saved session ${info.name} from tab ${tab.id}: ${info.cookies} cookie(s) for ${info.sites.join(', ')}; local storage of ${info.storageOrigins.length ? info.storageOrigins.join(', ') : 'no origin'}.`);
      if (replaced) out.text(`This replaced the session previously saved as ${info.name}.`);
      out.text('Next: browser_session_load{name} puts it into any tab (another context or profile too).');
    },
  }),
  defineTool({
    name: 'browser_session_load',
    title: 'Load a saved session',
    description:
      "Loads a saved session's cookies and local storage into the tab's context or profile; reloads the tab if it is on one of its sites.",
    input: params({ name: SessionName, tab: TabParam }),
    output: Type.Object({
      session: Type.String({ description: 'The session loaded.' }),
      tab: TabIdField,
      cookiesSet: Type.Integer(),
      storageRestored: Type.Array(Type.String(), { description: 'Origins whose local storage was restored.' }),
      reloaded: Type.Boolean({ description: "The tab was on one of the session's sites and was reloaded." }),
      url: PageText({ description: 'Where the tab is now.' }),
      cookiesRefused: Type.Optional(Type.Array(PageText(), { description: 'Names of cookies Chromium refused (the sites chose them).' })),
      storageFailed: Type.Optional(Type.Array(Type.String(), { description: 'Origins whose local storage could not be restored.' })),
    }),
    effect: 'write',
    hints: { destructive: true },
    async handle(ctx, args, out) {
      const sessions = store(ctx);
      const info = sessions.info(ctx.user.id, args.name);
      if (!info) throw notFound(args.name);
      const tab = await ctx.tab(args.tab);
      const contents = sessions.open(ctx.user.id, args.name);
      if (!contents) throw notFound(args.name);
      const blocked = blockedHosts(ctx, info.sites, contents);
      if (blocked.length) {
        throw new BrowserdError('blocked', `session ${args.name} holds state for ${blocked.join(', ')}, which your host policy blocks; nothing was loaded`, {
          next: 'Report this to the user: loading it needs a host policy that does not block these sites.',
        });
      }
      const inst = await ctx.browser(tab.record.profile);
      const r = await writeSessionState(inst, tab, info.sites, contents);
      out.set('session', info.name).set('tab', tab.id).set('cookiesSet', r.cookiesSet).set('storageRestored', r.storageRestored).set('reloaded', r.reloaded).set('url', tab.url);
      if (r.cookiesRefused.length) out.set('cookiesRefused', r.cookiesRefused);
      if (r.storageFailed.length) out.set('storageFailed', r.storageFailed);
      const where = tab.record.profile ? `profile ${tab.record.profile}` : tab.record.context ? `context ${tab.record.context}` : 'the default profile';
      out.text(`Loaded session ${info.name} into tab ${tab.id} (${where}): ${r.cookiesSet} cookie(s) for ${info.sites.join(', ')}; local storage restored for ${r.storageRestored.length ? r.storageRestored.join(', ') : 'no origin'}.`);
      if (r.cookiesRefused.length) out.text(`Chromium refused ${r.cookiesRefused.length} cookie(s): ${r.cookiesRefused.map(inline).join(', ')}.`);
      if (r.storageFailed.length) out.text(`Local storage could not be restored for ${r.storageFailed.join(', ')}.`);
      if (r.reloaded) out.text(`Reloaded the tab, now at ${pageUrl(tab.url)}.`).fullUrl(`address of ${tab.id}`, tab.url);
      else out.text(`The tab is not on ${info.sites.join(' or ')}: navigate there to use the session.`);
      if (tab.mode === 'read') out.text('The tab is in read mode: signed-in pages can be read; changing anything on the site still needs an act tab.');
    },
  }),
  defineTool({
    name: 'browser_session_list',
    title: 'List saved sessions',
    description: 'Saved sessions: name, sites, cookie count, when.',
    input: params({}),
    output: Type.Object({ sessions: Type.Array(SessionInfoSchema) }),
    effect: 'read',
    openWorld: false,
    needsBrowser: false,
    async handle(ctx, _args, out) {
      const list = store(ctx).list(ctx.user.id);
      out.set('sessions', list);
      out.text(list.length ? list.map(describe).join('\n') : 'No saved sessions. browser_session_save{name} saves the signed-in state of a tab.');
    },
  }),
  defineTool({
    name: 'browser_session_delete',
    title: 'Delete a saved session',
    description: 'Deletes a saved session (cookies already loaded stay).',
    input: params({ name: SessionName }),
    output: Type.Object({ deleted: Type.String({ description: 'The name of the session deleted.' }) }),
    effect: 'write',
    hints: { destructive: true, idempotent: true },
    openWorld: false,
    needsBrowser: false,
    async handle(ctx, args, out) {
      if (!(await store(ctx).delete(ctx.user.id, args.name))) throw notFound(args.name);
      out.set('deleted', args.name).text(`Deleted saved session ${args.name}.`);
    },
  }),
];
