/**
 * Every result field whose words a page (or the site's server) chooses is marked page text, so an MCP client that
 * hands structuredContent to its model gets it fenced. The check goes by field name: a field called url, title,
 * href, name, path, mimeType ... in any tool's output schema is page text unless it is listed below as ours,
 * with why. A new tool that reports a page's address in a plain string fails here until it decides.
 */
import t from 'tap';
import { TOOLS } from '../../daemon/main.js';
import { outputJsonSchema } from '../../daemon/call/output.js';
import { PAGE_KEYS, PAGE_TEXT } from '../../daemon/call/output.js';

/** Field names that usually hold what a page or server chose. */
const PAGE_CHOSEN_NAME =
  /^(url|urls|href|src|link|rel|form|title|name|tag|path|example|param|limitParam|from|contentType|mimeType|redirectUrl|headingPath|chunk|startUrl|loginUrl|searchUrl|searchParam|listings|language|cookiesRefused|message|error|id|action|css|role|locator)$/;

/** Fields with such a name whose value is ours, the user's, or checked to a form that carries no words. */
const OURS: Record<string, string> = {
  // Ids we mint (tab ids, task ids ...) are checked below apart: only an id a page shapes is page text.
  'browser_explore .map.pages[].forms[].role': 'our word for what the form is for (login, search ...)',
  'browser_recall .memory.map.pages[].forms[].role': 'our word for what the form is for (login, search ...)',
  'browser_api_map .name': "the map's name: the user's, or ours from hosts",
  'browser_api_map .maps[].name': "the map's name: the user's, or ours from hosts",
  'browser_api_map .url': 'our file link',
  'browser_api_map .mimeType': 'ours, by export format',
  'browser_contexts .contexts[].name': "the user's context name",
  'browser_convert .file.mimeType': 'ours, by the file type we detected',
  'browser_crawl .crawl.name': "the user's crawl name",
  'browser_crawl_status .crawl.name': "the user's crawl name",
  'browser_crawl_status .items[].error': "our words; the page's part is in errorPageText",
  'browser_download_get .mimeType': 'ours, by file type',
  'browser_download_link .url': 'our share link',
  'browser_downloads .files[].mimeType': 'ours, by file type',
  'browser_extract_ai .citations[].chunk': 'our passage id (c1, c2 ...)',
  'browser_extract_ai .results[].citations[].chunk': 'our passage id (c1, c2 ...)',
  'browser_extract_ai .results[].error.message': "our words; the page's part is in error.pageText",
  'browser_handoff .url': 'our hand-off link',
  'browser_har .url': 'our file link',
  'browser_login .handoff.url': 'our hand-off link',
  'browser_monitor .monitor.name': "the user's monitor name",
  'browser_monitor .monitor.url': 'the address the user gave',
  'browser_monitor .monitors[].name': "the user's monitor name",
  'browser_monitor .monitors[].url': 'the address the user gave',
  'browser_pdf .file.mimeType': 'ours',
  'browser_pdf .file.name': 'the name the user gave, or ours from host and time',
  'browser_pdf .file.url': 'our file link',
  'browser_read .pages[].error': "our words; the page's part is in errorPageText",
  'browser_record .recording.name': "the user's recording name",
  'browser_record .recordings[].name': "the user's recording name",
  'browser_replay .replay.error': "our words; a step's page text is in its message",
  'browser_replay_wait .replay.error': "our words; a step's page text is in its message",
  'browser_route .route.contentType': 'the content type the user gave the route',
  'browser_route .routes[].contentType': 'the content type the user gave the route',
  'browser_session_list .sessions[].name': "the user's session name",
  'browser_session_save .session.name': "the user's session name",
  'browser_vault_list .entries[].loginUrl': 'the login address the user stored (bound to its site)',
  'browser_vault_list .entries[].name': "the user's entry name",
  'browser_workspaces .workspaces[].name': "the user's workspace name",
};

/** Ids are ours (tab_, crw_ ...) except where a site's path makes them: an API map endpoint is "GET /path". */
const PAGE_SHAPED_IDS = new Set(['browser_api_map .endpoint.id', 'browser_api_map .endpoints[].id', 'browser_api_map .endpoint.dependencies[].source.endpoint', 'browser_api_map .endpoints[].dependencies[].source.endpoint']);

interface Field {
  tool: string;
  path: string;
  name: string;
  page: boolean;
}

