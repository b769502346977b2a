/** browser_route: mock, block or fail a tab's requests (like Playwright's page.route), per tab, in memory. */
import type { Tab } from '../browser/tab.js';
import type { Platform } from '../platform.js';
import type { ToolContext } from '../call/context.js';
import { TabScoped, type TabScopedItem } from '../traffic/tab-scoped.js';
import { Type, type Static } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { params, TabParam, StringEnum } from '../../protocol/params.js';
import { BrowserdError } from '../../protocol/errors.js';
import { inline } from '../call/response.js';
import {
  checkRouteSpec, MAX_MOCK_BODY_BYTES, MAX_MOCK_HEADERS, MAX_ROUTES_PER_TAB, ROUTE_ERROR_REASONS, ROUTE_KINDS, ROUTE_RESOURCE_TYPES,
  type RouteSpec, type RouteView, type TabRoutes,
} from '../browser/routes.js';
import { TabIdField } from '../call/output.js';
import { assertNoSecretForMocks, settleDocuments } from '../secrets/secret-documents.js';
import { markWritten } from '../secrets/site-storage.js';
import type { SameType } from '../traffic/same-type.js';

const ADD_ONLY = ['urlPattern', 'kind', 'methods', 'resourceTypes', 'status', 'body', 'contentType', 'headers', 'errorReason'] as const;

const RouteInput = params({
  action: Type.Optional(StringEnum(['add', 'list', 'remove'] as const, { description: 'Default list.', default: 'list' })),
  tab: TabParam,
  urlPattern: Type.Optional(Type.String({
    description: '"*" all; with * a glob over the URL; else a substring.',
    minLength: 1, maxLength: 4096,
  })),
  kind: Type.Optional(StringEnum(ROUTE_KINDS)),
  methods: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 20 }), { minItems: 1, maxItems: 20 })),
  resourceTypes: Type.Optional(Type.Array(StringEnum(ROUTE_RESOURCE_TYPES), { description: 'xhr and fetch match both.', minItems: 1, maxItems: ROUTE_RESOURCE_TYPES.length })),
  status: Type.Optional(Type.Integer({ description: 'Default 200.', minimum: 100, maximum: 599 })),
  body: Type.Optional(Type.String({ maxLength: MAX_MOCK_BODY_BYTES })),
  contentType: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  headers: Type.Optional(Type.Record(Type.String(), Type.String({ maxLength: 8192 }), { description: 'No Set-Cookie.' })),
  errorReason: Type.Optional(StringEnum(ROUTE_ERROR_REASONS, { description: 'CDP Network.ErrorReason. Default Failed.' })),
  id: Type.Optional(Type.String({ description: 'remove: without it, all.', pattern: '^r[1-9][0-9]{0,8}$' })),
});

/** A route as listed (daemon/browser/routes.ts RouteView): no body, its size instead. */
const RouteViewSchema = Type.Object({
  id: Type.String({ description: 'r1, r2, ...' }),
  urlPattern: Type.String(),
  kind: StringEnum(ROUTE_KINDS, { description: 'mock, block or fail.' }),
  methods: Type.Optional(Type.Array(Type.String(), { description: 'Upper-case methods matched; absent: any.' })),
  resourceTypes: Type.Optional(Type.Array(StringEnum(ROUTE_RESOURCE_TYPES, { description: 'A resource type, lower-case.' }), { description: 'Absent: any.' })),
  status: Type.Optional(Type.Integer({ description: 'mock: the status answered.' })),
  contentType: Type.Optional(Type.String({ description: 'mock: the Content-Type answered.' })),
  headers: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'mock: the headers given.' })),
  bodyBytes: Type.Optional(Type.Integer({ description: 'mock: bytes of the body answered.' })),
  errorReason: Type.Optional(StringEnum(ROUTE_ERROR_REASONS, { description: 'fail: the network error the page sees.' })),
  hits: Type.Integer({ description: 'Requests this route answered.' }),
});
const sameRoute: SameType<Static<typeof RouteViewSchema>, RouteView> = true;
void sameRoute;

function describe(r: RouteView): string {
  const where = `${r.methods ? r.methods.join('/') : 'any method'}, ${r.resourceTypes ? r.resourceTypes.join('/') : 'any type'}`;
  const what = r.kind === 'mock' ? `mock ${r.status}${r.contentType ? ` ${inline(r.contentType)}` : ''}, ${r.bodyBytes} bytes` : r.kind === 'fail' ? `fail ${r.errorReason}` : 'block';
  return `${r.id}: ${what} for ${inline(r.urlPattern)} (${where}); ${r.hits} hit${r.hits === 1 ? '' : 's'}`;
}

/** A tab's routes as something its user keeps: a tab reopened under the same id takes them over. */
class KeptRoutes implements TabScopedItem {
  constructor(readonly routes: TabRoutes) {}
  get live() {
    return this.routes.size > 0;
  }
  follow(tab: Tab) {
    // Called as the tab object is made, before its sessions are guarded: they start with these routes counted.
    void tab.adoptRoutes(this.routes);
  }
  drop() {}
}

