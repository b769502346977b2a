/**
 * A tool's structured result: the fields its handler sets with `out.set`, described once as a TypeBox object
 * (`ToolDef.output`). The same schema is the MCP `outputSchema` (clients of protocol 2025-06-18 and later get
 * `structuredContent` beside the text) and the REST answer's schema in api/openapi.yaml.
 *
 * Page text stays fenced over MCP: a client may hand `structuredContent` to its model instead of the text, so
 * every string a page controls in bulk (marked with `PageText`) is wrapped in the result's fence there, and
 * every other string loses any fence marker it carries. REST callers are programs: they get the values as-is.
 */
import { Type, type TObject } from '@sinclair/typebox';
import { Ajv, type ValidateFunction } from 'ajv';
import { toJsonSchema } from './schema.js';
import { PAGE_KEYS, PAGE_TEXT, PageText } from '../../protocol/output-fields.js';

/**
 * What this file reads of a tool definition (define.ts's ToolDef has it all): named here so the output rules
 * do not import the definition type, which imports the handler's context and response builder in turn.
 */
export interface ToolOutputs {
  name: string;
  output?: TObject;
  effect: string;
  touches?: readonly unknown[];
}

// The vocabulary of output schemas lives in protocol/; tool definitions keep importing it from here.
export { PAGE_KEYS, PAGE_TEXT, PageKeyedRecord, PageText, PageValue, TabIdField, UrlField, TabModeField, LiveModeField, TabInfo } from '../../protocol/output-fields.js';

/** What any tool's result may carry besides its own fields: writes a read tab blocked during the call. */
const Blocked = Type.Array(Type.Object({ method: Type.String(), url: Type.Optional(PageText({ description: 'The address the page tried to write to.' })), reason: Type.Optional(Type.String()) }), {
  description: 'Writes refused in a read tab (or sent from an act tab) while this call ran; nothing was sent.',
});

/** What the policy asks the user to approve (response.ts ApprovalRequest). */
export const ApprovalField = Type.Object(
  {
    action: Type.String(),
    classes: Type.Array(Type.String()),
    reasons: Type.Array(Type.String()),
    tab: Type.Optional(Type.String()),
    target: Type.Optional(PageText({ description: 'What the action is on (an element, an address, an endpoint): the page chose its words.' })),
  },
  { description: "The action waits for the user's approval: nothing was done." },
);

/** The answer of a call the policy held for the user's approval: nothing was done, so no other field is set. */
const NeedsApproval = Type.Object(
  {
    needsApproval: ApprovalField,
    blocked: Type.Optional(Blocked),
  },
  { required: ['needsApproval'] },
);

/** Whether a tool's call can stop at the policy for approval: it acts on a page, or its effect is not read. */
export function canNeedApproval(t: ToolOutputs): boolean {
  return Boolean(t.touches?.length) || t.effect !== 'read';
}

const published = new WeakMap<ToolOutputs, Record<string, unknown>>();

/**
 * The tool's output schema as clients see it: its own fields plus `blocked`; for a tool that can wait for
 * approval, that or the approval answer. Lenient on fields it does not name (a newer daemon may add some).
 */
export function outputJsonSchema(t: ToolOutputs): Record<string, unknown> | undefined {
  if (!t.output) return undefined;
  let s = published.get(t);
  if (!s) {
    const own = withoutStringLimits(toJsonSchema(t.output)) as Record<string, any>;
    const fields = { ...own, properties: { ...own.properties, blocked: toJsonSchema(Blocked) } };
    s = canNeedApproval(t) ? { type: 'object', anyOf: [fields, toJsonSchema(NeedsApproval)] } : fields;
    published.set(t, s);
  }
  return s;
}

/**
 * The `blocked` field and the approval answer as tools/list gives them, by type: they are the same for every
 * tool (their fields are in api/openapi.yaml), and spelt out they were a fifth of the listed output schemas.
 */
const LISTED_BLOCKED = { type: 'array' };
const LISTED_APPROVAL = { type: 'object', required: ['needsApproval'], properties: { needsApproval: { type: 'object' }, blocked: LISTED_BLOCKED } };

const listed = new WeakMap<ToolOutputs, Record<string, unknown>>();

/**
 * How deep tools/list spells out a result: the tool's own fields with their types, enums and page-text marks,
 * and what they hold (an object's fields, an array's items) by type alone. api/openapi.yaml has every level.
 * One level more costs about 19 KB of tools/list; the budget for the whole list is 100 KB
 * (test/contract/tool-budget.test.ts).
 */
