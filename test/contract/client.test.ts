/** client/api-types.ts is what openapi-typescript makes of the current API document: run `npm run gen` when this fails. */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { renderClientTypes } from '../../scripts/gen-docs.js';

t.test('client/api-types.ts is generated from api/openapi.yaml and up to date', async (t) => {
  const onDisk = readFileSync(new URL('../../client/api-types.ts', import.meta.url), 'utf8');
  t.equal(onDisk, await renderClientTypes(), 'client/api-types.ts is stale: run `npm run gen`');
  t.match(onDisk, /"\/v1\/webhooks\/\{id\}\/deliveries"/);
  t.match(onDisk, /"\/v1\/tools\/browser_open"/);
});
