/** Authentication, admin key, health, /v1/me, Host/Origin checks, token replacement. No page is loaded here. */
import t from 'tap';
import { startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';

let d: TestDaemon;
let token: string;
t.before(async () => {
  d = await startTestDaemon();
  token = await d.addUser('alice');
});
t.teardown(() => d.stop());

t.test('health answers without a token', async (t) => {
  const r = await d.rest(undefined, 'GET', '/health');
  t.equal(r.status, 200);
  t.equal(r.json.ok, true);
  t.type(r.json.version, 'string');
});

t.test('a missing or wrong token is a JSON 401 unauthorized on /v1 and /mcp', async (t) => {
  for (const [path, method] of [['/v1/me', 'GET'], ['/v1/tabs', 'GET'], ['/mcp', 'POST'], ['/v1/tools/browser_tabs', 'POST']]) {
    const missing = await d.rest(undefined, method, path, method === 'POST' ? {} : undefined);
    t.equal(missing.status, 401, `${path} without token`);
    t.equal(missing.json.error.code, 'unauthorized');
    t.match(missing.json.error.next, /Authorization: Bearer/);
    const wrong = await d.rest('bd_not-a-real-token', method, path, method === 'POST' ? {} : undefined);
    t.equal(wrong.status, 401, `${path} with a wrong token`);
    t.equal(wrong.json.error.code, 'unauthorized');
  }
});

t.test('/v1/me names the caller, its policy and limits', async (t) => {
  const r = await d.rest(token, 'GET', '/v1/me');
  t.equal(r.status, 200);
  t.equal(r.json.user, 'alice');
  t.equal(r.json.policy.approvals, false);
  t.ok(r.json.limits.maxBrowsersOnHost >= 1);
  t.equal(r.json.limits.tabsPerUser, 100);
  t.equal(r.json.limits.mcpSessionsPerUser, 32);
});

t.test('a replaced token stops working at once; the new one works', async (t) => {
  const bob = await d.addUser('bob');
  t.equal((await d.rest(bob, 'GET', '/v1/me')).status, 200);
  const fresh = await d.daemon.env.users.replaceToken('bob');
  const old = await d.rest(bob, 'GET', '/v1/me');
  t.equal(old.status, 401);
  t.equal(old.json.error.code, 'unauthorized');
  t.equal((await d.rest(fresh, 'GET', '/v1/me')).json.user, 'bob');
});

t.test('the admin key is not a user token and a user token is not the admin key', async (t) => {
  const admin = await d.daemon.env.users.replaceAdminKey();
  const list = await d.rest(admin, 'GET', '/v1/admin/users');
  t.equal(list.status, 200);
  t.ok(list.json.users.some((u: any) => u.name === 'alice'));
  t.equal((await d.rest(token, 'GET', '/v1/admin/users')).status, 403, 'user token on an admin route');
  t.equal((await d.rest(admin, 'GET', '/v1/me')).status, 401, 'admin key on a user route');
  const created = await d.rest(admin, 'POST', '/v1/admin/users', { name: 'carol' });
  t.equal(created.status, 201);
  t.equal((await d.rest(created.json.token, 'GET', '/v1/me')).json.user, 'carol');
  const bad = await d.rest(admin, 'POST', '/v1/admin/users', { name: 'Not Valid!' });
  t.equal(bad.status, 400);
  t.equal(bad.json.error.code, 'validation_error');
});

t.test('a foreign Origin or Host is refused (DNS rebinding)', async (t) => {
  const evil = await d.rest(token, 'GET', '/v1/me', undefined, { Origin: 'http://evil.example' });
  t.equal(evil.status, 403);
  t.equal(evil.json.error.code, 'forbidden');
  const mcp = await d.rest(token, 'POST', '/mcp', {}, { Origin: 'http://evil.example' });
  t.equal(mcp.status, 403);
  const same = await d.rest(token, 'GET', '/v1/me', undefined, { Origin: d.url });
  t.equal(same.status, 200);
});

t.test('unknown routes and methods get clear JSON errors', async (t) => {
  const r = await d.rest(token, 'GET', '/v1/nope');
  t.equal(r.status, 404);
  t.equal(r.json.error.code, 'not_found');
  const m = await d.rest(token, 'PUT', '/v1/tabs', {});
  t.equal(m.status, 405);
  t.equal(m.json.error.code, 'method_not_allowed');
  const badJson = await fetch(`${d.url}/v1/tools/browser_tabs`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: '{nope' });
  t.equal(badJson.status, 400);
  t.equal(((await badJson.json()) as any).error.code, 'validation_error');
});

t.test('while closing, requests get 503 shutting_down and health says not ok', async (t) => {
  d.daemon.app.closing = true;
  t.teardown(() => void (d.daemon.app.closing = false));
  const me = await d.rest(token, 'GET', '/v1/me');
  t.equal(me.status, 503);
  t.equal(me.json.error.code, 'shutting_down');
  const health = await d.rest(undefined, 'GET', '/health');
  t.equal(health.status, 503);
  t.equal(health.json.ok, false);
});
