/**
 * An API map: what a site's own API looks like, learned from recorded traffic (a HAR) without a model, and
 * what browser_api_call follows. Stored per user; every value in it has been through the traffic redactor
 * (examples, headers, dependencies keep names and shapes, never secrets).
 */

/** JSON Schema (draft 2020-12 subset as genson-js writes it). */
export type JsonSchema = Record<string, unknown>;

export type ParamIn = 'path' | 'query' | 'header' | 'cookie';

export interface ApiParam {
  name: string;
  in: ParamIn;
  /** integer | number | boolean | string (with format when clear: uuid, date-time, email, uri). */
  schema: JsonSchema;
  required: boolean;
  /** A redacted example value, when examples are kept. */
  example?: string;
}

/** How a list endpoint pages, as seen in its traffic. */
export type Pagination =
  | { style: 'page'; param: string; start: number }
  | { style: 'offset'; param: string; limitParam?: string; pageSize?: number }
  | { style: 'cursor'; param: string; /** JSON pointer (e.g. /meta/next_cursor) of the next cursor in the response. */ from: string }
  | { style: 'next_link'; /** JSON pointer of the next URL in the body, or 'header:link' for a Link rel="next". */ from: string };

/** How requests authenticate, by NAME only (values are never kept). */
export interface ApiAuth {
  kind: 'bearer' | 'basic' | 'cookie' | 'header' | 'query';
  /** Header, cookie or query parameter name ("Authorization", "sid", "X-Api-Key", "api_key"). */
  name: string;
}

/** A request value that came from an earlier response (a CSRF token, an id): where to take it from. */
export interface ApiDependency {
  /** Where the value goes in this endpoint's request: header X-CSRF-Token, body /csrf, query token... */
  target: { in: 'header' | 'query' | 'body' | 'path'; name: string };
  /** The endpoint id whose response holds it, and where. */
  source: { endpoint: string; in: 'body' | 'header' | 'cookie'; /** JSON pointer for body, name otherwise. */ path: string };
}

export interface ApiMessage {
  direction: 'send' | 'receive';
  /** Schema of JSON messages (merged), absent for non-JSON. */
  schema?: JsonSchema;
  example?: string;
  count: number;
}

export interface ApiEndpoint {
  /** Stable within the map: "GET /items/{id}", or "graphql query ItemList", or "WS /ws". */
  id: string;
  kind: 'http' | 'graphql' | 'websocket' | 'eventsource';
  method: string;
  /** Origin, e.g. https://api.example.com. */
  origin: string;
  /** Path template: id-like segments as {id}, {id2} ... */
  path: string;
  /** GraphQL operation (kind graphql). */
  operation?: { type: 'query' | 'mutation' | 'subscription'; name: string };
  /** Writes: POST, PUT, PATCH, DELETE, and GraphQL mutations. */
  write: boolean;
  params: ApiParam[];
  requestBody?: { contentType: string; schema: JsonSchema; example?: string };
  responses: { status: number; contentType?: string; schema?: JsonSchema; example?: string }[];
  pagination?: Pagination;
  auth: ApiAuth[];
  dependencies: ApiDependency[];
  /** WebSocket / EventSource messages. */
  messages?: ApiMessage[];
  /** How many recorded requests this endpoint stands for. */
  seen: number;
}

export interface ApiMap {
  /** api_ and 16 hex digits. */
  id: string;
  name: string;
  /** Hosts the map covers. */
  hosts: string[];
  endpoints: ApiEndpoint[];
  createdAt: string;
  updatedAt: string;
  /** Entries read to build it, over all builds and merges. */
  entries: number;
}

export const API_EXPORT_FORMATS = ['openapi', 'har', 'curl', 'python', 'typescript'] as const;
export type ApiExportFormat = (typeof API_EXPORT_FORMATS)[number];
