/**
 * Attack: a fleet's router (HAProxy, configured by daemon/fleet/haproxy-config.ts) and its hosts, from a user
 * holding a normal token and from an outsider. The router picks a host by the routing key it reads from the
 * Authorization header or the link's path; the host then checks the whole credential. So the attacks try to
 * make the two read a request differently: a key of one user with another's secret, two Authorization headers,
 * one header with a comma, odd spacing and case of "Bearer", path tricks on link paths, share links with their
 * key swapped or dropped; then X-Forwarded-For against the sign-up limit, a held (moving) user through the
 * router, and the sign-up desk given a name that lives on another host.
 */
import t from 'tap';
import { connect } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { HAPROXY, startFleet, type TestFleet } from '../fixtures/fleet.js';
import { ShareLinks } from '../../storage/share-links.js';

/** One HTTP/1.1 request written by hand (fetch joins repeated headers), answered with its status and body. */
function raw(url: string, head: string[], body = ''): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(u.port), u.hostname);
    let got = '';
    s.setEncoding('utf8');
    s.on('data', (c: string) => (got += c));
    s.on('error', reject);
    s.on('end', () => {
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(got)?.[1] ?? 0);
      resolve({ status, body: got.slice(got.indexOf('\r\n\r\n') + 4) });
    });
    s.write([...head, `Host: ${u.host}`, 'Connection: close', ...(body ? [`Content-Length: ${Buffer.byteLength(body)}`] : []), '', body].join('\r\n'));
  });
}

