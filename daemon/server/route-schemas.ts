/**
 * The path and query schemas of the REST routes (TypeBox, like a tool's input): routes.ts attaches them to its
 * rows, route-input.ts checks every request against them before a handler runs, and scripts/docs.ts writes
 * them into api/openapi.yaml. One copy, so what is checked and what is documented cannot drift apart.
 */
import { Type, type TSchema, type TObject, type TProperties } from '@sinclair/typebox';
import { CACHE_NAME, CRAWL_ID, WEBHOOK_ID } from '../../protocol/ids.js';
import { TASK_STATES } from '../../protocol/tasks.js';
import { StringEnum } from '../../protocol/params.js';
import { EXPORT_FORMATS } from '../crawl/export.js';

/**
 * What the validator says when a value does not fit, beside the schema. A symbol key: JSON (the OpenAPI, the
 * ajv compile) never sees it.
 */
export const HINT = Symbol('routeHint');
export interface ParamHint {
  /** The whole message, where the shape-derived one would not say it well. */
  message?: string;
  /** What the value should be, as in `"x" is not <what>` (path) or `name must be <what>` (query). */
  what?: string;
  /** The `next` of the validation_error. */
  next?: string;
  /** An empty query value counts as leaving the parameter out. */
  emptyIsAbsent?: boolean;
}

export function hinted<S extends TSchema>(schema: S, hint: ParamHint): S {
  (schema as unknown as Record<symbol, ParamHint>)[HINT] = hint;
  return schema;
}

export const hintOf = (schema: TSchema): ParamHint => (schema as unknown as Record<symbol, ParamHint | undefined>)[HINT] ?? {};

/** A route's path parameters or query: named strings and whole numbers; unknown query keys are ignored. */
const group = <P extends TProperties>(props: P): TObject<P> => Type.Object(props);

/** A path segment, decoded; `next` says what to send when it cannot be decoded. */
const segment = (description: string | undefined, next: string, extra: Record<string, unknown> = {}) =>
  hinted(Type.String({ ...(description ? { description } : {}), ...extra }), { next });

const cursor = (next: string, empty?: string) =>
  hinted(Type.String({ description: 'Opaque, from the previous page, valid for the caller only; anything else is validation_error.', ...(empty ? { minLength: 1 } : {}) }), { next, ...(empty ? { message: empty } : {}) });

const limit = (min: number, max: number, dflt: number | undefined) => Type.Integer({ minimum: min, maximum: max, ...(dflt !== undefined ? { default: dflt } : {}) });

const CURSOR_NEXT = 'Pass the cursor from your previous page unchanged, or omit it to start at the beginning.';

// ---- crawls
const crawlId = hinted(Type.String({ description: "crawl_ and 16 hex digits; another user's id is not_found.", pattern: CRAWL_ID.source }), {
  what: 'a crawl id',
  next: 'Use the id POST /v1/crawls answered: crawl_ and 16 hex digits (GET /v1/crawls lists yours).',
});
const itemStatus = hinted(StringEnum(['done', 'failed', 'blocked'], { description: 'Only items with this status.' }), { next: 'Pass ?status=done, or leave it out for every item.', emptyIsAbsent: true });
export const CrawlPath = group({ id: crawlId });
export const CrawlListQuery = group({ limit: Type.Optional(limit(1, 500, 50)), cursor: Type.Optional(cursor(CURSOR_NEXT, 'the cursor is empty')) });
export const CrawlItemsQuery = group({ status: Type.Optional(itemStatus), limit: Type.Optional(limit(1, 500, 100)), cursor: Type.Optional(cursor(CURSOR_NEXT, 'the cursor is empty')) });
export const CrawlExportQuery = group({
  format: Type.Optional(hinted(Type.Unsafe<string>({ type: 'string', enum: [...EXPORT_FORMATS], default: 'jsonl' }), { next: 'Pass ?format=jsonl, ?format=csv or ?format=json.' })),
  status: Type.Optional(itemStatus),
});

// ---- webhooks
export const WebhookPath = group({
  id: hinted(Type.String({ pattern: WEBHOOK_ID.source }), { what: 'a webhook id', next: 'Use the id POST /v1/webhooks answered: wh_ and 16 hex digits (GET /v1/webhooks lists yours).' }),
});
export const DeliveriesQuery = group({
  limit: Type.Optional(limit(1, 100, 20)),
  state: Type.Optional(hinted(Type.Unsafe<string>({ type: 'string', enum: ['pending', 'delivered', 'failed'] }), { next: 'Pass ?state=failed, or leave it out for every delivery.', emptyIsAbsent: true })),
});

// ---- caches
export const CachePath = group({
  name: hinted(Type.String({ description: 'letters, digits, ".", "_", "-"', pattern: CACHE_NAME.source }), { what: 'a cache name', next: 'Cache names are 1-64 letters, digits, ".", "_" or "-" (GET /v1/caches lists yours).' }),
});

// ---- research and tasks: ids are checked by the operation's own schema (audited there), only decoded here
const opId = (what: string) => segment(`${what}; another user's id is not_found.`, 'Use the id as answered, unchanged.');
export const ResearchPath = group({ id: opId('res_ and 16 hex digits') });
export const TaskPath = group({ id: opId('task_ and 16 hex digits') });
export const TaskListQuery = group({ state: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: [...TASK_STATES] })) });
export const TaskGetQuery = group({ waitS: Type.Optional(hinted(Type.Integer({ minimum: 0, maximum: 60 }), { next: 'Pass ?waitS=30, or leave it out.' })) });

// ---- extractors and model steps on a tab
export const ExtractorPath = group({ id: segment("ext_ and 16 hex digits; another user's id is not_found.", 'Use the id POST /v1/extractors answered: ext_ and 16 hex digits.') });
export const ActTabPath = group({ id: segment("The tab id (t2, or <profile>%2Ft2); another user's tab is not_found.", 'Use a tab id such as t2 (browser_tabs lists them).') });

// ---- tabs, tools, files
export const TabPath = group({ id: segment(undefined, 'Percent-encode the name correctly.') });
export const HarTabPath = group({ id: segment(undefined, 'Percent-encode the tab id correctly.') });
export const ToolPath = group({ name: segment(undefined, 'Percent-encode the name correctly.') });
export const FilePath = group({ name: segment(undefined, 'Percent-encode the name correctly.') });

// ---- usage and audit
const day = (name: string, description: string) =>
  hinted(Type.String({ format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description }), { what: 'a day as YYYY-MM-DD', next: `Pass ${name}=2026-01-31, or leave it out.` });
export const UsageQuery = group({ from: Type.Optional(day('from', 'First day (YYYY-MM-DD, UTC), inclusive')), to: Type.Optional(day('to', 'Last day (YYYY-MM-DD, UTC), inclusive')) });
export const AuditQuery = group({
  limit: Type.Optional(hinted(limit(1, 500, undefined), { next: 'Pass ?limit=50.' })),
  cursor: Type.Optional(cursor('Pass the cursor from your previous page unchanged, or omit it for the newest entries.')),
});
export const AdminAuditQuery = group({ limit: Type.Optional(hinted(limit(1, 10000, undefined), { next: 'Pass ?limit=100.' })) });
