/**
 * An API map's parts as tool results carry them (browser_api_map get/list), described once as TypeBox for the
 * tool's output schema. They mirror protocol/api-map.ts; the checks at the end make the compiler say so when
 * one side changes without the other. Examples, names and paths are what a site sent: page text.
 */
import { Type, type Static } from '@sinclair/typebox';
import { PageText } from '../../../protocol/output-fields.js';
import type { ApiEndpoint, ApiParam, Pagination } from '../../../protocol/api-map.js';
import type { ApiMapInfo } from '../../../storage/api-maps.js';
import type { SameType } from '../same-type.js';

const JsonSchemaField = Type.Record(Type.String(), Type.Unknown(), { description: 'A JSON Schema inferred from the traffic.' });

export const ApiParamSchema = Type.Object({
  name: PageText({ description: 'As the site named it.' }),
  in: Type.Union([Type.Literal('path'), Type.Literal('query'), Type.Literal('header'), Type.Literal('cookie')]),
  schema: JsonSchemaField,
  required: Type.Boolean(),
  example: Type.Optional(PageText({ description: 'A redacted example value.' })),
});

export const PaginationSchema = Type.Union([
  Type.Object({ style: Type.Literal('page'), param: PageText(), start: Type.Number() }),
  Type.Object({ style: Type.Literal('offset'), param: PageText(), limitParam: Type.Optional(PageText()), pageSize: Type.Optional(Type.Number()) }),
  Type.Object({ style: Type.Literal('cursor'), param: PageText(), from: PageText({ description: 'JSON pointer of the next cursor in the response.' }) }),
  Type.Object({ style: Type.Literal('next_link'), from: PageText({ description: "JSON pointer of the next URL in the body, or 'header:link'." }) }),
]);

const AuthSchema = Type.Object({
  kind: Type.Union([Type.Literal('bearer'), Type.Literal('basic'), Type.Literal('cookie'), Type.Literal('header'), Type.Literal('query')]),
  name: PageText({ description: 'Header, cookie or query parameter name (never its value).' }),
});

const DependencySchema = Type.Object({
  target: Type.Object({ in: Type.Union([Type.Literal('header'), Type.Literal('query'), Type.Literal('body'), Type.Literal('path')]), name: PageText() }),
  source: Type.Object({ endpoint: PageText({ description: 'The id of the endpoint the value comes from.' }), in: Type.Union([Type.Literal('body'), Type.Literal('header'), Type.Literal('cookie')]), path: PageText() }),
}, { description: 'A request value taken from an earlier response (a CSRF token, an id).' });

const OperationSchema = Type.Object({ type: Type.Union([Type.Literal('query'), Type.Literal('mutation'), Type.Literal('subscription')]), name: PageText() });

/** What every endpoint shows, in a map's listing and whole. */
const endpointCore = {
  id: PageText({ description: 'Stable within the map (the site chose its path): "GET /items/{id}", "graphql query ItemList", "WS /ws".' }),
  kind: Type.Union([Type.Literal('http'), Type.Literal('graphql'), Type.Literal('websocket'), Type.Literal('eventsource')]),
  method: Type.String(),
  origin: Type.String(),
  path: PageText({ description: 'Path template, id-like segments as {id}.' }),
  operation: Type.Optional(OperationSchema),
  write: Type.Boolean(),
  params: Type.Array(ApiParamSchema),
  pagination: Type.Optional(PaginationSchema),
  auth: Type.Array(AuthSchema),
  dependencies: Type.Array(DependencySchema),
  seen: Type.Integer({ description: 'Recorded requests this endpoint stands for.' }),
};

/** An endpoint as a map's listing shows it (browser_api_map get without endpoint): no bodies or messages. */
export const ApiEndpointSummarySchema = Type.Object(endpointCore);

/** One endpoint whole (browser_api_map get with endpoint). */
export const ApiEndpointSchema = Type.Object({
  ...endpointCore,
  requestBody: Type.Optional(Type.Object({ contentType: PageText(), schema: JsonSchemaField, example: Type.Optional(PageText({ description: 'A redacted example body.' })) })),
  responses: Type.Array(Type.Object({ status: Type.Integer(), contentType: Type.Optional(PageText()), schema: Type.Optional(JsonSchemaField), example: Type.Optional(PageText({ description: 'A redacted example body.' })) })),
  messages: Type.Optional(
    Type.Array(Type.Object({ direction: Type.Union([Type.Literal('send'), Type.Literal('receive')]), schema: Type.Optional(JsonSchemaField), example: Type.Optional(PageText()), count: Type.Integer() }), {
      description: 'WebSocket or EventSource messages.',
    }),
  ),
});

/** A map in the user's list (storage/api-maps.ts ApiMapInfo). */
export const ApiMapInfoSchema = Type.Object({
  id: Type.String({ description: 'api_ and 16 hex digits.' }),
  name: Type.String(),
  hosts: Type.Array(Type.String()),
  endpoints: Type.Integer({ description: 'How many endpoints the map has.' }),
  updatedAt: Type.String(),
});

// A field added to, dropped from or retyped on either side fails `tsc`.
const sameEndpoint: SameType<Static<typeof ApiEndpointSchema>, ApiEndpoint> = true;
const sameParam: SameType<Static<typeof ApiParamSchema>, ApiParam> = true;
const samePagination: SameType<Static<typeof PaginationSchema>, Pagination> = true;
const sameInfo: SameType<Static<typeof ApiMapInfoSchema>, ApiMapInfo> = true;
void [sameEndpoint, sameParam, samePagination, sameInfo];