if (!HAPROXY) {
  t.test("Debian's haproxy is needed (apt-get install haproxy)", { skip: 'haproxy is not installed on this host' }, () => {});
} else {
  let f: TestFleet;
  // alice lives on h1 (the router's host for requests that name no user), bob on h2.
  const who: Record<string, { host: string; key: string; token: string }> = {};

  t.before(async () => {
    f = await startFleet(['h1', 'h2'], { BROWSERD_SIGNUP_PER_HOUR: '4' });
    for (const [name, h] of f.hosts) {
      const r = await fetch(`${h.run.url}/v1/admin/users`, { method: 'POST', headers: { Authorization: `Bearer ${adminKeyOf(name)}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: name === 'h1' ? 'alice' : 'bob' }) });
      const made = (await r.json()) as any;
      await f.fleet.route(made.user.key, name);
      who[made.user.name] = { host: name, key: made.user.key, token: made.token };
    }
  });
  t.teardown(() => f?.stop());

  const adminKeyOf = (host: string) => f.fleet.read().hosts.find((x) => x.name === host)!.adminKey;
  const secretOf = (token: string) => token.slice(token.indexOf('.') + 1);
  const get = (auth: string[], path = '/v1/files') => raw(`${f.routerUrl}${path}`, [`GET ${path} HTTP/1.1`, ...auth.map((a) => `Authorization: ${a}`)]);

  t.test('control: each token reaches its own host through the router', async (t) => {
    t.equal((await get([`Bearer ${who.alice!.token}`])).status, 200);
    t.equal((await get([`Bearer ${who.bob!.token}`])).status, 200);
  });

  t.test("a key of one user with another's secret opens nothing", async (t) => {
    const forged = `bd_${who.bob!.key}.${secretOf(who.alice!.token)}`;
    t.equal((await get([`Bearer ${forged}`])).status, 401, "alice's secret under bob's key: bob's host does not know it");
    const forged2 = `bd_${who.alice!.key}.${secretOf(who.bob!.token)}`;
    t.equal((await get([`Bearer ${forged2}`])).status, 401, "bob's secret under alice's key");
    const r = await get([`Bearer bd_aaaaaaaaaa.${secretOf(who.alice!.token)}`]);
    t.equal(r.status, 404, 'a key no one has: the router answers');
    t.match(r.body, /no host of this fleet/);
  });

  t.test('two Authorization headers, or one with a comma, are refused whichever one the router read', async (t) => {
    const a = `Bearer ${who.alice!.token}`;
    const junkB = `Bearer bd_${who.bob!.key}.x`;
    for (const pair of [[a, junkB], [junkB, a]]) {
      const r = await get(pair);
      t.equal(r.status, 401, `headers ${pair.map((p) => p.slice(0, 20)).join(' / ')}`);
      t.notMatch(r.body, /"files"/);
    }
    for (const one of [`${a}, ${junkB}`, `${junkB}, ${a}`, `${a},bd_${who.bob!.key}.x`]) {
      t.equal((await get([one])).status, 401, `one header: ${one.slice(0, 24)}…`);
    }
  });

  t.test('"bearer" in lower case, or spaced twice, reaches the user\'s own host as the host reads it', async (t) => {
    // The host takes /^Bearer\s+/i; a router that matched only "Bearer bd_" sent these to h1, where bob is unknown.
    for (const spelled of [`bearer ${who.bob!.token}`, `BEARER ${who.bob!.token}`, `Bearer  ${who.bob!.token}`, `Bearer\t${who.bob!.token}`]) {
      t.equal((await get([spelled])).status, 200, JSON.stringify(spelled.slice(0, 9)));
    }
    t.equal((await get([`bearer bd_aaaaaaaaaa.${secretOf(who.bob!.token)}`])).status, 404, 'and an unknown key in lower case is the router\'s 404');
  });

  t.test('path tricks on link paths reach no one', async (t) => {
    const bobKey = who.bob!.key;
    for (const path of [
      `/live/${bobKey}.x/../../v1/files`,
      `/live/..%2f..%2fv1%2ffiles`,
      `/live/%2e%2e/v1/files`,
      `//live/${bobKey}.x`,
      `/live//${bobKey}.x`,
      `/dl/${bobKey}%2e${'A'.repeat(20)}`,
      `/v1/inbox/sms/../sms/${bobKey}.x`,
    ]) {
      const r = await raw(`${f.routerUrl}${path}`, [`GET ${path} HTTP/1.1`, `Authorization: Bearer ${who.alice!.token}`]);
      t.ok([401, 404, 405].includes(r.status), `${path}: ${r.status}`);
      t.notMatch(r.body, /"files"\s*:/, 'no listing');
    }
  });

  t.test("share links: the genuine one opens; its key swapped, dropped or forged opens nothing", async (t) => {
    const data = join(f.root, who.bob!.host);
    mkdirSync(join(data, 'files', 'bob'), { recursive: true });
    writeFileSync(join(data, 'files', 'bob', 'note.txt'), 'bob shared this');
    const p = { u: 'bob', f: 'note.txt', h: createHash('sha256').update('bob shared this').digest('hex'), e: Math.floor(Date.now() / 1000) + 600 };
    const links = new ShareLinks(data);
    const genuine = links.make(p, who.bob!.key);
    const open = await fetch(`${f.routerUrl}/dl/${genuine}`);
    t.equal(open.status, 200, 'the genuine link opens through the router');
    t.equal(await open.text(), 'bob shared this');
    const signed = genuine.slice(genuine.indexOf('.') + 1);
    t.equal((await fetch(`${f.routerUrl}/dl/${who.alice!.key}.${signed}`)).status, 404, "bob's link under alice's key: alice's host");
    t.equal((await fetch(`${f.routerUrl}/dl/${signed}`)).status, 404, 'the old form without a key: the router knows no host');
    t.equal((await fetch(`${f.routerUrl}/dl/aaaaaaaaaa.${signed}`)).status, 404, 'a key no one has');
    // On bob's own host, alice's key on bob's link: the key must be the one of the user it names.
    const h2 = f.hosts.get(who.bob!.host)!.run.url;
    t.equal((await fetch(`${h2}/dl/${who.alice!.key}.${signed}`)).status, 404, "straight to bob's host with alice's key");
    // A link bob's host signed for a user named alice (forged payload): her host holds another key.
    const forAlice = links.make({ ...p, u: 'alice' }, who.alice!.key);
    t.equal((await fetch(`${f.routerUrl}/dl/${forAlice}`)).status, 404, "bob's host's signature does not open alice's host");
  });

  t.test('X-Forwarded-For from the client does not move the sign-up limit', async (t) => {
    for (const [name, h] of f.hosts) {
      await fetch(`${h.run.url}/v1/admin/browser-settings`, { method: 'PATCH', headers: { Authorization: `Bearer ${adminKeyOf(name)}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ signup: true }) });
    }
    const statuses: number[] = [];
    for (let i = 0; i < 9; i++) {
      const body = JSON.stringify({ name: `spoof${i}` });
      // One X-Forwarded-For, two, and a list: each a different address, as if nine clients.
      const xff = i % 3 === 0 ? [`X-Forwarded-For: 198.51.100.${i + 1}`] : i % 3 === 1 ? [`X-Forwarded-For: 198.51.100.${i + 1}`, `X-Forwarded-For: 203.0.113.${i + 1}`] : [`X-Forwarded-For: 127.0.0.1, 203.0.113.${i + 1}`];
      const r = await raw(`${f.routerUrl}/signup`, ['POST /signup HTTP/1.1', 'Content-Type: application/json', ...xff], body);
      statuses.push(r.status);
    }
    // Each sign-up goes to the host with the most room; each host counts this one client 4 an hour.
    t.equal(statuses.filter((s) => s === 201).length, 4 * f.hosts.size, `statuses ${statuses}`);
    t.equal(statuses.at(-1), 429, 'the ninth is over both hosts\' limits');
  });

  t.test('a held (moving) user is told to retry through the router, and the router still sends them home', async (t) => {
    const h2 = f.hosts.get(who.bob!.host)!;
    const admin = (path: string) => fetch(`${h2.run.url}${path}`, { method: 'POST', headers: { Authorization: `Bearer ${adminKeyOf(who.bob!.host)}` } });
    t.equal((await admin('/v1/admin/users/bob/hold?to=h1')).status, 200);
    const r = await f.viaRouter(who.bob!.token, 'GET', '/v1/files');
    t.equal(r.status, 503);
    t.ok(r.headers.get('retry-after'), 'with Retry-After');
    t.equal(((await r.json()) as any).error.code, 'browser_capacity');
    t.equal((await admin('/v1/admin/users/bob/release')).status, 200);
    t.equal((await f.viaRouter(who.bob!.token, 'GET', '/v1/files')).status, 200, 'released: served again');
  });

  /** A sign-up as HAProxy hands it to the desk, from client `client` (each its own sign-up budget on the hosts). */
  const viaDesk = (client: string, type: string, body: string) => raw(`http://${f.fleet.read().desk}/signup`, ['POST /signup HTTP/1.1', `Content-Type: ${type}`, `X-Forwarded-For: ${client}`], body);

  t.test('the sign-up desk: a name that lives on another host is refused, however the body spells it', async (t) => {
    const bodies: [string, string][] = [
      ['application/json', JSON.stringify({ name: 'bob' })],
      ['application/json; charset=utf-8', '{"name":"nobody-yet","name":"bob"}'],
      ['Application/JSON', '\ufeff{"name":"bob"}'],
      ['application/x-www-form-urlencoded', 'name=bob'],
      ['application/x-www-form-urlencoded', 'name=bob&name=fresh1'],
      ['application/x-www-form-urlencoded; charset=utf-8', 'name=%62ob'],
      ['text/plain', 'name=bob'],
    ];
    let i = 0;
    for (const [type, body] of bodies) {
      const r = await viaDesk(`10.1.0.${++i}`, type, body);
      t.not(r.status, 201, `${type} ${body}: ${r.status}`);
      t.not(r.status, 429, 'the host read the name (not the limit)');
    }
    const after = await f.fleet.users();
    t.equal(after.filter((u) => u.user === 'bob').length, 1, 'bob lives on one host only');
    t.same(after.filter((u) => !u.routed && !u.user.startsWith('owner-')), [], 'every user is routed home (but the first-run user each host made for itself)');
  });

  t.test('the sign-up desk: one new name asked for many times at once is made once, on one host', async (t) => {
    const answers = await Promise.all(Array.from({ length: 8 }, (_, k) => viaDesk(`10.2.0.${k + 1}`, 'application/json', JSON.stringify({ name: 'racer' }))));
    t.equal(answers.filter((a) => a.status === 201).length, 1, `statuses ${answers.map((a) => a.status)}`);
    const after = await f.fleet.users();
    t.equal(after.filter((u) => u.user === 'racer').length, 1, 'racer lives on one host only');
    t.same(after.filter((u) => !u.routed && !u.user.startsWith('owner-')), [], 'every user is routed home (but the first-run user each host made for itself)');
  });
}