const kept = new WeakMap<Platform, TabScoped<KeptRoutes>>();

/** Registers the tab's routes once, so they outlive the tab object (not the tab). */
async function keepRoutesOf(ctx: ToolContext, tab: Tab) {
  let scoped = kept.get(ctx.env);
  if (!scoped) kept.set(ctx.env, (scoped = new TabScoped<KeptRoutes>(ctx.env)));
  const held = scoped.get(ctx.user.id, tab.id);
  if (!held) void scoped.set(ctx.user.id, tab.id, new KeptRoutes(tab.routes));
  else if (held.routes !== tab.routes) await tab.adoptRoutes(held.routes);
}

export const routeTools = [
  defineTool({
    name: 'browser_route',
    title: 'Mock, block or fail requests',
    description:
      `Per-tab request rules (frames, workers too): mock answers with your status, body and headers; block or fail fails the request. Newest match wins, ${MAX_ROUTES_PER_TAB} per tab, never saved; a read tab's writes stay blocked.`,
    input: RouteInput,
    output: Type.Object({
      tab: TabIdField,
      routes: Type.Array(RouteViewSchema, { description: 'The tab\'s routes after the call, oldest first (the newest matching one wins).' }),
      route: Type.Optional(RouteViewSchema),
      removed: Type.Optional(Type.Array(Type.String(), { description: 'remove: ids of the routes removed.' })),
    }),
    effect: 'write',
    hints: { destructive: true },
    openWorld: false,
    check(args) {
      const action = args.action ?? 'list';
      if (action !== 'add') {
        for (const p of ADD_ONLY) {
          if (args[p] !== undefined) throw new BrowserdError('validation_error', `"${p}" goes with action "add", not "${action}"`, { next: `Drop "${p}", or use action "add".`, details: { parameter: p } });
        }
      }
      if (action !== 'remove' && args.id !== undefined) throw new BrowserdError('validation_error', `"id" goes with action "remove", not "${action}"`, { next: 'Drop "id", or use action "remove".', details: { parameter: 'id' } });
      if (action === 'add') checkRouteSpec(specOf(args));
    },
    async handle(ctx, args, out) {
      const tab = await ctx.tab(args.tab);
      await keepRoutesOf(ctx, tab);
      const action = args.action ?? 'list';
      out.set('tab', tab.id);
      if (action === 'add') {
        const spec = specOf(args);
        // A mock's body can be script in any page of the browser context: none while one holds a vault value.
        if (spec.kind === 'mock') {
          const tabs = (await ctx.browser(tab.record.profile)).tabs;
          await settleDocuments(tabs.values());
          assertNoSecretForMocks(tab, tabs.values());
        }
        const route = tab.routes.add(spec);
        // What a mock answers may write the storage of the page it runs in: the site counts as written from then.
        if (spec.kind === 'mock') {
          const { agentStorage: store, log } = ctx.env;
          const where = { user: tab.record.user, profile: tab.record.profile, context: tab.record.context };
          tab.routes.onMock = (requestUrl, pageUrl) => void markWritten(store, where, [requestUrl, pageUrl])?.catch((e) => log.error({ err: String(e) }, 'agent storage marks not saved'));
        }
        // Before the answer: from now on the tab's sessions pause what the route is about.
        await tab.requestRulesChanged();
        out.set('route', route).set('routes', tab.routes.list());
        out.text(`Added route ${describe(route)} in ${tab.id}. It applies to requests from now on (reload the page to see it on requests already made); the newest matching route wins.`);
        return;
      }
      if (action === 'remove') {
        const removed = tab.routes.remove(args.id);
        await tab.requestRulesChanged();
        out.set('removed', removed).set('routes', tab.routes.list());
        out.text(removed.length ? `Removed ${removed.join(', ')} from ${tab.id}; ${tab.routes.size} route${tab.routes.size === 1 ? '' : 's'} left.` : `${tab.id} had no routes.`);
        return;
      }
      const routes = tab.routes.list();
      out.set('routes', routes);
      out.text(routes.length ? `Routes of ${tab.id}, oldest first (the newest matching one wins):\n${routes.map(describe).join('\n')}` : `${tab.id} has no routes.`);
    },
  }),
];

function specOf(args: Partial<RouteSpec>): RouteSpec {
  return {
    urlPattern: args.urlPattern as string,
    kind: args.kind as RouteSpec['kind'],
    ...(args.methods !== undefined ? { methods: args.methods } : {}),
    ...(args.resourceTypes !== undefined ? { resourceTypes: args.resourceTypes } : {}),
    ...(args.status !== undefined ? { status: args.status } : {}),
    ...(args.body !== undefined ? { body: args.body } : {}),
    ...(args.contentType !== undefined ? { contentType: args.contentType } : {}),
    ...(args.headers !== undefined ? { headers: args.headers } : {}),
    ...(args.errorReason !== undefined ? { errorReason: args.errorReason } : {}),
  };
}
