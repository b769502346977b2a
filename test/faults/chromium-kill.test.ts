/**
 * kill -9 of a user's Chromium in the middle of a call. Every kind of wait a call can be in (polling for text or
 * a selector, a plain wait for time, a page load, a browser_read of a page that answers slowly) ends with
 * browser_crashed within seconds, not at its own timeout; the next call starts the browser again on the same
 * profile with the same tab ids at their URLs and the site's cookie; and another user's calls go on at their
 * usual pace meanwhile.
 */
import t from 'tap';
import type { ServerResponse } from 'node:http';
import { startStack, type Stack } from '../fixtures/stack.js';
import { html, type FixtureSite } from '../fixtures/site.js';
import type { TestDaemon } from '../fixtures/daemon.js';

let stack: Stack;
let d: TestDaemon;
let site: FixtureSite;
let bob: string;
const alice = (name: string, args: Record<string, unknown>) => stack.rest(name, args);
const asBob = (name: string, args: Record<string, unknown>) => d.rest(bob, 'POST', `/v1/tools/${name}`, args);
/** Responses the fixture site holds open, so a page stays loading until the test is over. */
const held: ServerResponse[] = [];
/** The bound the brief puts on "at once": a crash is seen within a second, 5 s leaves room for a busy host. */
const CRASH_SEEN_MS = 5000;

t.before(async () => {
  stack = await startStack();
  ({ d, site } = stack);
  bob = await d.addUser('bob');
  site.route('/quiet', html('<h1>nothing will appear here</h1>'));
  site.route('/second', html('<h1>the second tab</h1>'));
  site.route('/login', (_req, res) => {
    // A persistent cookie (Max-Age), as a site's sign-in sets: it belongs in the profile, across restarts.
    res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'session=kept-after-crash; Max-Age=86400; Path=/' });
    res.end(html('<h1>signed in</h1>'));
  });
  site.route('/whoami', (req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(html(`<h1 id="who">cookie: ${/session=([\w-]+)/.exec(req.headers.cookie ?? '')?.[1] ?? 'none'}</h1>`));
  });
  // Never answers: the request stays in flight (Page.navigate unanswered).
  site.route('/no-answer', (_req, res) => void held.push(res));
  // Answers headers and the start of the page, then never finishes: navigated, never loaded.
  site.route('/never-loads', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.write('<!doctype html><html><body><h1>half a page</h1>');
    held.push(res);
  });
});
t.teardown(async () => {
  for (const r of held.splice(0)) r.destroy();
  await stack.stop();
});

/** alice's running browser (started by an earlier call). */
function browser() {
  const inst = d.daemon.env.pool.peek('alice');
  if (!inst?.pid) throw new Error('alice has no running browser');
  return inst;
}

/** Resolves when the daemon sends `method` (matching `pred`) to alice's browser: the call is in the wait. */
function sent(method: string, pred: (params: any) => boolean = () => true): Promise<void> {
  const conn = browser().conn! as { send: (...a: any[]) => Promise<unknown> };
  const send = conn.send;
  return new Promise((resolve) => {
    conn.send = (m: string, params: any, ...rest: unknown[]) => {
      if (m === method && pred(params)) {
        conn.send = send;
        resolve();
      }
      return send.call(conn, m, params, ...rest);
    };
  });
}

/** Kills alice's Chromium once `inWait` says the call is waiting; the call's answer and how long after the kill it came. */
async function killDuring(call: Promise<{ status: number; json: any }>, inWait: Promise<unknown>) {
  const pid = browser().pid!;
  await inWait;
  const killedAt = Date.now();
  process.kill(pid, 'SIGKILL');
  const r = await call;
  return { r, afterKillMs: Date.now() - killedAt };
}

async function openQuiet(): Promise<string> {
  const r = await alice('browser_open', { url: `${site.url}/quiet` });
  if (r.status !== 200) throw new Error(`browser_open: ${JSON.stringify(r.json)}`);
  return r.json.tab;
}

const polling = () => sent('Runtime.evaluate', (p) => String(p?.expression).includes('__browserd.check('));

let seq = 0;
/** A URL of the site no earlier call asked for, so its arrival marks this call's request. */
const fresh = (path: string) => `${site.url}${path}?n=${++seq}`;
const arrived = (url: string) => site.waitFor((r) => `${site.url}${r.path}` === url, 20000);

/** An MCP result in the REST shape the assertions read: the error's code and next step from its text. */
function mcpAsJson(res: any) {
  const text: string = (res.content ?? []).map((c: any) => c.text ?? '').join('\n');
  if (!res.isError) return { ok: true, text };
  return { ok: false, error: { code: /^Error \[(\w+)\]/.exec(text)?.[1], next: /^Next: (.*)$/m.exec(text)?.[1] } };
}

type Call = Promise<{ status: number; json: any }>;