const LISTED_DEPTH = 1;

/**
 * The output schema as MCP tools/list gives it, for a client to check structuredContent with: the tool's
 * fields to LISTED_DEPTH with their types, required names, enums and page-text marks, and no descriptions
 * (what a field means is in the tool's description and in api/openapi.yaml, which keeps the full schema).
 * The `blocked` field and the approval answer that acting tools share are given by their shape. Every result
 * valid under the full schema is valid under this one. Before this, these schemas were two thirds of tools/list.
 */
export function listedOutputSchema(t: ToolOutputs): Record<string, unknown> | undefined {
  if (!t.output) return undefined;
  let s = listed.get(t);
  if (!s) {
    const own = shapeTo(withoutStringLimits(toJsonSchema(t.output)), 0) as Record<string, any>;
    const fields = { ...own, properties: { ...own.properties, blocked: LISTED_BLOCKED } };
    s = canNeedApproval(t) ? { type: 'object', anyOf: [fields, LISTED_APPROVAL] } : fields;
    listed.set(t, s);
  }
  return s;
}

/** Keywords that hold the schemas of what a value contains: one level deeper. */
const NESTING = ['properties', 'patternProperties', 'items', 'additionalProperties'];

/** A schema without descriptions, with what lies below `LISTED_DEPTH` levels of fields given by type only. */
function shapeTo(s: unknown, depth: number): unknown {
  if (Array.isArray(s)) return s.map((x) => shapeTo(x, depth));
  if (!s || typeof s !== 'object') return s;
  const node = s as Record<string, unknown>;
  const nests = NESTING.some((k) => node[k] && typeof node[k] === 'object') || Array.isArray(node.anyOf);
  if (depth > LISTED_DEPTH && nests) return typeOnly(node);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'description' && typeof v === 'string') continue;
    // A result may carry fields a newer daemon adds: the listing never refuses one.
    if (k === 'additionalProperties' && v === false) continue;
    if (k === 'properties' || k === 'patternProperties') out[k] = Object.fromEntries(Object.entries(v as object).map(([p, ps]) => [p, shapeTo(ps, depth + 1)]));
    else if (k === 'items' || k === 'additionalProperties') out[k] = shapeTo(v, depth + 1);
    else out[k] = shapeTo(v, depth);
  }
  return out;
}

/**
 * A schema cut to its type and page-text mark. An anyOf becomes the types of its alternatives (["string",
 * "null"]), or no type at all when one of them has none.
 */
function typeOnly(node: Record<string, unknown>): Record<string, unknown> {
  const alts = Array.isArray(node.anyOf) ? (node.anyOf as Record<string, unknown>[]) : [node];
  const types = alts.flatMap((a) => (Array.isArray(a.type) ? a.type : [a.type]));
  const out: Record<string, unknown> = {};
  if (types.every((x) => typeof x === 'string')) {
    const distinct = [...new Set(types)];
    out.type = distinct.length === 1 ? distinct[0] : distinct;
  }
  if (alts.some((a) => a[PAGE_TEXT])) out[PAGE_TEXT] = true;
  return out;
}

/**
 * A deep copy of a schema with `tweak` applied to every schema in it, inner ones first. The names under
 * `properties` are field names, never keywords, so a field called "format" or "pattern" is left alone.
 */
function mapSchema(s: unknown, tweak: (node: Record<string, unknown>) => Record<string, unknown>): unknown {
  if (Array.isArray(s)) return s.map((x) => mapSchema(x, tweak));
  if (!s || typeof s !== 'object') return s;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    out[k] = k === 'properties' && v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([p, ps]) => [p, mapSchema(ps, tweak)])) : mapSchema(v, tweak);
  }
  return tweak(out);
}

const STRING_LIMITS = ['maxLength', 'minLength', 'pattern', 'format'];

/**
 * Limits on strings belong to inputs. A result schema that borrows an input's shape (the admin's profile
 * settings, say) drops them: over MCP a string with a line break arrives fenced, longer than the limit, and the
 * SDK client would then refuse a true answer. A `format` is dropped for the same reason (a URL a page
 * reports need not be a valid "uri").
 */
export const withoutStringLimits = (s: unknown) =>
  mapSchema(s, (node) => {
    for (const k of STRING_LIMITS) if (typeof node[k] !== 'object') delete node[k];
    return node;
  });

