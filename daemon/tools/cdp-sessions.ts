/** browser_sessions: timed raw-CDP access to the user's own browser through the daemon (daemon/cdp-proxy). */
import { Type, type Static } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { params, StringEnum } from '../../protocol/params.js';
import { NAME } from '../../protocol/ids.js';
import { BrowserdError } from '../../protocol/errors.js';
import { createLiveLink } from '../viewer/index.js';
import type { ToolContext } from '../call/context.js';
import type { CdpSessionInfo } from '../cdp-proxy/sessions.js';
import type { SameType } from '../traffic/same-type.js';
import { cdpRefusal, settleDocuments } from '../secrets/secret-documents.js';

export const DEFAULT_SESSION_MINUTES = 15;

/** A live link to the profile's newest tab, when live view is available and there is a tab to show. */
/** The profile's newest tab outside any context, if it has one. */
function tabOfProfile(ctx: ToolContext, profile: string | undefined) {
  return ctx.env.tabs.list(ctx.user.id).filter((r) => (r.profile ?? undefined) === profile && !r.context).at(-1);
}

function liveLinkFor(ctx: ToolContext, profile: string | undefined): string | undefined {
  const tab = tabOfProfile(ctx, profile);
  if (!tab) return undefined;
  try {
    return createLiveLink(ctx.env, ctx.user.id, tab.id).url;
  } catch {
    return undefined; // live view not configured: the session works without it
  }
}

const SessionInfo = Type.Object({
  id: Type.String(),
  profile: Type.Optional(Type.String({ description: 'The named profile; absent for your own browser.' })),
  startedAt: Type.String(),
  expiresAt: Type.String(),
  minutes: Type.Integer(),
  clients: Type.Integer({ description: 'CDP clients connected now.' }),
});
const sameInfo: SameType<Static<typeof SessionInfo>, CdpSessionInfo> = true;
void sameInfo;

export const cdpSessionTools = [
  defineTool({
    name: 'browser_sessions',
    title: 'CDP sessions',
    description:
      'Timed raw CDP access to your browser for programs (Playwright connectOverCDP, Puppeteer connect, chrome-remote-interface): start answers a secret cdpUrl; stop ends one; list. Metered per minute; host policy and network guard apply; none while a vault value is filled.',
    input: params({
      action: StringEnum(['start', 'stop', 'list'] as const),
      profile: Type.Optional(Type.String({ pattern: NAME.source })),
      minutes: Type.Optional(Type.Integer({ minimum: 1, description: `Default ${DEFAULT_SESSION_MINUTES}.` })),
      id: Type.Optional(Type.String({ pattern: '^cdp_[0-9a-f]{16}$' })),
    }),
    output: Type.Object({
      sessions: Type.Optional(Type.Array(SessionInfo, { description: 'list: your open sessions, newest first.' })),
      stopped: Type.Optional(Type.String({ description: 'stop: the session ended.' })),
      id: Type.Optional(Type.String({ description: 'start: the session id (cdp_ and 16 hex digits).' })),
      cdpUrl: Type.Optional(Type.String({ description: 'start: the ws:// URL for a CDP client; works until the session ends. Keep it secret.' })),
      expiresAt: Type.Optional(Type.String({ description: 'start: when the session ends (ISO).' })),
      profile: Type.Optional(Type.String({ description: 'start: the named profile, when one was asked for.' })),
      liveUrl: Type.Optional(Type.String({ description: "start: a live link to the profile's newest tab (a blank one is opened when it has none)." })),
    }),
    effect: 'write',
    needsBrowser: false,
    openWorld: false,
    check(args) {
      if (args.action !== 'start' && (args.profile !== undefined || args.minutes !== undefined)) {
        throw new BrowserdError('validation_error', 'profile and minutes go with action "start" only', { next: 'Drop them, or use action "start".' });
      }
      if (args.action === 'stop' && !args.id) throw new BrowserdError('validation_error', 'stop needs the id of a session', { next: 'List your sessions with browser_sessions{action:"list"}.' });
      if (args.action !== 'stop' && args.id !== undefined) throw new BrowserdError('validation_error', 'id goes with action "stop" only', { next: 'Drop id, or use action "stop".' });
    },
    async handle(ctx, args, out) {
      const sessions = ctx.env.cdpSessions;
      if (args.action === 'list') {
        const list = sessions.list(ctx.user.id);
        out.set('sessions', list);
        out.text(list.length ? list.map((s) => `${s.id}${s.profile ? ` (profile ${s.profile})` : ''}: until ${s.expiresAt}, ${s.clients} client(s) connected`).join('\n') : 'No CDP sessions open.');
        return;
      }
      if (args.action === 'stop') {
        if (!(await sessions.stop(ctx.user.id, args.id!))) {
          throw new BrowserdError('not_found', `no open CDP session ${args.id}`, { next: 'It may have ended already; list yours with browser_sessions{action:"list"}.' });
        }
        out.set('stopped', args.id);
        out.text(`Stopped ${args.id}; its clients were disconnected.`);
        return;
      }
      // The browser starts now, so the URL works at once and a capacity problem shows here, not at connect.
      const browser = await ctx.browser(args.profile);
      await settleDocuments(browser.tabs.values());
      // Raw CDP can run anything in any page: never on a browser that holds a filled vault value.
      const s = await sessions.start(ctx.user.id, args.profile, args.minutes ?? DEFAULT_SESSION_MINUTES, () => cdpRefusal(browser.tabs.values()));
      const cdpUrl = sessions.urlOf(s);
      // A live link needs a tab to show: a profile with none gets a blank read tab (the session can drive it).
      let opened: string | undefined;
      if (!tabOfProfile(ctx, args.profile)) opened = (await browser.openTab({ mode: 'read' })).id;
      const live = liveLinkFor(ctx, args.profile);
      out.set('id', s.id);
      out.set('cdpUrl', cdpUrl);
      out.set('expiresAt', new Date(s.expiresAt).toISOString());
      if (s.profile) out.set('profile', s.profile);
      if (live) out.set('liveUrl', live);
      out.text(
        [
          `CDP session ${s.id} on ${s.profile ? `profile ${s.profile}` : 'your own browser'}, until ${new Date(s.expiresAt).toISOString()} (${s.minutes} min, metered per started minute).`,
          `Connect a CDP client to: ${cdpUrl}`,
          'Commands without a sessionId act at browser level (Target.*); attach to pages with Target.attachToTarget{flatten:true}.',
          ...(opened ? [`The profile had no tab, so a blank one was opened (${opened}) for the live view.`] : []),
          ...(live ? [`Watch it live: ${live}`] : []),
        ].join('\n'),
      );
    },
  }),
];
