/**
 * `browserd user disable`, run from another process while the daemon serves, stops the account at once: its
 * live link, hand-off page and CDP URL stop opening, a person watching is disconnected, its CDP client is cut
 * off and its browser stops; another user carries on. Enabling it again brings back its tabs.
 */
import t from 'tap';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import WebSocket from 'ws';
import { html, startSite, type FixtureSite } from '../fixtures/site.js';
import { startTestDaemon, call, type TestDaemon } from '../fixtures/daemon.js';

const run = promisify(execFile);
const bin = new URL('../../bin/browserd.js', import.meta.url).pathname;

let d: TestDaemon;
let site: FixtureSite;
t.before(async () => {
  site = await startSite();
  site.route('/', html('<h1>Bob was here</h1>'));
  d = await startTestDaemon();
});
t.teardown(async () => {
  await d.stop();
  await site.close();
});

/** A WebSocket that resolves once open, and tells how it closed. */
function connect(url: string): Promise<{ ws: WebSocket; closed: Promise<{ code: number; reason: string }> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const closed = new Promise<{ code: number; reason: string }>((r) => ws.on('close', (code, reason) => r({ code, reason: String(reason) })));
    ws.once('open', () => resolve({ ws, closed }));
    ws.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode })));
    ws.once('error', reject);
  });
}

/** Resolves when `cond` holds, checking every 50 ms; fails the test after `ms`. */
async function until(cond: () => boolean, ms: number, what: string) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

t.test('a disable from the CLI ends the live view, hand-off page, CDP session and browser of that account only', async (t) => {
  const bobToken = await d.addUser('bob');
  const carolToken = await d.addUser('carol');
  const bob = await d.mcp(bobToken);
  const carol = await d.mcp(carolToken);

  const opened = await call(bob, 'browser_open', { url: `${site.url}/` });
  const liveUrl = /Live link for a person to watch or take over this tab[^:]*: (\S+)/.exec(opened.text)![1];
  const handoff = await call(bob, 'browser_handoff', { message: 'Please sign in' });
  const handoffUrl = /Link for the person: (\S+)/.exec(handoff.text)![1];
  const session = await call(bob, 'browser_sessions', { action: 'start', minutes: 5 });
  const cdpUrl = /Connect a CDP client to: (\S+)/.exec(session.text)![1];
  await call(carol, 'browser_open', { url: `${site.url}/`, live: 'none' });

  // Everything opens while the account is active.
  t.equal((await fetch(liveUrl)).status, 200);
  t.equal((await fetch(handoffUrl)).status, 200);
  const viewer = await connect(`${liveUrl.replace(/^http/, 'ws')}/ws`);
  const cdp = await connect(cdpUrl);
  t.ok(d.daemon.env.pool.runningUsers().includes('bob'), "bob's browser runs");

  await run(process.execPath, [bin, 'user', 'disable', 'bob', '--data', d.dataDir], { encoding: 'utf8' });

  // The doors that open by link ask at once; nothing waits for the sweep.
  t.equal((await fetch(liveUrl)).status, 404, 'the live page is gone');
  t.equal((await fetch(handoffUrl)).status, 404, 'the hand-off page is gone');
  const again = await connect(cdpUrl).catch((e) => e);
  t.equal(again.status, 401, 'the CDP URL is refused');
  const liveAgain = await connect(`${liveUrl.replace(/^http/, 'ws')}/ws`).catch((e) => e);
  t.equal(liveAgain.status, 404, 'a new viewer cannot connect');
  const refused = await d.rest(bobToken, 'POST', '/v1/tools/browser_tabs', {});
  t.equal(refused.status, 401, 'the token is refused');

  // What was already running ends within the sweep's couple of seconds.
  const watched = await viewer.closed;
  t.equal(watched.reason, 'the account was disabled', 'the person watching is told why');
  await cdp.closed;
  t.pass('the CDP client is cut off');
  await until(() => !d.daemon.env.pool.runningUsers().includes('bob'), 10_000, "bob's browser stopping");
  t.pass("bob's browser stopped");

  // Carol is untouched.
  t.ok(d.daemon.env.pool.runningUsers().includes('carol'), "carol's browser still runs");
  const carolTabs = await call(carol, 'browser_tabs', {});
  t.notOk(carolTabs.isError);

  // Enabled again, bob's token works and the tab comes back with the browser.
  await run(process.execPath, [bin, 'user', 'enable', 'bob', '--data', d.dataDir], { encoding: 'utf8' });
  const back = await d.rest(bobToken, 'POST', '/v1/tools/browser_read_text', {});
  t.equal(back.status, 200, 'the token works again');
  t.match(back.json.text, /Bob was here/, 'the tab came back with its page');
});
