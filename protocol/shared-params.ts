/**
 * What the parameters many tools and routes share mean, for readers of api/openapi.yaml. Over MCP these words
 * are said once, in the server's instructions (daemon/server/mcp.ts SERVER_INSTRUCTIONS), because a model reads
 * every tool's input schema on every turn; the schemas themselves carry no description for them
 * (protocol/params.ts). A REST reader looks up one operation at a time, so the OpenAPI generator
 * (scripts/docs.ts) writes the matching description onto each such parameter that has none of its own.
 * Only the document gets them: tools/list is built from the schemas, never from this table.
 *
 * A parameter is matched by its name and its shape (its pattern or type), so an unrelated parameter that
 * happens to share a name is left alone; a tool's own description of a parameter always wins.
 */
import { MAX_TOKENS_TOTAL_LIMIT, DEFAULT_MAX_TOKENS_TOTAL, MODEL_ID_PATTERN } from './model-params.js';
import { REF_PATTERN, TAB_PATTERN } from './params.js';
import { own } from './own.js';

type Schema = Record<string, unknown>;

export interface SharedParam {
  /** What the table calls it (the property name, or the kind for ids and refs, which go by many names). */
  key: string;
  matches(name: string, schema: Schema): boolean;
  describe(schema: Schema, required: boolean): string;
}

/** Which call hands out each kind of id (the part before `_` and 16 hex digits). */
export const ID_MAKERS: Readonly<Record<string, string>> = {
  api: 'browser_api_map build',
  cap: 'browser_captcha_inspect',
  cdp: 'browser_sessions start',
  crawl: 'browser_crawl or POST /v1/crawls',
  ext: 'POST /v1/extractors',
  ho: 'browser_handoff',
  mon: 'browser_monitor create',
  rec: 'browser_record',
  res: 'POST /v1/research',
  rpl: 'browser_replay',
  task: 'POST /v1/tasks',
  wh: 'POST /v1/webhooks',
};

/** The prefixes an id pattern such as ^rec_[0-9a-f]{16}$ or ^(rec|rpl)_[0-9a-f]{16}$ accepts, else undefined. */
export function idPrefixes(pattern: unknown): string[] | undefined {
  if (typeof pattern !== 'string') return undefined;
  const m = /^\^(?:\(([a-z]+(?:\|[a-z]+)*)\)|([a-z]+))_\[0-9a-f\]\{16\}\$$/.exec(pattern);
  return m ? (m[1] ?? m[2]!).split('|') : undefined;
}

const orDefault = (required: boolean, text: string) => (required ? '' : ` ${text}`);

export const SHARED_PARAMS: readonly SharedParam[] = [
  {
    key: 'tab',
    matches: (name, s) => name === 'tab' && s.pattern === TAB_PATTERN,
    describe: (_s, required) => `Tab id such as "t2" (a named profile's tab is "<profile>/t2"), from browser_open or browser_tabs.${orDefault(required, 'Default: the focused or most recent tab.')}`,
  },
  {
    key: 'ref',
    // ref, fromRef, toRef, the refs of a form: any parameter that takes an element ref.
    matches: (_name, s) => s.pattern === REF_PATTERN,
    describe: () => 'Element ref from browser_snapshot, browser_query or browser_find_text: "e12", or "f1:e3" inside frame 1 (same- or cross-origin).',
  },
  {
    key: 'snapshot',
    matches: (name, s) => name === 'snapshot' && s.type === 'boolean',
    describe: () => 'Also answer with a snapshot of the page after the action (refs ready for the next step; saves a browser_snapshot call). Default false.',
  },
  {
    key: 'includeHidden',
    matches: (name, s) => name === 'includeHidden' && s.type === 'boolean',
    describe: () => 'Include text a person cannot see (hidden, transparent, off-screen, background-coloured). Default false.',
  },
  {
    key: 'model',
    matches: (_name, s) => s.pattern === MODEL_ID_PATTERN,
    describe: (_s, required) => `A model id from GET /v1/models, such as "openai/gpt-5.4-mini".${orDefault(required, "Default: the server's default model.")}`,
  },
  {
    key: 'maxTokensTotal',
    matches: (name, s) => name === 'maxTokensTotal' && s.type === 'integer',
    describe: (_s, required) => `Token budget over every model turn of this call, 1-${MAX_TOKENS_TOTAL_LIMIT}.${orDefault(required, `Default ${DEFAULT_MAX_TOKENS_TOTAL}.`)} A turn that cannot fit is refused (budget_exceeded) before it is sent.`,
  },
  {
    key: 'id',
    // id, map, capture, ...: any parameter that takes an id one call handed out for later ones.
    matches: (_name, s) => idPrefixes(s.pattern) !== undefined,
    describe: (s) => {
      const prefixes = idPrefixes(s.pattern)!;
      const makers = prefixes.map((p) => {
        const maker = own(ID_MAKERS, p);
        if (!maker) throw new Error(`protocol/shared-params.ts: no ID_MAKERS entry says which call hands out ${p}_ ids`);
        return maker;
      });
      return `An id as ${makers.join(' or ')} answered it: ${prefixes.map((p) => `${p}_`).join(' or ')} and 16 hex digits.`;
    },
  },
  {
    key: 'cursor',
    matches: (name, s) => name === 'cursor' && s.type === 'string',
    describe: () => "The previous answer's cursor (also in its More line), to go on where it stopped. Omit it to start at the beginning.",
  },
];

/** The table's description for a parameter, or undefined when it is not a shared one. */
export function sharedDescription(name: string, schema: Schema, required: boolean): string | undefined {
  const p = SHARED_PARAMS.find((x) => x.matches(name, schema));
  return p?.describe(schema, required);
}

/**
 * A copy of a JSON Schema in which every property that is a shared parameter and has no description of its own
 * gets the table's (nested objects, array items and alternatives included). The input is never changed: tool
 * input schemas are cached and also listed over MCP.
 */
export function withSharedDescriptions<S>(schema: S): S {
  const walk = (s: unknown): unknown => {
    if (Array.isArray(s)) return s.map(walk);
    if (!s || typeof s !== 'object') return s;
    const out: Schema = {};
    for (const [k, v] of Object.entries(s as Schema)) out[k] = k === 'properties' || k === 'patternProperties' || k === '$defs' || k === 'definitions' ? walkMap(v) : KEYWORDS_WITH_SCHEMAS.has(k) ? walk(v) : v;
    const props = out.properties as Record<string, Schema> | undefined;
    if (props && typeof props === 'object') {
      const required = new Set(Array.isArray(out.required) ? (out.required as string[]) : []);
      for (const [name, p] of Object.entries(props)) {
        if (!p || typeof p !== 'object' || p.description) continue;
        const d = sharedDescription(name, p, required.has(name));
        if (d) props[name] = { description: d, ...p };
      }
    }
    return out;
  };
  const walkMap = (m: unknown): unknown => (m && typeof m === 'object' && !Array.isArray(m) ? Object.fromEntries(Object.entries(m as Schema).map(([k, v]) => [k, walk(v)])) : m);
  return walk(schema) as S;
}

/** JSON Schema keywords whose value is a schema or a list of schemas (walked for nested parameters). */
const KEYWORDS_WITH_SCHEMAS = new Set(['items', 'prefixItems', 'additionalProperties', 'anyOf', 'oneOf', 'allOf', 'not', 'if', 'then', 'else']);