t.test('every kind of wait ends with browser_crashed within seconds of a kill -9, not at its timeout', async (t) => {
  const kinds: [string, (tab: string) => { call: Call; inWait: Promise<unknown> }][] = [
    ['browser_wait for text', (tab) => { const inWait = polling(); return { inWait, call: alice('browser_wait', { tab, text: 'never there', timeoutMs: 30000 }) }; }],
    ['browser_wait for a selector', (tab) => { const inWait = polling(); return { inWait, call: alice('browser_wait', { tab, selector: '#never-there', timeoutMs: 30000 }) }; }],
    ['browser_wait for text to go', (tab) => { const inWait = polling(); return { inWait, call: alice('browser_wait', { tab, text: 'nothing will appear', gone: true, timeoutMs: 30000 }) }; }],
    ['browser_wait for time', (tab) => {
      // A timed wait sends nothing to the page; its first progress report (after a second) says it is under way.
      let onprogress!: () => void;
      const inWait = new Promise<void>((r) => (onprogress = r));
      const call = stack.client
        .callTool({ name: 'browser_wait', arguments: { tab, timeMs: 30000 } }, undefined, { onprogress, timeout: 60000 })
        .then((res: any) => ({ status: 0, json: mcpAsJson(res) }));
      return { inWait, call };
    }],
    ['browser_navigate to a page that never answers', (tab) => { const url = fresh('/no-answer'); return { inWait: arrived(url), call: alice('browser_navigate', { tab, url }) }; }],
    ['browser_navigate to a page that never finishes loading', (tab) => { const url = fresh('/never-loads'); return { inWait: arrived(url), call: alice('browser_navigate', { tab, url }) }; }],
    ['browser_read of a page that never answers', () => { const url = fresh('/no-answer'); return { inWait: arrived(url), call: alice('browser_read', { urls: [url] }) }; }],
    ['browser_read of a page that never finishes loading', () => { const url = fresh('/never-loads'); return { inWait: arrived(url), call: alice('browser_read', { urls: [url] }) }; }],
  ];
  for (const [name, start] of kinds) {
    const tab = await openQuiet();
    const { call, inWait } = start(tab);
    const { r, afterKillMs } = await killDuring(call, inWait);
    t.equal(r.json?.error?.code, 'browser_crashed', `${name}: ${JSON.stringify(r.json).slice(0, 400)}`);
    t.ok(r.json?.error?.next, `${name}: the error says what to do next`);
    t.ok(afterKillMs < CRASH_SEEN_MS, `${name}: ended ${afterKillMs} ms after the kill`);
  }
});

/** Per-call latencies of bob's browser_snapshot over `ms` (one call after another). */
async function bobSnapshots(tab: string, until: () => boolean): Promise<number[]> {
  const times: number[] = [];
  while (!until()) {
    const t0 = Date.now();
    const r = await asBob('browser_snapshot', { tab });
    if (r.status !== 200) throw new Error(`bob's snapshot failed: ${JSON.stringify(r.json)}`);
    times.push(Date.now() - t0);
  }
  return times;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

t.test('after the kill the next call restarts the browser with its tab ids, URLs and cookie; bob is not slowed meanwhile', async (t) => {
  const signedIn = await alice('browser_open', { url: `${site.url}/login` });
  t.equal(signedIn.status, 200, JSON.stringify(signedIn.json));
  const second = await alice('browser_open', { url: `${site.url}/second` });
  const before = (await alice('browser_tabs', {})).json.tabs.map((x: any) => ({ id: x.id, url: x.url }));
  t.ok(before.some((x: any) => x.id === signedIn.json.tab) && before.some((x: any) => x.id === second.json.tab), 'both tabs are listed before the kill');

  const bobTab = (await asBob('browser_open', { url: `${site.url}/second` })).json.tab;
  const alone = await bobSnapshots(bobTab, ((n) => () => n-- <= 0)(10));

  // Alice's browser dies in the middle of a wait; bob keeps taking snapshots through the crash and the restart.
  let done = false;
  const during = bobSnapshots(bobTab, () => done);
  const { r } = await killDuring(alice('browser_wait', { tab: second.json.tab, text: 'never there', timeoutMs: 30000 }), polling());
  t.equal(r.json?.error?.code, 'browser_crashed');
  const pidBefore = d.daemon.env.pool.peek('alice');
  t.notOk(pidBefore, 'the dead browser is no longer in the pool');
  const who = await alice('browser_navigate', { tab: second.json.tab, url: `${site.url}/whoami` });
  t.equal(who.status, 200, `the next call restarts the browser: ${JSON.stringify(who.json)}`);
  const text = await alice('browser_read_text', { tab: second.json.tab });
  t.match(JSON.stringify(text.json), /cookie: kept-after-crash/, 'the cookie set before the kill is sent after the restart');
  const after = (await alice('browser_tabs', {})).json.tabs.map((x: any) => ({ id: x.id, url: x.url }));
  const signedInAfter = after.find((x: any) => x.id === signedIn.json.tab);
  t.equal(signedInAfter?.url, `${site.url}/login`, 'the first tab is back under its id at its URL');
  t.ok(after.some((x: any) => x.id === second.json.tab), 'the second tab is back under its id');
  done = true;
  const busy = await during;
  t.ok(busy.length >= 3, `bob made ${busy.length} calls meanwhile`);
  t.ok(Math.max(...busy) < 2000, `no call of bob's took 2 s or more (slowest ${Math.max(...busy)} ms)`);
  t.ok(median(busy) <= Math.max(3 * median(alone), 50), `bob's median ${median(busy)} ms stayed within 3x of ${median(alone)} ms alone`);
});
