/** browser_status: who the caller is, their policy, their browser. */
import { Type, type TSchema } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { params, StringEnum } from '../../protocol/params.js';
import { convertersStatus } from '../docs/index.js';
import type { AdBlockStatus } from '../adblock/service.js';
import { ProfileOverrides } from '../settings/browser-settings.js';

/** Host patterns, or true (everywhere) / false (nowhere). */
const WhereSetting = Type.Union([Type.Boolean(), Type.Array(Type.String())]);
const Brand = Type.Object({ brand: Type.String(), version: Type.String() });
/** A field of the identity: null where the identity does not apply (the browser's own value shows). */
const orNative = (s: TSchema) => Type.Union([s, Type.Null()]);

/** The identity as browser_status and GET /v1/browser/settings show it (identity/merge.ts IdentityView). */
const IdentityViewSchema = Type.Object(
  {
    enabled: WhereSetting,
    hardwareConcurrency: orNative(Type.Integer()),
    deviceMemory: orNative(Type.Number()),
    screen: orNative(
      Type.Object({
        width: Type.Integer(),
        height: Type.Integer(),
        availWidth: Type.Integer(),
        availHeight: Type.Integer(),
        colorDepth: Type.Integer(),
        devicePixelRatio: Type.Optional(Type.Number()),
      }),
    ),
    webgl: orNative(Type.Object({ vendor: Type.String(), renderer: Type.String() })),
    platform: orNative(Type.String({ description: 'navigator.platform' })),
    userAgentMetadata: orNative(
      Type.Object({
        platform: Type.String(),
        platformVersion: Type.String(),
        architecture: Type.String(),
        bitness: Type.String(),
        model: Type.String(),
        mobile: Type.Boolean(),
        wow64: Type.Boolean(),
        brands: Type.Optional(Type.Array(Brand)),
        fullVersionList: Type.Optional(Type.Array(Brand)),
      }),
    ),
    languages: orNative(Type.Array(Type.String())),
    humanize: orNative(Type.Boolean({ description: 'Curved pointer paths and paced typing.' })),
  },
  { description: 'The persistent identity your browser reports where enabled says; every other field null when it applies nowhere.' },
);

const AdBlockingSchema = Type.Union(
  [
    Type.Object({ state: Type.Literal('off'), note: Type.String() }),
    Type.Object({ state: Type.Literal('loading'), note: Type.String() }),
    Type.Object({ state: Type.Literal('ready'), lists: Type.Array(Type.String()), source: StringEnum(['cache', 'parsed'] as const, { description: 'Where the filter engine came from.' }), loadMs: Type.Number() }),
    Type.Object({ state: Type.Literal('unavailable'), reason: Type.String(), next: Type.String() }),
  ],
  { description: 'Ad and tracker blocking on the block_ads sites.' },
);

const StatusSchema = Type.Object({
  user: Type.String(),
  policy: Type.Object({
    approvals: Type.Boolean({ description: 'Sensitive actions return needsApproval instead of running.' }),
    takeover: Type.Boolean({ description: 'A person may take over a tab through its live link.' }),
    hostRules: Type.Array(Type.Object({ pattern: Type.String(), access: StringEnum(['read_only', 'blocked', 'allowed'] as const, { description: 'What the policy lets tabs do on matching sites.' }) })),
  }),
  browser: Type.Union([
    Type.Object({ state: Type.Literal('running'), version: Type.Optional(Type.String()), startedAt: Type.Optional(Type.String()), openTabs: Type.Integer() }),
    Type.Object({ state: Type.Literal('stopped'), note: Type.String() }),
  ]),
  tabs: Type.Integer({ description: 'Tabs on record (open or restorable).' }),
  defaultTab: Type.Union([Type.String(), Type.Null()]),
  cdpSession: Type.Optional(Type.Object({ id: Type.String(), cdpUrl: Type.String(), expiresAt: Type.String() }, { description: 'Your open CDP session on the default profile.' })),
  converters: Type.Array(Type.Object({ name: StringEnum(['builtin', 'markitdown', 'docling'] as const, { description: 'Converter name.' }), available: Type.Boolean(), reads: Type.String() })),
  browserSettings: Type.Object(
    {
      profile_enabled: WhereSetting,
      profile: Type.Union([ProfileOverrides, Type.Null()]),
      block_ads: Type.Array(Type.String()),
      max_browsers: Type.Integer(),
      signup: Type.Boolean(),
    },
    { description: "The host's browser settings, as the admin set them." },
  ),
  identity: IdentityViewSchema,
  adBlocking: AdBlockingSchema,
  limits: Type.Object({ maxBrowsersOnHost: Type.Integer(), browsersPerUser: Type.Integer(), tabsPerUser: Type.Integer(), browserIdleS: Type.Integer() }),
});

function adBlockingLine(s: AdBlockStatus): string {
  if (s.state === 'ready') return `on for the block_ads sites (${s.lists.length} lists)`;
  if (s.state === 'unavailable') return `unavailable: ${s.reason}. ${s.next}`;
  return `${s.state} (${s.note})`;
}

export const statusTools = [
  defineTool({
    name: 'browser_status',
    title: 'Status',
    description: "Your user, policy, browser state, document converters and limits.",
    input: params({}),
    output: Type.Object({ status: StatusSchema }),
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
