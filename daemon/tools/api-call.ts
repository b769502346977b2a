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
      "Calls an endpoint of an API map (browser_api_map), following pagination. mode page (default) fetches in the tab's page; server sends from the daemon with the profile's or a session's cookies. Writes need access act (and an act tab in page mode). No credential headers.",
    input: params({
      map: Type.String({ pattern: '^api_[0-9a-f]{16}$' }),
      endpoint: Type.String({ description: '"GET /items/{id}", "GET /items/42" or a GraphQL operation.', minLength: 1, maxLength: 2000 }),
      params: Type.Optional(Type.Record(Type.String({ maxLength: 200 }), Type.Union([Scalar, Type.Array(Scalar, { maxItems: 100 })]), { description: 'Path placeholders, the rest as query (GraphQL: variables).' })),
      body: Type.Optional(Type.Unknown()),
      mode: Type.Optional(StringEnum(['page', 'server'] as const)),
      tab: TabParam,
      session: Type.Optional(Type.String({ description: 'Saved session (server mode).', pattern: VAULT_NAME.source, maxLength: 200 })),
      access: Type.Optional(StringEnum(['read', 'act'] as const)),
      maxPages: Type.Optional(Type.Integer({ description: 'Default 10.', minimum: 1, maximum: 50 })),
      maxItems: Type.Optional(Type.Integer({ description: 'Default 1000.', minimum: 1, maximum: 100000 })),
      headers: Type.Optional(Type.Record(Type.String({ maxLength: 200 }), Type.String({ maxLength: 4000 }))),
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
