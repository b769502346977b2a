/**
 * Every route the daemon serves is in api/openapi.yaml and every documented route is served, asked of a live
 * daemon (moved out of test/contract/generated.test.ts so the fast tier starts no daemon).
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import YAML from 'yaml';
import { ROUTES } from '../../daemon/main.js';
import { startTestDaemon } from '../fixtures/daemon.js';

const root = new URL('../../', import.meta.url);

t.test('every route the daemon serves is documented, and every documented route is served', async (t) => {
  const doc = YAML.parse(readFileSync(new URL('api/openapi.yaml', root), 'utf8'));
  for (const r of ROUTES) {
    if (r.path === '/v1/tools/{name}') continue;
    t.ok(doc.paths[r.path]?.[r.method.toLowerCase()], `${r.method} ${r.path} is in api/openapi.yaml`);
  }
  for (const path of ['/v1/profiles', '/v1/files', '/v1/files/{name}', '/v1/audit']) t.ok(doc.paths[path]?.get, `${path} documented`);

  // Ask a live daemon for every documented operation, with arguments it must refuse: no browser starts, and
  // an answer other than "no route" or 405 proves the route is served.
  const d = await startTestDaemon();
  t.teardown(() => d.stop());
  const token = await d.addUser('alice');
  const admin = await d.daemon.env.users.replaceAdminKey();
  let probed = 0;
  for (const [path, ops] of Object.entries<any>(doc.paths)) {
    for (const method of Object.keys(ops)) {
      const concrete = path.replace('{id}', 'not-a-tab').replace('{name}', 'nothing.pdf');
      const key = path.startsWith('/v1/admin/') ? admin : token;
      const body = method === 'post' ? 1 : undefined;
      const r = await d.rest(key, method.toUpperCase(), concrete, body);
      const noRoute = r.status === 405 || (r.status === 404 && /^no route/.test(r.json?.error?.message ?? ''));
      t.notOk(noRoute, `${method.toUpperCase()} ${path} is served (got ${r.status} ${JSON.stringify(r.json).slice(0, 120)})`);
      probed++;
    }
  }
  t.ok(probed >= ROUTES.length, 'every documented operation was probed');
  const undocumented = await d.rest(token, 'GET', '/v1/undocumented');
  t.equal(undocumented.status, 404, 'a path that is not in the table is not served');
});
