/**
 * Sign-up on the home page and the guide for agents. Sign-up: off by default (no form, 403 and no user made),
 * on makes a user whose token works, one check of names shared with the admin route, and the limit per client
 * address (the sixth attempt in an hour is 429 with Retry-After). The guide: the daemon's public URL, whatever
 * Host the request names, and no secret. No browser is started here.
 */
import t from 'tap';
import { request } from 'node:http';
import { startTestDaemon } from '../fixtures/daemon.js';
import { clientKey } from '../../daemon/server/signup.js';

const PUBLIC = 'https://browserd.example.org';
const d = await startTestDaemon({ publicUrl: PUBLIC });
t.teardown(() => d.stop());
const admin = await d.daemon.env.users.replaceAdminKey();
const alice = await d.addUser('alice');

const form = (fields: Record<string, string>) =>
  fetch(`${d.url}/signup`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
const json = (body: unknown) => fetch(`${d.url}/signup`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

/** A GET with a Host header of our choosing (fetch will not send one it did not derive). */
function getWithHost(path: string, host: string): Promise<{ status: number; type: string; body: string }> {
  const u = new URL(d.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, headers: { Host: host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }));
    });
    req.on('error', reject);
    req.end();
  });
}

t.test('off by default: the home page has no form, and a post makes nobody', async (t) => {
  const home = await fetch(`${d.url}/`);
  t.equal(home.status, 200);
  const page = await home.text();
  t.match(page, /persistent Chromium/, 'says what the service is');
  t.match(page, `${PUBLIC}/mcp`, 'with the MCP URL');
  t.notMatch(page, /id="signup"/, 'no sign-up form');
  t.match(home.headers.get('content-security-policy'), /frame-ancestors 'none'/);
  t.notOk(/<script/i.test(page), 'no script');

  const viaForm = await form({ name: 'mallory' });
  t.equal(viaForm.status, 403);
  t.match(await viaForm.text(), /sign-up is off/);
  const viaJson = await json({ name: 'mallory' });
  t.equal(viaJson.status, 403);
  const body = await viaJson.json();
  t.equal(body.error.code, 'forbidden');
  t.match(body.error.next, /admin/, 'says whom to ask');
  t.notOk(d.daemon.env.users.get('mallory'), 'no user was made');
});

t.test('on: a name makes a user, its token shown once works; names are checked like the admin route', async (t) => {
  t.equal((await d.rest(admin, 'PATCH', '/v1/admin/browser-settings', { signup: true })).status, 200);
  const home = await (await fetch(`${d.url}/`)).text();
  t.match(home, /<form method="post" action="\/signup" id="signup">/, 'the form is there');

  const made = await form({ name: 'carol' });
  t.equal(made.status, 201);
  t.equal(made.headers.get('cache-control'), 'no-store');
  const page = await made.text();
  const token = /id="new-token">(bd_[a-z2-7]{10}\.[A-Za-z0-9_-]+)</.exec(page)?.[1];
  t.ok(token, 'the token is on the page');
  t.match(page, `${PUBLIC}/mcp`, 'with the MCP URL');
  const me = await d.rest(token, 'GET', '/v1/me');
  t.equal(me.status, 200);
  t.equal(me.json.user, 'carol');

  const viaJson = await json({ name: 'dave' });
  t.equal(viaJson.status, 201);
  const answer = await viaJson.json();
  t.equal((await d.rest(answer.token, 'GET', '/v1/me')).json.user, 'dave');
  t.equal(answer.mcpUrl, `${PUBLIC}/mcp`);

  for (const bad of ['Carol', '-x', 'a b', '', 'x'.repeat(65), 'carol']) {
    const r = await json({ name: bad });
    t.equal(r.status, 400, JSON.stringify(bad));
    t.equal((await r.json()).error.code, 'validation_error');
  }
  // The admin route refuses the same names with the same words.
  const sameCheck = await d.rest(admin, 'POST', '/v1/admin/users', { name: 'Carol' });
  t.equal(sameCheck.status, 400);
  t.match(sameCheck.json.error.message, /lowercase letters/);
  const badForm = await form({ name: '<b>x</b>' });
  t.equal(badForm.status, 400);
  t.notMatch(await badForm.text(), /<b>x<\/b>/, 'what was typed is never put back as markup');
});

