/**
 * The parameters many tools share (tab, ref, snapshot, includeHidden, model, maxTokensTotal, ids, cursor) carry
 * no description in tool schemas: over MCP they are explained once, in the server's instructions. REST readers
 * of api/openapi.yaml look at one operation at a time, so there every such parameter has a description, from the
 * one table in protocol/shared-params.ts; tools/list stays without them.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import YAML from 'yaml';
import { TOOLS } from '../../daemon/main.js';
import { toolList } from '../../daemon/server/tool-list.js';
import { SERVER_INSTRUCTIONS } from '../../daemon/server/mcp.js';
import { ID_MAKERS, idPrefixes, SHARED_PARAMS, withSharedDescriptions } from '../../protocol/shared-params.js';
import { own } from '../../protocol/own.js';
import { repoRoot } from '../fixtures/source-files.js';

type Schema = Record<string, any>;

/** Parameters the MCP server's instructions explain for every tool, by name. */
const NAMED = ['tab', 'ref', 'snapshot', 'includeHidden', 'model', 'maxTokensTotal', 'cursor'];

const doc = YAML.parse(readFileSync(`${repoRoot}api/openapi.yaml`, 'utf8')) as { paths: Record<string, Record<string, Schema>> };

interface Param {
  where: string;
  name: string;
  schema: Schema;
  description?: string;
  /** A parameter of the operation itself (path, query, or a top-level body property), not a field inside one. */
  top: boolean;
}

/** Every property of a schema, nested ones included, with where it is. */
function properties(s: unknown, where: string, out: Param[], top = false): Param[] {
  if (Array.isArray(s)) s.forEach((x, i) => properties(x, `${where}[${i}]`, out, top));
  else if (s && typeof s === 'object') {
    for (const [k, v] of Object.entries(s as Schema)) {
      if (k === 'properties' && v && typeof v === 'object') {
        for (const [name, p] of Object.entries(v as Schema)) {
          out.push({ where: `${where}.${name}`, name, schema: p, description: p?.description, top });
          properties(p, `${where}.${name}`, out);
        }
      } else if (typeof v === 'object') properties(v, `${where}.${k}`, out, top && ['anyOf', 'oneOf', 'allOf'].includes(k));
    }
  }
  return out;
}

/** Every parameter a client sends: path and query parameters, and the properties of every request body. */
function everyParameter(): Param[] {
  const out: Param[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const at = `${method.toUpperCase()} ${path}`;
      for (const p of op.parameters ?? []) {
        out.push({ where: `${at} ${p.in} ${p.name}`, name: p.name, schema: p.schema ?? {}, description: p.description, top: true });
        properties(p.schema, `${at} ${p.in} ${p.name}`, out);
      }
      for (const [type, c] of Object.entries((op.requestBody?.content ?? {}) as Record<string, Schema>)) properties(c.schema, `${at} body(${type})`, out, true);
    }
  }
  return out;
}

const all = everyParameter();

t.test('every shared parameter in api/openapi.yaml has a description', async (t) => {
  const missing: string[] = [];
  const counts = new Map<string, number>();
  for (const p of all) {
    const shared = SHARED_PARAMS.find((x) => x.matches(p.name, p.schema));
    // By name only at the top: deeper down a field may share a name and mean something else (a device's model).
    const named = p.top && NAMED.includes(p.name);
    if (!shared && !named) continue;
    if (shared) counts.set(shared.key, (counts.get(shared.key) ?? 0) + 1);
    if (!p.description?.trim()) missing.push(p.where);
  }
  t.same(missing, [], 'shared parameters without a description (protocol/shared-params.ts, then npm run gen)');
  // Each row of the table is in use, so none of them matches nothing by mistake (a renamed pattern, a typo).
  for (const s of SHARED_PARAMS) t.ok((counts.get(s.key) ?? 0) > 0, `${s.key}: the table's row matches parameters in the document`);
  t.ok((counts.get('tab') ?? 0) >= 40, `tab: ${counts.get('tab')} operations take it`);
});

t.test('each shared parameter in the document reads as the table says (or as its tool says, more precisely)', async (t) => {
  const tabs = all.filter((p) => p.name === 'tab' && SHARED_PARAMS[0]!.matches(p.name, p.schema));
  const generic = tabs.filter((p) => p.description!.startsWith('Tab id such as "t2"'));
  t.ok(generic.length >= 40, 'most tab parameters carry the table\'s words');
  const required = all.find((p) => p.where === 'POST /v1/tools/browser_focus_tab body(application/json).tab');
  t.ok(required, 'browser_focus_tab takes a tab');
  t.notMatch(required!.description, /Default/, 'a required tab is not said to have a default');
  const model = all.find((p) => p.where === 'POST /v1/tools/browser_extract_ai body(application/json).model');
  t.match(model?.description, /GET \/v1\/models/);
});

t.test('every kind of id a parameter takes names the call that hands it out', async (t) => {
  const prefixes = new Set(all.flatMap((p) => idPrefixes(p.schema.pattern) ?? []));
  t.ok(prefixes.size >= 8, [...prefixes].join(', '));
  for (const p of prefixes) t.ok(own(ID_MAKERS, p), `${p}_ has an ID_MAKERS entry`);
});

t.test('tools/list stays without them: the words are in the server instructions, not in each tool', async (t) => {
  for (const k of NAMED) t.match(SERVER_INSTRUCTIONS, new RegExp(`\\b${k}\\b`), `the instructions explain ${k}`);
  const described: string[] = [];
  for (const tool of toolList(TOOLS.tools).tools) {
    const props = (tool.inputSchema.properties ?? {}) as Record<string, Schema>;
    for (const [name, s] of Object.entries(props)) {
      const shared = SHARED_PARAMS.find((x) => x.matches(name, s));
      if (shared && s.description && s.description === shared.describe(s, (tool.inputSchema.required ?? []).includes(name))) described.push(`${tool.name}.${name}`);
    }
  }
  t.same(described, [], 'no tool lists the table\'s description of a shared parameter');
});

t.test('withSharedDescriptions copies: the schema it is given (cached, and listed over MCP) is unchanged', async (t) => {
  const input = { type: 'object', properties: { tab: { type: 'string', pattern: '^(?:[a-z0-9][a-z0-9_-]{0,39}/)?t[1-9][0-9]{0,8}$' }, nested: { type: 'array', items: { type: 'object', properties: { includeHidden: { type: 'boolean' } } } } } };
  const before = JSON.stringify(input);
  const out = withSharedDescriptions(input) as Schema;
  t.equal(JSON.stringify(input), before);
  t.match(out.properties.tab.description, /^Tab id/);
  t.match(out.properties.tab.description, /Default/, 'optional: its default is named');
  t.match(out.properties.nested.items.properties.includeHidden.description, /cannot see/, 'nested properties too');
  const own = withSharedDescriptions({ type: 'object', properties: { tab: { type: 'string', description: 'The tab to focus.', pattern: input.properties.tab.pattern } }, required: ['tab'] }) as Schema;
  t.equal(own.properties.tab.description, 'The tab to focus.', "a tool's own description wins");
  const other = withSharedDescriptions({ type: 'object', properties: { tab: { type: 'integer' } } }) as Schema;
  t.equal(other.properties.tab.description, undefined, 'a parameter that only shares the name is left alone');
});
