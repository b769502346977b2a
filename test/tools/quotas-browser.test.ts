/**
 * Per-user limits that need real Chromium, with --max-browsers 2 and small quotas set by the serve flags:
 * one user's named profiles take both slots, and the next user still gets a browser because the first
 * user's idle-longest one gives way (its tabs stay and reopen later); a browser in the middle of a call never
 * gives way; no one gives way to a user already at their share. The HAR-recordings quota refuses the next
 * recording naming its flag; a page download past the storage quota is cancelled and leaves no bytes.
 */
import t from 'tap';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startStack, type Stack } from '../fixtures/stack.js';
import { html } from '../fixtures/site.js';
import { loadConfig } from '../../daemon/config.js';
import type { DownloadOutcome } from '../../daemon/browser/downloads.js';

let s: Stack;
let alice: string;
let bob: string;
let carol: string;

t.before(async () => {
  s = await startStack({ maxBrowsers: 2, quotas: loadConfig({ listen: '127.0.0.1:0', 'max-har-recordings-per-user': '1', 'max-storage-mb-per-user': '1' }).quotas });
  alice = s.token;
  bob = await s.d.addUser('bob');
  carol = await s.d.addUser('carol');
  s.site.route('/page', html('<h1>Page</h1><a href="/files/big">big file</a>'));
  s.site.route('/files/big', (_req, res) => {
    const size = 3 * 1024 * 1024;
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(size), 'content-disposition': 'attachment; filename="big.bin"' });
    res.end(Buffer.alloc(size, 7));
  });
});
t.teardown(() => s.stop());

const tool = (token: string, name: string, args: Record<string, unknown> = {}) => s.d.rest(token, 'POST', `/v1/tools/${name}`, args);
const open = (token: string, extra: Record<string, unknown> = {}) => tool(token, 'browser_open', { url: `${s.site.url}/page`, ...extra });
const pool = () => s.d.daemon.env.pool;

t.test("with --max-browsers 2, alice's two named profiles take both slots; bob still gets a browser: alice's idle-longest gives way", async (t) => {
  const one = await open(alice, { profile: 'one' });
  t.equal(one.status, 200, JSON.stringify(one.json));
  const two = await open(alice, { profile: 'two' });
  t.equal(two.status, 200, JSON.stringify(two.json));
  t.equal(pool().count, 2, 'alice holds both slots');
  // 'one' is now the idle-longest of alice's browsers.
  const b = await open(bob);
  t.equal(b.status, 200, `bob gets a browser, not 503: ${JSON.stringify(b.json).slice(0, 300)}`);
  t.notOk(pool().peek('alice', 'one'), "alice's idle-longest browser (profile one) was stopped");
  t.ok(pool().peek('alice', 'two'), "alice's other browser runs on");
  t.ok(pool().peek('bob'), "bob's browser runs");
  t.ok(pool().count <= 2, 'never more than the host maximum');
  const tabs = (await s.d.rest(alice, 'GET', '/v1/tabs')).json.tabs.map((x: any) => x.id);
  t.ok(tabs.includes(one.json.tab), "the stopped profile's tab is kept, to reopen on its next use");
});

t.test('no browser gives way to a user at their share, nor from users at theirs: 503 browser_capacity', async (t) => {
  // alice holds one (two), bob one: each their share of 2.
  const again = await open(alice, { profile: 'one' });
  t.equal(again.status, 503, 'alice is at her share: bob keeps his browser');
  t.equal(again.json.error.code, 'browser_capacity');
  t.ok(pool().peek('bob'));
  const c = await open(carol);
  t.equal(c.status, 503, 'carol: alice and bob each hold only their share');
  t.ok(again.headers.get('retry-after'), 'with Retry-After');
});

t.test('a browser in the middle of a call never gives way', async (t) => {
  await pool().stopUser('bob');
  const three = await open(alice, { profile: 'three' });
  t.equal(three.status, 200, 'alice takes the free slot again');
  // Both of alice's browsers are in a call (a 4 s wait each) when bob asks.
  const waits = [tool(alice, 'browser_wait', { timeMs: 4000, tab: three.json.tab }), tool(alice, 'browser_wait', { timeMs: 4000, tab: (await s.d.rest(alice, 'GET', '/v1/tabs')).json.tabs.find((x: any) => x.id.startsWith('two/')).id })];
  await new Promise((r) => setTimeout(r, 500));
  const refused = await open(bob);
  t.equal(refused.status, 503, 'every browser of alice is busy: none is stopped under its call');
  for (const w of await Promise.all(waits)) t.equal(w.status, 200, 'both calls finished on their own browsers');
  t.ok(pool().peek('alice', 'two') && pool().peek('alice', 'three'));
  t.equal((await open(bob)).status, 200, 'once idle, one gives way');
});

t.test('the HAR recordings quota refuses the next recording, naming --max-har-recordings-per-user', async (t) => {
  const first = (await open(bob)).json.tab;
  const second = (await open(bob)).json.tab;
  t.equal((await tool(bob, 'browser_har', { action: 'start', tab: first })).status, 200);
  const refused = await tool(bob, 'browser_har', { action: 'start', tab: second });
  t.equal(refused.status, 403, JSON.stringify(refused.json));
  t.equal(refused.json.error.code, 'refused');
  t.match(refused.json.error.message, '--max-har-recordings-per-user');
  t.match(refused.json.error.details, { quota: 'harRecordings', limit: 1 });
  t.equal((await tool(bob, 'browser_har', { tab: second })).json.har.state, 'none', 'no recording was made');
  await tool(bob, 'browser_har', { action: 'stop', tab: first });
  t.equal((await tool(bob, 'browser_har', { action: 'start', tab: first })).status, 200, 'a new recording that replaces the one of its tab takes no more room');
  await tool(bob, 'browser_har', { action: 'delete', tab: first });
  t.equal((await tool(bob, 'browser_har', { action: 'start', tab: second })).status, 200, 'after a delete there is room');
});

t.test('a page download past --max-storage-mb-per-user is cancelled while it arrives and leaves no bytes', async (t) => {
  const tab = (await open(bob)).json.tab;
  const inst = pool().peek('bob')!;
  const settled = new Promise<DownloadOutcome>((resolve) => inst.downloads!.once('settled', resolve));
  const snap = await tool(bob, 'browser_snapshot', { tab });
  const ref = /link "big file" \[ref=(e\d+)\]/.exec(snap.json.text ?? JSON.stringify(snap.json))?.[1];
  t.ok(ref, 'found the link');
  await tool(bob, 'browser_click', { tab, ref });
  const outcome = await settled;
  t.equal(outcome.state, 'over_quota');
  t.match(outcome.reason, '--max-storage-mb-per-user');
  t.same((await s.d.rest(bob, 'GET', '/v1/files')).json.files, [], 'nothing stored');
  const staging = join(s.d.dataDir, 'files', 'bob', '.downloading', 'default');
  t.same(readdirSync(staging), [], 'no partial bytes left');
});