t.test('the sixth attempt in an hour from one address is 429 with Retry-After, and makes nobody', async (t) => {
  await d.restart(); // a fresh limiter: the attempts above counted too
  for (let i = 1; i <= 5; i++) {
    const r = await json({ name: `limit${i}` });
    t.equal(r.status, 201, `attempt ${i}`);
  }
  const sixth = await json({ name: 'limit6' });
  t.equal(sixth.status, 429);
  const retry = Number(sixth.headers.get('retry-after'));
  t.ok(retry > 3500 && retry <= 3600, `Retry-After ${retry} s`);
  const body = await sixth.json();
  t.equal(body.error.code, 'rate_limited');
  t.ok(body.error.next);
  t.notOk(d.daemon.env.users.get('limit6'), 'nobody made');
  const viaForm = await form({ name: 'limit7' });
  t.equal(viaForm.status, 429, 'the form is limited too');
  t.ok(Number(viaForm.headers.get('retry-after')) > 0);
  t.match(await viaForm.text(), /too many sign-ups/);
  // Turning sign-up off answers 403 before counting.
  await d.rest(admin, 'PATCH', '/v1/admin/browser-settings', { signup: false });
  t.equal((await json({ name: 'limit8' })).status, 403);
  const audit = d.daemon.env.audit.all(100).filter((e) => e.user === '(signup)');
  t.ok(audit.some((e) => e.outcome === 'rate_limited'), 'refusals are audited');
  t.ok(audit.some((e) => e.outcome === 'ok'));
});

t.test('client addresses: IPv4 as is, IPv4 mapped into IPv6 as IPv4, IPv6 per /64', async (t) => {
  t.equal(clientKey('203.0.113.7'), '203.0.113.7');
  t.equal(clientKey('::ffff:203.0.113.7'), '203.0.113.7');
  t.equal(clientKey('0000:0000:0000:0000:0000:ffff:203.0.113.7'), '203.0.113.7');
  t.equal(clientKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  t.equal(clientKey('2001:0db8:0001:0002:ffff:0:0:9'), '2001:db8:1:2::/64', 'same /64, same key');
  t.equal(clientKey('2001:db8::1'), '2001:db8:0:0::/64');
  t.not(clientKey('2001:db8:1:3::1'), clientKey('2001:db8:1:2::1'));
});

t.test('/install.md: the public URL whatever Host the request names, and no secret', async (t) => {
  const port = new URL(d.url).port;
  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:9`]) {
    const r = await getWithHost('/install.md', host);
    t.equal(r.status, 200, host);
    t.match(r.type, /^text\/markdown/);
    t.match(r.body, `${PUBLIC}/mcp`);
    t.match(r.body, `${PUBLIC}/v1`);
    t.match(r.body, 'Authorization: Bearer <your token>');
    // Claude Desktop starts stdio servers only: the guide gives the mcp-remote form, as valid JSON.
    const bridge = /```json\n(\{[^\n]*mcp-remote[^\n]*\})\n```/.exec(r.body)?.[1];
    t.same(JSON.parse(bridge ?? '{}').mcpServers?.browserd?.args, ['-y', 'mcp-remote', `${PUBLIC}/mcp`, '--header', 'Authorization:${BROWSERD_AUTH}'], 'the mcp-remote form');
    t.match(r.body, /browser_open/);
    t.match(r.body, /browser_snapshot/);
    t.match(r.body, /"snapshot": true/, 'says how an action answers with the page and saves a call');
    t.match(r.body, /tools\/list|\/v1\/tools/, 'says where the tools list is');
    t.notMatch(r.body, /127\.0\.0\.1|localhost|\[::1\]/, 'no address but the public URL');
    t.notMatch(r.body, /bda?_[A-Za-z0-9_-]{10,}/, 'no token or key');
    for (const secret of [admin, alice]) t.notOk(r.body.includes(secret));
  }
  // Without a public URL the guide names where the daemon listens (a second daemon would break "one per
  // file"; the address comes from the same env.baseUrl, checked directly).
  const { installGuide } = await import('../../daemon/server/install-guide.js');
  t.match(installGuide('http://127.0.0.1:8787', false), 'http://127.0.0.1:8787/mcp');
});