function fields(tool: string, s: any, path: string, name: string, out: Field[]) {
  if (!s || typeof s !== 'object') return;
  if (s[PAGE_TEXT]) {
    out.push({ tool, path, name, page: true });
    return;
  }
  // A string whose form we fix (enum, const, pattern, format) carries no free words.
  if (s.type === 'string' && !s.enum && s.const === undefined && !s.pattern && !s.format) out.push({ tool, path, name, page: false });
  for (const k of ['anyOf', 'oneOf', 'allOf']) if (Array.isArray(s[k])) for (const x of s[k]) fields(tool, x, path, name, out);
  if (s.properties) for (const [k, v] of Object.entries(s.properties)) fields(tool, v, `${path}.${k}`, k, out);
  if (s.items) fields(tool, s.items, `${path}[]`, name, out);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') fields(tool, s.additionalProperties, `${path}{}`, name, out);
  // A TypeBox Record keeps its value schema under patternProperties.
  if (s.patternProperties) for (const v of Object.values(s.patternProperties)) fields(tool, v, `${path}{}`, name, out);
}

const all: Field[] = [];
for (const tool of TOOLS.tools) {
  const schema = outputJsonSchema(tool);
  if (schema) fields(tool.name, schema, '', '', all);
}

t.test('fields named for what a page chooses are page text, or listed as ours with a reason', async (t) => {
  t.ok(all.length > 300, `the walk found the output fields (${all.length})`);
  const plain = all.filter((f) => !f.page && PAGE_CHOSEN_NAME.test(f.name));
  const unmarked = plain.filter((f) => {
    const key = `${f.tool} ${f.path}`;
    if (f.name === 'id') return PAGE_SHAPED_IDS.has(key);
    // The tool action an approval is asked for: a name of ours.
    if (f.path.endsWith('.needsApproval.action')) return false;
    return !(key in OURS);
  });
  t.same(unmarked.map((f) => `${f.tool} ${f.path}`), [], 'mark these PageText (output.ts), or add them to OURS with why');
});

t.test('every field listed as ours exists and is still a plain string', async (t) => {
  const plain = new Set(all.filter((f) => !f.page).map((f) => `${f.tool} ${f.path}`));
  for (const key of Object.keys(OURS)) t.ok(plain.has(key), `${key} is a plain output string`);
});

/** Records in output schemas, by field name, with whether their names are marked as the page's. */
function records(tool: string, s: any, name: string, out: { tool: string; name: string; pageKeys: boolean }[]) {
  if (!s || typeof s !== 'object' || s[PAGE_TEXT]) return;
  if (s.patternProperties || (s.additionalProperties && typeof s.additionalProperties === 'object')) out.push({ tool, name, pageKeys: Boolean(s[PAGE_KEYS]) });
  for (const k of ['anyOf', 'oneOf', 'allOf']) if (Array.isArray(s[k])) for (const x of s[k]) records(tool, x, name, out);
  if (s.properties) for (const [k, v] of Object.entries(s.properties)) records(tool, v, k, out);
  if (s.items) records(tool, s.items, name, out);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') records(tool, s.additionalProperties, name, out);
  if (s.patternProperties) for (const v of Object.values(s.patternProperties)) records(tool, v, name, out);
}

t.test('records keyed by header names fence their names; records keyed by the caller or by us do not', async (t) => {
  const found: { tool: string; name: string; pageKeys: boolean }[] = [];
  for (const tool of TOOLS.tools) {
    const schema = outputJsonSchema(tool);
    if (schema) records(tool.name, schema, '', found);
  }
  t.ok(found.some((r) => r.pageKeys), 'some record is marked page-keyed (captured headers)');
  // A mock's headers were given by the caller (browser_route); every other headers record came off the wire.
  const unmarked = found.filter((r) => /headers$/i.test(r.name) && !r.pageKeys && r.tool !== 'browser_route');
  t.same(unmarked.map((r) => `${r.tool} .${r.name}`), [], 'header records take PageKeyedRecord (output.ts)');
  // The attributes browser_query was asked for and a crawl's field names are the caller's: plain names.
  const callerKeyed = found.filter((r) => (r.tool === 'browser_query' && r.name === 'attrs') || (r.tool === 'browser_crawl_status' && r.name === 'fields'));
  t.ok(callerKeyed.length >= 2, 'the walk finds the caller-keyed records');
  t.ok(callerKeyed.every((r) => !r.pageKeys), 'caller-keyed records keep plain names');
});
