/** browser_api_call: call one endpoint of an API map (daemon/traffic/api-call.ts does the work). */
import { Type } from '@sinclair/typebox';
import { defineTool } from '../call/define.js';
import { params, StringEnum, TabParam } from '../../protocol/params.js';
import { BrowserdError } from '../../protocol/errors.js';
import { VAULT_NAME } from '../../storage/vault.js';
import { runApiCall } from '../traffic/api-call.js';
import { PageText, PageValue, TabIdField } from '../call/output.js';

const Scalar = Type.Union([Type.String({ maxLength: 10000 }), Type.Number(), Type.Boolean()]);

export const apiCallTools = [
  defineTool({
    name: 'browser_api_call',
    title: "Call a site's API",
    description:
      "Calls one endpoint of an API map (browser_api_map) and follows its pagination until the list ends, maxPages or maxItems. mode page (default) fetches inside the tab's page with its cookies and origin rules; mode server sends from the daemon with the live profile's cookies (or a saved session's) through the private-network guard. Writes (POST, PUT, PATCH, DELETE, GraphQL mutations) need access \"act\", an act tab in page mode, and a site that is not read-only. Headers naming Cookie, Authorization, a token, key, secret or CSRF are refused (code refused): CSRF values come from the map's dependencies. A refusal sends nothing. Bodies are redacted and fenced.",
    input: params({
      map: Type.String({ description: 'API map id (api_ and 16 hex digits).', pattern: '^api_[0-9a-f]{16}$' }),
      endpoint: Type.String({ description: 'Endpoint id ("GET /items/{id}"), a concrete "METHOD /path" matched to a template ("GET /items/42"), or a GraphQL operation name.', minLength: 1, maxLength: 2000 }),
      params: Type.Optional(Type.Record(Type.String({ maxLength: 200 }), Type.Union([Scalar, Type.Array(Scalar, { maxItems: 100 })]), { description: 'Path placeholders by name; the rest go into the query (GraphQL: variables).' })),
      body: Type.Optional(Type.Unknown({ description: 'JSON request body (GraphQL: {query?, variables?}).' })),
      mode: Type.Optional(StringEnum(['page', 'server'] as const, { description: 'Where the request is sent from. Default page.' })),
      tab: TabParam,
      session: Type.Optional(Type.String({ description: 'Server mode: a saved session whose cookies to send instead of the live profile\'s.', pattern: VAULT_NAME.source, maxLength: 200 })),
      access: Type.Optional(StringEnum(['read', 'act'] as const, { description: 'act allows a write endpoint. Default read.' })),
      maxPages: Type.Optional(Type.Integer({ description: 'Pages followed at most, 1-50. Default 10.', minimum: 1, maximum: 50 })),
      maxItems: Type.Optional(Type.Integer({ description: 'Items kept at most, 1-100000. Default 1000.', minimum: 1, maximum: 100000 })),
      headers: Type.Optional(Type.Record(Type.String({ maxLength: 200 }), Type.String({ maxLength: 4000 }), { description: 'Extra request headers (never credentials or CSRF).' })),
    }),
    output: Type.Object({
      map: Type.String({ description: 'The API map called.' }),
      endpoint: PageText({ description: 'The endpoint id the call resolved to (it holds a path the recorded site used).' }),
      mode: StringEnum(['page', 'server'] as const, { description: 'Where the request was sent from.' }),
      write: Type.Boolean({ description: 'The endpoint writes (a POST, PUT, PATCH, DELETE or GraphQL mutation).' }),
      status: Type.Integer({ description: 'HTTP status of the last page.' }),
      pages: Type.Integer({ description: 'Pages fetched.' }),
      itemCount: Type.Integer(),
      items: Type.Array(PageValue(), { description: 'The list items of every page (at most maxItems), redacted: JSON values as the site sent them.' }),
      stoppedBecause: Type.String({ description: 'Why paging stopped.' }),
      requests: Type.Array(
        Type.Object({
          method: Type.String(),
          url: PageText({ description: 'The address called, secret-looking query values redacted.' }),
          status: Type.Integer(),
          cut: Type.Boolean({ description: 'The response body was longer than the bound (5 MiB) and was cut.' }),
        }),
        { description: 'Each request sent for the call\'s pages, in order (dependency requests not included).' },
      ),
      tab: Type.Optional(TabIdField),
    }),
    effect: 'sensitive',
    check(args) {
      if (args.session !== undefined && args.mode !== 'server') {
        throw new BrowserdError('validation_error', 'session is for mode "server"; page mode uses the page\'s own cookies', { next: 'Pass mode: "server" with session, or leave session out.' });
      }
    },
    async handle(ctx, args, out) {
      await runApiCall(ctx, args, out);
    },
  }),
];