/** A copy of a schema where every object names all its fields: what tests hold each result to. */
const strictCopy = (s: unknown) =>
  mapSchema(s, (node) => {
    if (node.properties && node.additionalProperties === undefined && !node.patternProperties) node.additionalProperties = false;
    return node;
  });

const strictAjv = new Ajv({ allErrors: true, strict: false });
const strictValidators = new WeakMap<ToolOutputs, ValidateFunction>();

/**
 * Checks a result's structured fields against the tool's schema with no unnamed field allowed, and that a
 * tool without a schema sets none. Returns what is wrong, or undefined. Run on every call when
 * BROWSERD_CHECK_OUTPUT=1 (the test suite sets it), so a schema that drifts from its handler fails a test.
 */
export function outputProblems(t: ToolOutputs, data: Record<string, unknown>): string | undefined {
  const keys = Object.keys(data).filter((k) => data[k] !== undefined);
  if (!t.output) {
    const own = keys.filter((k) => k !== 'blocked' && k !== 'needsApproval');
    return own.length ? `${t.name} sets ${own.join(', ')} but declares no output schema` : undefined;
  }
  let v = strictValidators.get(t);
  if (!v) {
    v = strictAjv.compile(strictCopy(outputJsonSchema(t)) as object);
    strictValidators.set(t, v);
  }
  const plain = JSON.parse(JSON.stringify(data));
  if (v(plain)) return undefined;
  return `${t.name} result does not match its output schema: ${strictAjv.errorsText(v.errors, { separator: '; ', dataVar: 'result' })}`;
}

/** Read on each call: the test harness sets it after this module has loaded. */
export const checkOutputs = () => process.env.BROWSERD_CHECK_OUTPUT === '1';

type Fence = (label: string, text: string) => string;

/**
 * The structured result an MCP client gets: strings marked as page text (and any string with a line break,
 * which only page text has) fenced; every other string with fence markers neutralised.
 */
export function structuredForMcp(
  t: ToolOutputs,
  data: Record<string, unknown>,
  fence: Fence,
  neutralise: (s: string) => string,
): Record<string, unknown> {
  const schema = outputJsonSchema(t);
  const plain = (label: string, s: string) => (/[\n\r\u2028\u2029]/.test(s) ? fence(label, s) : neutralise(s));
  return walk(JSON.parse(JSON.stringify(data)), schemasOf(schema), '', fence, plain) as Record<string, unknown>;
}

/** The alternatives a value may match (anyOf/oneOf/allOf flattened), for finding the schema of a field. */
function schemasOf(s: any): any[] {
  if (!s || typeof s !== 'object') return [];
  const alts = [s];
  for (const k of ['anyOf', 'oneOf', 'allOf']) if (Array.isArray(s[k])) for (const sub of s[k]) alts.push(...schemasOf(sub));
  return alts;
}

/** The page-text mark on a value's schema covers every string inside it (a PageValue's nested strings). */
const PAGE_ALL = [{ [PAGE_TEXT]: true }];

function walk(v: unknown, schemas: any[], label: string, fence: Fence, plain: Fence): unknown {
  const marked = schemas.some((s) => s[PAGE_TEXT]);
  if (typeof v === 'string') return marked ? fence(label, v) : plain(label, v);
  if (Array.isArray(v)) {
    const items = marked ? PAGE_ALL : schemas.flatMap((s) => schemasOf(s.items));
    return v.map((x) => walk(x, items, label, fence, plain));
  }
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      // A key the schema names is ours and may label a fence; any other key (a header name, a JSON key a page
      // wrote) is the page's, so a fence's label never holds it.
      const declared = !marked && schemas.some((s) => s.properties && Object.hasOwn(s.properties, k));
      // hasOwn, not a plain lookup: a page's key such as "constructor" must not find Object's own members.
      const sub = marked ? PAGE_ALL : schemas.flatMap((s) => schemasOf((s.properties && Object.hasOwn(s.properties, k) ? s.properties[k] : undefined) ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined) ?? firstPattern(s)));
      const childLabel = declared ? (label ? `${label}.${k}` : k) : label || 'value';
      // A record marked as page-keyed (headers) takes its names from the page: they are fenced like the values.
      const pageKey = !marked && !declared && schemas.some((s) => s[PAGE_KEYS]);
      out[pageKey ? fence(`${childLabel} name`, k) : plain('', k)] = walk(x, sub, childLabel, fence, plain);
    }
    return out;
  }
  return v;
}

function firstPattern(s: any): unknown {
  return s.patternProperties ? Object.values(s.patternProperties)[0] : undefined;
}

