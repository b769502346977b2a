/**
 * api/openapi.yaml is a contract other tools read, so it must pass theirs: swagger-parser (the OpenAPI 3.1
 * schema and every $ref) and Redocly's recommended rules. Two of Redocly's warnings stay, each for a reason
 * named here; anything else it says fails this file.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { repoRoot } from '../fixtures/source-files.js';

const path = `${repoRoot}api/openapi.yaml`;

/** Warnings kept on purpose, by rule and place. */
const KEPT = new Map([
  // No licence has been granted for this code: the document names none rather than guess one.
  ['info-license #/info', 'no licence is declared'],
  // The liveness probe answers 200 or 503 and nothing else: no client mistake can reach it.
  ['operation-4xx-response #/paths/~1health/get/responses', '/health has no 4xx'],
]);

t.test('swagger-parser accepts the document', async (t) => {
  const api = (await SwaggerParser.validate(path)) as { openapi: string; paths: Record<string, unknown> };
  t.equal(api.openapi, '3.1.0');
  t.ok(Object.keys(api.paths).length > 100, 'every route and tool path is there');
});

t.test("Redocly's recommended rules find no error, and no warning beyond the two kept", async (t) => {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source: readFileSync(path, 'utf8'), absoluteRef: path, config });
  const said = problems.map((p) => `${p.ruleId} ${p.location?.[0]?.pointer ?? ''}`);
  t.same(problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message}`), [], 'no error');
  t.same(said.filter((s) => !KEPT.has(s)), [], 'no warning beyond the kept ones');
});

t.test('the checks can fail: a license without identifier or url is refused by swagger-parser', async (t) => {
  const doc = { openapi: '3.1.0', info: { title: 'x', version: '1', license: { name: 'UNLICENSED' } }, paths: {} };
  await t.rejects(SwaggerParser.validate(doc as never), /license/);
});
