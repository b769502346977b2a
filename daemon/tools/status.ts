/** browser_status: who the caller is, their policy, their browser. */
import { defineTool } from './define.js';
import { params } from '../../protocol/params.js';
import { convertersStatus } from '../docs/index.js';
import type { AdBlockStatus } from '../adblock/service.js';

function adBlockingLine(s: AdBlockStatus): string {
  if (s.state === 'ready') return `on for the block_ads sites (${s.lists.length} lists)`;
  if (s.state === 'unavailable') return `unavailable: ${s.reason}. ${s.next}`;
  return `${s.state} (${s.note})`;
}

export const statusTools = [
  defineTool({
    name: 'browser_status',
    title: 'Status',
    description: "The caller's user, policy (approvals, take-over), browser state (running, version, tabs), the document converters this server has, and limits.",
    input: params({}),
    effect: 'read',
    needsBrowser: false,
    openWorld: false,
    async handle(ctx, _args, out) {
      const inst = ctx.env.pool.peek(ctx.user.id);
      const tabs = ctx.env.tabs.list(ctx.user.id);
      const cdp = ctx.env.cdpSessions.ownProfileSession(ctx.user.id);
      const status = {
        user: ctx.user.id,
        policy: { approvals: ctx.user.approvals, takeover: ctx.user.takeover, hostRules: ctx.env.policies.rules(ctx.user.id) },
        browser: inst
          ? { state: 'running', version: inst.version, startedAt: inst.startedAt?.toISOString(), openTabs: inst.tabs.size }
          : { state: 'stopped', note: 'starts on the next call that needs it' },
        tabs: tabs.length,
        defaultTab: ctx.defaultTabId() ?? null,
        ...(cdp ? { cdpSession: { id: cdp.id, cdpUrl: ctx.env.cdpSessions.urlOf(cdp), expiresAt: new Date(cdp.expiresAt).toISOString() } } : {}),
        converters: convertersStatus(ctx.env.cfg),
        browserSettings: ctx.env.browserSettings.current(),
        identity: await ctx.env.identities.view(ctx.user.id),
        adBlocking: ctx.env.adblock.status(),
        limits: { maxBrowsersOnHost: ctx.env.pool.maxBrowsers, browsersPerUser: ctx.env.cfg.maxBrowsersPerUser, tabsPerUser: ctx.env.cfg.maxTabsPerUser, browserIdleS: Math.round(ctx.env.cfg.browserIdleMs / 1000) },
      };
      out.set('status', status);
      out.text(
        [
          `User: ${status.user}`,
          `Approvals: ${status.policy.approvals ? 'on (sensitive actions return needsApproval)' : 'off'}`,
          `Browser: ${inst ? `running (${inst.version}), ${inst.tabs.size} tabs live` : 'stopped (starts on the next call that needs it)'}`,
          `Tabs: ${tabs.length} of ${ctx.env.cfg.maxTabsPerUser}${status.defaultTab ? `, default ${status.defaultTab}` : ''}`,
          `Identity: ${status.identity?.platform ? `${status.identity.platform}, ${status.identity.hardwareConcurrency} threads, screen ${status.identity.screen?.width}x${status.identity.screen?.height}, where profile_enabled says (${JSON.stringify(status.identity.enabled)})` : 'off (native values)'}`,
          `Converters: ${status.converters.filter((c) => c.available).map((c) => c.name).join(', ')}`,
          `Ad blocking: ${adBlockingLine(status.adBlocking)}`,
          ...(status.cdpSession ? [`CDP session: ${status.cdpSession.cdpUrl} (until ${status.cdpSession.expiresAt})`] : []),
        ].join('\n'),
      );
    },
  }),
];
