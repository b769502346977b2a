/** Generated docs are in step with the registry and the error table: run `npm run gen` when this fails. */
import t from 'tap';
import { readFileSync } from 'node:fs';
import YAML from 'yaml';
import { renderOpenapi, renderReadme } from '../../scripts/gen-docs.js';
import { allTools } from '../../daemon/tools/registry.js';
import { ERROR_CODES } from '../../protocol/errors.js';

const root = new URL('../../', import.meta.url);

t.test('api/openapi.yaml is what the registry generates, with a path per tool', async (t) => {
  const onDisk = readFileSync(new URL('api/openapi.yaml', root), 'utf8');
  t.equal(onDisk, renderOpenapi(), 'api/openapi.yaml is stale: run `npm run gen`');
  const doc = YAML.parse(onDisk);
  for (const tool of allTools()) t.ok(doc.paths[`/v1/tools/${tool.name}`]?.post, `${tool.name} has a REST path`);
  t.same(doc.components.schemas.ErrorCode.enum, Object.keys(ERROR_CODES));
  for (const p of ['/health', '/v1/me', '/v1/tabs', '/v1/tabs/{id}', '/mcp']) t.ok(doc.paths[p], `${p} documented`);
});

t.test('the README tool list and error table are generated from the registry', async (t) => {
  const readme = readFileSync(new URL('README.md', root), 'utf8');
  t.equal(readme, renderReadme(readme), 'README.md is stale: run `npm run gen`');
  for (const tool of allTools()) t.match(readme, `\`${tool.name}\``);
});

t.test('every tool name is browser_* and unique; every error code has an HTTP status', async (t) => {
  const names = allTools().map((x) => x.name);
  t.equal(new Set(names).size, names.length);
  for (const n of names) t.match(n, /^browser_[a-z_]+$/);
  for (const [code, v] of Object.entries(ERROR_CODES)) t.ok(v.status >= 400 && v.status < 600, code);
});
