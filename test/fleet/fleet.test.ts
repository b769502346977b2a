/**
 * A fleet for real: three browserd hosts (each `browserd serve` in its own process and data dir) behind Debian's
 * HAProxy, configured by `browserd fleet`, all on loopback. Thirty users are created through the fleet, on the
 * hosts with room; every one of them calls over REST and MCP at once, through the router; each host's audit log
 * then holds calls of its own users only. A key the router does not know is answered by the router (404), a
 * killed host's users get 503 browser_capacity with Retry-After within seconds while everyone else's calls go on,
 * and they are back when it returns.
 */
import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { once } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startSite, html, type FixtureSite } from '../fixtures/site.js';
import { HAPROXY, startFleet, type TestFleet } from '../fixtures/fleet.js';
import { RawCdp } from '../fixtures/raw-cdp.js';
import { startReceiver, type Receiver } from '../fixtures/webhook-receiver.js';
import { childDaemon } from '../fixtures/child-daemon.js';
import { verifyWebhook } from '../../client/verify.js';

if (!HAPROXY) {
  // The test command installs it when it runs as root (scripts/check.sh); elsewhere it is the admin's to add.
  t.test("Debian's haproxy is needed (apt-get install haproxy)", { skip: 'haproxy is not installed on this host' }, () => {});
} else {
  const hostNames = ['h1', 'h2', 'h3'];
  let f: TestFleet;
  let site: FixtureSite;
  let receiver: Receiver;
  let root: string;
  let routerUrl: string;
  let hosts: TestFleet['hosts'];
  let fleet: TestFleet['fleet'];
  let viaRouter: TestFleet['viaRouter'];

  t.before(async () => {
    site = await startSite();
    receiver = await startReceiver();
    site.route('/login', (_req, res) => {
      // A persistent cookie, as a site's sign-in sets: it lives in the profile, and must move with it.
      res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'session=moved-with-me; Max-Age=86400; Path=/' });
      res.end(html('<h1>signed in</h1>'));
    });
    site.route('/whoami', (req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(html(`<h1>cookie: ${/session=([\w-]+)/.exec(req.headers.cookie ?? '')?.[1] ?? 'none'}</h1>`));
    });
    f = await startFleet(hostNames, { BROWSERD_MAX_BROWSERS: '20' });
    ({ root, routerUrl, hosts, fleet, viaRouter } = f);
  });
  t.teardown(async () => {
    await f?.stop();
    await site?.close();
    await receiver?.close();
  });

  const users: { name: string; host: string; key: string; token: string }[] = [];
  t.test('thirty users are created across the hosts, each routed home', async (t) => {
    for (let i = 1; i <= 30; i++) {
      const made = await fleet.addUser(`u${String(i).padStart(2, '0')}`);
      users.push({ name: `u${String(i).padStart(2, '0')}`, ...made });
    }
    const per = new Map<string, number>();
    for (const u of users) per.set(u.host, (per.get(u.host) ?? 0) + 1);
    t.same([...per.keys()].sort(), [...hostNames], 'every host got users');
    t.ok([...per.values()].every((n) => n === 10), `spread by room: ${JSON.stringify(Object.fromEntries(per))}`);
    t.ok(users.every((u) => u.token.startsWith(`bd_${u.key}.`)), "each token carries its user's routing key");
    const listed = await fleet.users();
    const ours = listed.filter((u) => /^u\d\d$/.test(u.user));
    t.equal(ours.length, 30);
    t.ok(ours.every((u) => u.routed), 'the router sends every one of them to the host that has them');
    await t.rejects(fleet.addUser('u01'), /already lives on host/, 'a name is the fleet\'s: a second u01 is refused');
  });

  t.test('every user calls over REST and MCP at once; each host hears only its own users', async (t) => {
    const mcpCall = async (u: (typeof users)[number]) => {
      const client = new Client({ name: 'fleet-test', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${routerUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${u.token}` } } }));
      try {
        // A call that needs no browser, so thirty users do not start thirty Chromiums; its audit entry names the tab.
        const r = await client.callTool({ name: 'browser_close_tab', arguments: { tab: `t${900 + users.indexOf(u)}` } });
        return r.isError === true && JSON.stringify(r).includes('not_found');
      } finally {
        await client.close();
      }
    };
    const results = await Promise.all(
      users.flatMap((u) => [
        viaRouter(u.token, 'GET', '/v1/me').then(async (r) => r.status === 200 && (await r.json()).user === u.name),
        viaRouter(u.token, 'POST', '/v1/tools/browser_close_tab', { tab: 't1' }).then((r) => r.status === 404),
        mcpCall(u),
      ]),
    );
    t.equal(results.filter(Boolean).length, results.length, `all ${results.length} calls answered as their user's host answers`);
    for (const [name, h] of hosts) {
      const audit = await fetch(`${h.run.url}/v1/admin/audit?limit=1000`, { headers: { Authorization: `Bearer ${h.d.adminKey()}` } }).then((r) => r.json());
      const heard = new Set<string>(audit.entries.map((e: { user: string }) => e.user));
      const homed = new Set(users.filter((u) => u.host === name).map((u) => u.name));
      t.same([...heard].filter((u) => !homed.has(u)), [], `host ${name}: no call of another host's user reached it`);
      t.same([...homed].filter((u) => !heard.has(u)), [], `host ${name}: every one of its users' calls did`);
    }
  });

  t.test('the router answers what it cannot route, and sends no user elsewhere', async (t) => {
    const unknown = await viaRouter('bd_aaaaaaaaaa.nosuchsecretatallxxxxxxxxxxxxxxxxxxx', 'GET', '/v1/me');
    t.equal(unknown.status, 404, 'an unknown key: 404 from the router');
    t.equal((await unknown.json()).error.code, 'not_found');
    const badLink = await viaRouter(undefined, 'GET', '/live/aaaaaaaaaa.nosuchlink');
    t.equal(badLink.status, 404, 'a link with an unknown key: 404');
    const u = users[0]!;
    const wrongSecret = await viaRouter(`bd_${u.key}.wrongsecretwrongsecretwrongsecret`, 'GET', '/v1/me');
    t.equal(wrongSecret.status, 401, "a known key with a wrong secret: the user's own host says 401");
    const noToken = await viaRouter(undefined, 'GET', '/v1/me');
    t.equal(noToken.status, 401, 'no token at all: a host says 401');
    const health = await viaRouter(undefined, 'GET', '/health');
    t.equal(health.status, 200, 'what names no user is answered by a host that is up');
  });

  t.test("a killed host's users get 503 browser_capacity with Retry-After; everyone else goes on; they return with it", async (t) => {
    const victim = hosts.get('h2')!;
    const theirs = users.filter((u) => u.host === 'h2');
    const others = users.filter((u) => u.host !== 'h2');
    victim.run.child.kill('SIGKILL');
    await once(victim.run.child, 'exit');
    const killedAt = Date.now();
    let r: Response;
    for (;;) {
      r = await viaRouter(theirs[0]!.token, 'GET', '/v1/me');
      if (r.status === 503 || Date.now() - killedAt > 15_000) break;
      await r.arrayBuffer();
      await new Promise((res) => setTimeout(res, 100));
    }
    t.equal(r.status, 503, `503 within ${Date.now() - killedAt} ms of the kill`);
    t.ok(Date.now() - killedAt < 10_000, 'within seconds');
    t.equal(r.headers.get('retry-after'), '5', 'with Retry-After');
    const body = await r.json();
    t.equal(body.error.code, 'browser_capacity', 'and the closed-set code with a next step');
    t.match(body.error.next, /Retry/);
    const during = await Promise.all(others.map((u) => viaRouter(u.token, 'GET', '/v1/me').then((x) => x.status)));
    t.same([...new Set(during)], [200], `all ${others.length} users of the other hosts are answered meanwhile`);
    const stillDown = await Promise.all(theirs.map((u) => viaRouter(u.token, 'GET', '/v1/me').then((x) => x.status)));
    t.same([...new Set(stillDown)], [503], "and every one of the host's users is told to wait, none sent elsewhere");

    victim.run = await victim.d.serve(victim.port);
    const back = Date.now();
    let status = 0;
    while (Date.now() - back < 15_000) {
      status = (await viaRouter(theirs[0]!.token, 'GET', '/v1/me')).status;
      if (status === 200) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    t.equal(status, 200, `back ${Date.now() - back} ms after the host restarted`);
    const after = await Promise.all(theirs.map((u) => viaRouter(u.token, 'GET', '/v1/me').then(async (x) => x.status === 200 && (await x.json()).user === u.name)));
    t.ok(after.every(Boolean), 'every one of its users is served by it again');
  });

  t.test('the map is the router\'s only state: a line changed through the runtime API routes at once', async (t) => {
    // A user pointed at another host (what a move ends with) is sent there on the next request, with no reload.
    const u = users.find((x) => x.host === 'h1')!;
    await fleet.route(u.key, 'h3');
    const there = await viaRouter(u.token, 'GET', '/v1/me');
    t.equal(there.status, 401, 'h3 does not have this user (not yet moved): it says 401, it serves no one else');
    t.match(readFileSync(fleet.files.mapFile, 'utf8'), new RegExp(`^${u.key} host_h3$`, 'm'), 'and the file says the same, for HAProxy\'s next start');
    await fleet.route(u.key, 'h1');
    t.equal((await viaRouter(u.token, 'GET', '/v1/me')).status, 200, 'pointed back, served again');
  });

  t.test('a user moved to another host keeps their tabs, cookies, saved logins and files, under the same token', async (t) => {
    const u = users.find((x) => x.host === 'h1')!;
    const call = (method: string, path: string, body?: unknown) => viaRouter(u.token, method, path, body).then(async (r) => ({ status: r.status, json: (await r.json()) as any }));
    const first = await call('POST', '/v1/tabs', { url: `${site.url}/login` });
    t.equal(first.status, 201, 'a tab on the old host');
    const second = await call('POST', '/v1/tabs', { url: `${site.url}/whoami` });
    const saved = await call('PUT', '/v1/vault/site.test', { loginUrl: 'https://site.test/login', fields: { username: 'mover', password: 'pw-that-moves' } });
    t.equal(saved.status, 200, 'a saved login');
    const pdf = await call('POST', '/v1/tools/browser_pdf', { tab: second.json.tab, name: 'before-move.pdf' });
    t.equal(pdf.status, 200, 'a file');
    const tabsBefore = (await call('GET', '/v1/tabs')).json.tabs.map((x: any) => [x.id, x.url]);
    const hook = await call('POST', '/v1/webhooks', { url: `${receiver.url}/hooks`, events: ['handoff.finished'] });
    t.equal(hook.status, 201, 'a webhook receiver');

    const moved = await fleet.move(u.name, 'h3');
    t.match(moved, { user: u.name, from: 'h1', to: 'h3' }, `moved: ${moved.rows} rows, ${moved.files} files, ${moved.bytes} bytes in ${moved.ms} ms`);
    t.ok(moved.rows > 0 && moved.files > 0);

    const tabsAfter = (await call('GET', '/v1/tabs')).json.tabs.map((x: any) => [x.id, x.url]);
    t.same(tabsAfter, tabsBefore, 'the same tab ids at the same URLs, through the router, with the same token');
    t.equal((await call('POST', '/v1/tools/browser_navigate', { tab: second.json.tab, url: `${site.url}/whoami` })).status, 200);
    const who = await call('POST', '/v1/tools/browser_snapshot', { tab: second.json.tab });
    t.match(who.json.text, /cookie: moved-with-me/, "the site's cookie came with the profile");
    const vault = await call('GET', '/v1/vault');
    t.same(vault.json.entries.map((e: any) => e.name), ['site.test'], 'the saved login is there');
    t.ok(vault.json.entries[0].fields.includes('password'), 'with its fields (sealed, under the shared key)');
    const files = await call('GET', '/v1/files');
    t.ok(files.json.files.some((f: any) => f.name === 'before-move.pdf'), 'the file is there');
    const file = await viaRouter(u.token, 'GET', '/v1/files/before-move.pdf');
    t.equal((await file.arrayBuffer()).byteLength > 0 && file.status, 200, 'and downloads');

    // Work that runs on its own goes on at the new host: an event there reaches the receiver registered before.
    const made = await call('POST', '/v1/tools/browser_handoff', { message: 'after the move' });
    t.equal((await call('POST', '/v1/tools/browser_handoff_resolve', { id: made.json.id })).status, 200);
    await receiver.waitFor(() => receiver.calls.length >= 1);
    const event = verifyWebhook(hook.json.secret, receiver.calls[0]!.headers as Record<string, string>, receiver.calls[0]!.body);
    t.equal((event as { type: string }).type, 'handoff.finished', 'the webhook registered before the move is delivered from the new host, signed with its secret');

    const h1 = hosts.get('h1')!;
    const h1Users = await fetch(`${h1.run.url}/v1/admin/users`, { headers: { Authorization: `Bearer ${h1.d.adminKey()}` } }).then((r) => r.json());
    t.notOk(h1Users.users.some((x: any) => x.name === u.name), 'the old host no longer has the user');
    t.notOk(existsSync(join(root, 'h1', 'profiles', u.name)), 'nor their profile');
    const listed = (await fleet.users()).filter((x) => x.user === u.name);
    t.same(listed.map((x) => [x.host, x.routed]), [['h3', true]], 'the fleet lists them on the new host, routed there');
    await t.rejects(fleet.move(u.name, 'h3'), /already lives on host h3/, 'moving them where they are is refused');
  });

  t.test('sign-up through the router makes the user on a host with room, routed there', async (t) => {
    for (const h of hosts.values()) {
      const on = await fetch(`${h.run.url}/v1/admin/browser-settings`, { method: 'PATCH', headers: { Authorization: `Bearer ${h.d.adminKey()}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ signup: true }) });
      t.equal(on.status, 200, 'sign-up on');
    }
    const before = await fleet.placements();
    const json = await viaRouter(undefined, 'POST', '/signup', { name: 'newcomer' });
    t.equal(json.status, 201, 'a JSON sign-up');
    const made = await json.json();
    t.match(made.token, /^bd_[a-z2-7]{10}\./);
    const me = await viaRouter(made.token, 'GET', '/v1/me');
    t.equal(me.status, 200, 'the new token works through the router at once');
    t.equal((await me.json()).user, 'newcomer');
    const where = (await fleet.users()).find((u) => u.user === 'newcomer')!;
    t.equal(where.host, before[0]!.host, `on the host with the most room (${where.host})`);
    t.ok(where.routed, 'routed there');

    const form = await fetch(`${routerUrl}/signup`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: routerUrl }, body: 'name=formfiller' });
    t.equal(form.status, 201, 'a form sign-up');
    const page = await form.text();
    const token = /id="new-token">(bd_[^<]+)</.exec(page)?.[1];
    t.ok(token, 'the page shows the token once');
    t.equal((await viaRouter(token!, 'GET', '/v1/me')).status, 200, 'and it works through the router');

    const taken = await viaRouter(undefined, 'POST', '/signup', { name: 'newcomer' });
    t.equal(taken.status, 400, 'a name some host has is refused, whichever host has room');
    t.equal((await taken.json()).error.code, 'validation_error');
    t.equal((await fleet.users()).filter((u) => u.user === 'newcomer').length, 1, 'and still lives on one host only');
  });

  t.test("a user's links and CDP session URL work through the router, and reach only their host", async (t) => {
    const u = users.find((x) => x.host === 'h2')!;
    const viaRouterUrl = (url: string) => url.replace(/^(https?|wss?):\/\/[^/]+/, (_m, scheme: string) => `${scheme.startsWith('ws') ? 'ws' : 'http'}://${new URL(routerUrl).host}`);
    const opened = await viaRouter(u.token, 'POST', '/v1/tabs', { url: `${site.url}/whoami` });
    t.equal(opened.status, 201);
    const { live_url: live } = (await opened.json()) as { live_url: string };
    t.match(live, /\/live\/[a-z2-7]{10}\./, 'the live link carries the routing key');
    t.equal((await fetch(viaRouterUrl(live))).status, 200, 'the live view opens through the router');
    const forged = live.replace(/\/live\/[a-z2-7]{10}\./, `/live/${users.find((x) => x.host === 'h1')!.key}.`);
    t.equal((await fetch(viaRouterUrl(forged))).status, 404, "the same secret under another user's key reaches that user's host, which knows no such link");

    const started = await viaRouter(u.token, 'POST', '/v1/tools/browser_sessions', { action: 'start', minutes: 2 });
    const text = ((await started.json()) as { text: string }).text;
    const cdpUrl = /Connect a CDP client to: (\S+)/.exec(text)![1]!;
    t.match(cdpUrl, /\/cdp\/[a-z2-7]{10}\./, 'the CDP URL carries the routing key');
    const cdp = await RawCdp.connect(viaRouterUrl(cdpUrl));
    const version = (await cdp.send('Browser.getVersion', {})) as { product: string };
    t.match(version.product, /Chrom/, 'a CDP client drives the browser through the router (a WebSocket through HAProxy)');
    await cdp.close();
  });

  t.test('draining a host moves each of its users away, and places no one new there', async (t) => {
    const theirs = (await fleet.users()).filter((u) => u.host === 'h2' && u.key);
    const tokens = new Map(users.map((u) => [u.name, u.token]));
    const moved = await fleet.drain('h2');
    t.same(moved.map((m) => m.user).sort(), theirs.map((u) => u.user).sort(), `all ${theirs.length} of its users moved`);
    t.ok(moved.every((m) => m.to !== 'h2'), 'to the other hosts');
    t.same((await fleet.users()).filter((u) => u.host === 'h2' && u.key).map((u) => u.user), [], 'h2 has none left');
    for (const m of moved) {
      const token = tokens.get(m.user);
      if (!token) continue;
      const r = await viaRouter(token, 'GET', '/v1/me');
      t.equal(r.status, 200, `${m.user} is served on ${m.to}`);
    }
    const added = await fleet.addUser('after-drain');
    t.not(added.host, 'h2', 'a new user is not placed on the drained host');
  });

  t.test('the command line says the same as the fleet', async (t) => {
    const bin = join(process.cwd(), 'bin', 'browserd.js');
    const out = execFileSync(process.execPath, [bin, 'fleet', 'users', '--dir', fleet.dir], { encoding: 'utf8' });
    const listed = out.trim().split('\n').map((l) => JSON.parse(l));
    t.same(listed, await fleet.users(), 'browserd fleet users lists every user with their host');
    const bad = spawnSync(process.execPath, [bin, 'fleet', 'move', 'nobody-here', 'h1', '--dir', fleet.dir], { encoding: 'utf8' });
    t.equal(bad.status, 2, 'a move of an unknown user exits 2');
    t.match(bad.stderr, /no host of the fleet has a user named nobody-here/, 'saying why');
  });

  t.test('a host whose users share a name with another host of the fleet is not added', async (t) => {
    const d = childDaemon(join(root, 'h4'), { BROWSERD_FIRST_USER: 'owner-h1' });
    const run = await d.serve();
    t.teardown(() => {
      run.child.kill('SIGTERM');
    });
    await t.rejects(fleet.addHost('h4', run.url, d.adminKey()), /names another host of the fleet has too \(owner-h1\)/, 'refused, naming the user');
    t.notOk(fleet.read().hosts.some((h) => h.name === 'h4'), 'and the fleet is as it was');
  });
}
