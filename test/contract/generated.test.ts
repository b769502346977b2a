/**
 * Generated docs are in step with the registry, the error table and the settings table: run `npm run gen` when
 * this fails. Whole files: api/openapi.yaml, docs/tools.md (client/api-types.ts: client.test.ts). Marked parts:
 * docs/clients.md (errors) and docs/operations.md (settings); the README gets nothing generated.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import YAML from 'yaml';
import { MARKED, renderMarked, renderOpenapi } from '../../scripts/gen-docs.js';
import { renderToolsDoc } from '../../scripts/tools-doc.js';
import { TOOLS_DOC_HEADER } from '../../scripts/tools-doc.js';
import { TOOLSETS } from '../../daemon/server/toolsets.js';
import { TOOLS } from '../../daemon/main.js';
import { ERROR_CODES } from '../../protocol/errors.js';

const root = new URL('../../', import.meta.url);

t.test('api/openapi.yaml is what the registry generates, with a path per tool', async (t) => {
  const onDisk = readFileSync(new URL('api/openapi.yaml', root), 'utf8');
  t.equal(onDisk, renderOpenapi(), 'api/openapi.yaml is stale: run `npm run gen`');
  const doc = YAML.parse(onDisk);
  for (const tool of TOOLS.tools) t.ok(doc.paths[`/v1/tools/${tool.name}`]?.post, `${tool.name} has a REST path`);
  t.same(doc.components.schemas.ErrorCode.enum, Object.keys(ERROR_CODES));
  for (const p of ['/health', '/v1/me', '/v1/tabs', '/v1/tabs/{id}', '/mcp']) t.ok(doc.paths[p], `${p} documented`);
  // OpenAPI 3.1 wants an SPDX identifier with a licence; while package.json declares none, none is named.
  const declared = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).license;
  t.same(doc.info.license, declared ? { name: declared, identifier: declared } : undefined, 'the licence is the package\'s, or none');
  const ids = new Set<string>();
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(ops)) {
      t.ok(op.operationId, `${method} ${path} has an operationId`);
      t.notOk(ids.has(op.operationId), `${op.operationId} is unique`);
      ids.add(op.operationId);
      if (/browser_capacity/.test(op.responses?.['503']?.description ?? '')) t.ok(op.responses['503'].headers?.['Retry-After'], `${method} ${path}: 503 browser_capacity documents Retry-After`);
      if (op.responses?.['405']) t.ok(op.responses['405'].headers?.Allow, `${method} ${path}: 405 documents Allow`);
      if (['post', 'put', 'patch'].includes(method) && !op['x-html-page']) t.ok(op.responses?.['413'], `${method} ${path}: 413 for a body over the limit`);
    }
  }
});

t.test('docs/tools.md is what the registry and the toolsets generate, with every tool once', async (t) => {
  const onDisk = readFileSync(new URL('docs/tools.md', root), 'utf8');
  t.equal(onDisk, renderToolsDoc(), 'docs/tools.md is stale: run `npm run gen`');
  t.ok(onDisk.startsWith(TOOLS_DOC_HEADER), 'it says it is generated');
  const headings = [...onDisk.matchAll(/^### `([^`]+)`$/gm)].map((m) => m[1]);
  t.same([...headings].sort(), TOOLS.names().sort(), 'one section per tool, each tool once');
  for (const set of Object.keys(TOOLSETS)) t.match(onDisk, `\n## Toolset \`${set}\`\n`, `a section for the toolset ${set}`);
  // Cells are safe: within each table every row has the header's number of cells (a raw | or newline would change it).
  const cells = (row: string) => row.split(/(?<!\\)\|/).length;
  let header = 0;
  for (const line of onDisk.split('\n')) {
    if (!line.startsWith('|')) {
      header = 0;
      continue;
    }
    header ||= cells(line);
    if (cells(line) !== header) t.fail(`a table row of docs/tools.md has ${cells(line) - 2} cells, its header ${header - 2}: ${line.slice(0, 120)}`);
  }
});

for (const file of Object.keys(MARKED)) {
  t.test(`the generated parts of ${file} are current`, async (t) => {
    let current: string;
    try {
      current = readFileSync(new URL(file, root), 'utf8');
    } catch {
      t.fail(`${file} is missing: it holds generated parts (${Object.keys(MARKED[file]!).join(', ')}); write it with the markers, then run \`npm run gen\``);
      return;
    }
    t.equal(current, renderMarked(file, current), `${file} is stale: run \`npm run gen\``);
  });
}

t.test('a marked file without its markers is an error that names the file and the markers', async (t) => {
  t.throws(() => renderMarked('docs/clients.md', '# Clients\n'), /docs\/clients\.md.*<!-- generated:errors -->.*<!-- \/generated:errors -->/);
  t.throws(() => renderMarked('docs/operations.md', '<!-- /generated:settings -->\n<!-- generated:settings -->\n'), /docs\/operations\.md.*generated:settings/, 'markers the wrong way round');
  const twice = '<!-- generated:errors -->\n<!-- /generated:errors -->\n<!-- generated:errors -->\n<!-- /generated:errors -->\n';
  t.throws(() => renderMarked('docs/clients.md', twice), /docs\/clients\.md/, 'a pair twice');
});

t.test('every tool name is browser_* and unique; every error code has an HTTP status', async (t) => {
  const names = TOOLS.tools.map((x) => x.name);
  t.equal(new Set(names).size, names.length);
  for (const n of names) t.match(n, /^browser_[a-z_]+$/);
  for (const [code, v] of Object.entries(ERROR_CODES)) t.ok(v.status >= 400 && v.status < 600, code);
});

t.test('no tracked file points outside the repository (a clone has only what is committed)', async (t) => {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: new URL('.', root), encoding: 'utf8' }).split('\0').filter(Boolean);
  t.ok(files.length > 50, 'git ls-files lists the repository');
  // Built from parts so this test file does not match itself.
  const needles = ['../' + 'shared', 'shared' + '/spec', 'shared' + '/DESIGN'];
  const offenders: string[] = [];
  for (const f of files) {
    let text: string;
    try {
      text = readFileSync(new URL(f, root), 'utf8');
    } catch {
      continue;
    }
    for (const n of needles) if (text.includes(n)) offenders.push(`${f} mentions ${n}`);
  }
  t.same(offenders, [], 'no file names the internal notes');
  t.ok(readFileSync(new URL('docs/architecture.md', root), 'utf8').includes('A call, from request to audit'), 'the architecture notes live in the repository');
  t.match(readFileSync(new URL('README.md', root), 'utf8'), /docs\/architecture\.md/, 'and the README points at them');
});
