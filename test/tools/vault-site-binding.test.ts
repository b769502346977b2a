/**
 * An entry stays bound to its site (issue 33): an agent holding the user's token once moved an entry's login
 * URL to another host over REST (`PUT /v1/vault/<site> {"loginUrl": ...}`), kept the stored password, and had
 * browser_fill_secret and browser_login send it there. Now a login URL off the entry's site is refused and
 * changes nothing, and neither tool puts the value on the other host: the fixture server, which answers every
 * *.test name, sees no request to other.test that carries the password.
 */
import t from 'tap';
import { call as rawCall, refOf, startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { startLoginSite, type LoginSite } from '../fixtures/login-site.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

const PASSWORD = 'Bound-To-Victim-7Qx2';
let d: TestDaemon;
let site: LoginSite;
let client: Client;
let token: string;

const call = (name: string, args: Record<string, unknown> = {}) => rawCall(client, name, args);
const errorCode = (text: string) => /^Error \[([a-z_]+)\]/m.exec(text)?.[1];
const tabOf = (text: string) => /\b(t\d+)\b/.exec(text)![1];
const put = (name: string, body: unknown) => d.rest(token, 'PUT', `/v1/vault/${encodeURIComponent(name)}`, body);
const entry = async (name: string) => (await d.rest(token, 'GET', '/v1/vault')).json.entries.find((e: { name: string }) => e.name === name);

/** Requests that reached other.test carrying the password in any usual spelling (form-encoded, JSON, query). */
const leaksToOther = () =>
  site.requests.filter((q) => q.headers.host?.startsWith('other.test') && [PASSWORD, encodeURIComponent(PASSWORD)].some((v) => q.body.includes(v) || decodeURIComponent(q.path).includes(v)));

t.before(async () => {
  site = await startLoginSite();
  d = await startTestDaemon();
  token = await d.addUser('alice');
  client = await d.mcp(token);
  const made = await put('victim.test', { loginUrl: `${site.at('victim.test')}/login`, fields: { username: 'alice', password: PASSWORD } });
  if (made.status !== 200) throw new Error(JSON.stringify(made.json));
});

t.teardown(async () => {
  await d.stop();
  await site.close();
});

t.test('PUT of a login URL on another host is refused, naming the entry\'s site, and changes nothing', async (t) => {
  const before = await entry('victim.test');
  for (const body of [
    { loginUrl: `${site.at('other.test')}/login` },
    { loginUrl: `${site.at('other.test')}/login`, fields: { note: 'added-with-the-move' } },
    { loginUrl: `${site.at('victim.test.other.test')}/login` },
    { loginUrl: 'http://127.0.0.1/login' },
  ]) {
    const r = await put('victim.test', body);
    t.equal(r.status, 403, JSON.stringify(body));
    t.equal(r.json.error?.code, 'refused');
    t.match(r.json.error?.message, /victim\.test and its sub-domains/, 'the refusal names the entry\'s site');
    t.ok(r.json.error?.next, 'and says what to do');
  }
  t.same(await entry('victim.test'), before, 'the entry is as it was: same login URL, same fields');
  const sub = await put('victim.test', { loginUrl: `${site.at('www.victim.test')}/signin` });
  t.equal(sub.status, 200, 'a login URL on a sub-domain of the entry is its site');
  await put('victim.test', { loginUrl: `${site.at('victim.test')}/login` });
});

t.test('an entry named after a public suffix is refused; one named without a host is bound to its first login host', async (t) => {
  for (const name of ['github.io', 'co.uk', 'blogspot.com']) {
    const r = await put(name, { fields: { password: PASSWORD } });
    t.equal(r.json.error?.code, 'validation_error', `${name}: ${JSON.stringify(r.json.error)}`);
    t.notOk(await entry(name), `${name} was not created`);
  }
  const bare = await put('My_Bank', { fields: { password: PASSWORD } });
  t.equal(bare.json.error?.code, 'validation_error', 'a name that is no host needs a login URL at creation');
  t.notOk(await entry('My_Bank'));
  t.equal((await put('My_Bank', { loginUrl: `${site.at('victim.test')}/login`, fields: { password: PASSWORD } })).status, 200);
  const moved = await put('My_Bank', { loginUrl: `${site.at('other.test')}/login` });
  t.equal(moved.json.error?.code, 'refused', JSON.stringify(moved.json.error));
  t.match(moved.json.error?.message, /bound to victim\.test/);
  t.match((await entry('My_Bank')).loginUrl, /^http:\/\/victim\.test:/, 'the login URL stayed');
});

t.test('browser_fill_secret and browser_login put nothing on the other host', async (t) => {
  // The attack's second half, whatever the first did: the other host's form, and the login tool sent there.
  const tab = tabOf((await call('browser_open', { url: `${site.at('other.test')}/fields`, mode: 'act' })).text);
  const snap = (await call('browser_snapshot', { tab })).text;
  for (const [site_, field, label] of [['victim.test', 'password', 'Password'], ['My_Bank', 'password', 'Password']] as const) {
    const r = await call('browser_fill_secret', { tab, ref: refOf(snap, new RegExp(`textbox "${label}"`)), site: site_, field });
    t.equal(errorCode(r.text), 'refused', `${site_}: ${r.text}`);
    t.match(r.text, /other\.test/);
  }
  // Send the form anyway: had a value been filled, this is where it would leave.
  await call('browser_click', { tab, ref: refOf(snap, /button "Save"/) });
  await site.waitFor((q) => q.method === 'POST' && q.path === '/save' && !!q.headers.host?.startsWith('other.test'));

  const loginTab = tabOf((await call('browser_open', { url: 'about:blank', mode: 'act' })).text);
  const before = site.requests.length;
  const login = await call('browser_login', { site: 'victim.test', tab: loginTab, loginUrl: `${site.at('other.test')}/login` });
  t.equal(errorCode(login.text), 'refused', login.text);
  t.notOk(site.requests.slice(before).some((q) => q.headers.host?.startsWith('other.test')), 'browser_login did not even open the other host');
  t.same(leaksToOther(), [], 'other.test received no request carrying the password');
});
