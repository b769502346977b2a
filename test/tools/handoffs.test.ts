/**
 * Hand-offs end to end: the tools over MCP, the "Your turn" page over HTTP and in a second headless Chromium
 * (the person's browser, launched here: the daemon's own browsers may not reach the daemon's port), Done
 * waking a waiting browser_handoff_wait, resolve, extend and the whole-life cap, expiry on a clock the test
 * moves (no sleeps), restart, another user's ids and guessed tokens, and the message shown as text only.
 */
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestDaemon, call, type TestDaemon } from '../fixtures/daemon.js';
import { launchChromium, type LaunchedChromium } from '../../daemon/browser/launcher.js';
import { loadConfig } from '../../daemon/config.js';
import pino from 'pino';
import { openDb } from '../../storage/db.js';
import { HandoffStore } from '../../storage/handoffs.js';
import { HandoffService } from '../../daemon/handoff/service.js';

let d: TestDaemon;
let alice: string;
let bob: string;
let a: Client;
let person: LaunchedChromium;
let personDir: string;

t.before(async () => {
  d = await startTestDaemon();
  alice = await d.addUser('alice');
  bob = await d.addUser('bob');
  a = await d.mcp(alice);
  personDir = mkdtempSync(join(tmpdir(), 'browserd-person-'));
  // The person's own browser: no proxy (it is not one of the daemon's), every name but loopback unresolvable.
  person = await launchChromium({ userDataDir: personDir, headless: true, extra: ['--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'] });
});
t.teardown(async () => {
  // The daemon stops whatever the person's browser does: a teardown that threw before it left the daemon and
  // its browser running, and the file hung to its time limit instead of reporting.
  try {
    await person?.close();
    // Chromium's helper processes can still be writing into the profile just after it exits; a leftover temp
    // dir is harmless (as in the injected-script harness), a teardown that throws fails the file for nothing.
    try {
      rmSync(personDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    } catch {
      /* left for the system's temp cleanup */
    }
  } finally {
    await d.stop();
  }
});

interface Created { id: string; url: string; expiresAt: string; text: string }

async function handoff(client: Client, args: Record<string, unknown>, owner = alice): Promise<Created> {
  const r = await call(client, 'browser_handoff', args);
  if (r.isError) throw new Error(r.text);
  const id = /Created hand-off (ho_[0-9a-f]{16})/.exec(r.text)![1];
  const url = /Link for the person: (\S+)/.exec(r.text)![1];
  // MCP answers in words; the exact expiry comes from the structured REST view.
  return { id, url, expiresAt: (await stateOf(owner, id)).expiresAt, text: r.text };
}

/** The state of a hand-off as the REST view of browser_handoffs shows it. */
async function stateOf(token: string, id: string): Promise<any> {
  const r = await d.rest(token, 'POST', '/v1/tools/browser_handoffs', {});
  return r.json.handoffs.find((h: any) => h.id === id);
}

/** browser_handoff_extend over REST, for its structured answer. */
const extend = (id: string, expiresInS: number) => d.rest(alice, 'POST', '/v1/tools/browser_handoff_extend', { id, expiresInS });

/** A page in the person's browser, at `url`, loaded. */
async function personOpens(url: string) {
  const c = person.conn;
  const { targetId } = await c.send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await c.send('Target.attachToTarget', { targetId, flatten: true });
  await c.send('Page.enable', {}, sessionId);
  await c.send('Runtime.enable', {}, sessionId);
  const loaded = c.waitFor('Page.loadEventFired', sessionId);
  await c.send('Page.navigate', { url }, sessionId);
  await loaded;
  const evaluate = async (expression: string) => (await c.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, sessionId)).result.value;
  return {
    evaluate,
    /** A real mouse click at the centre of the element, then the page it loads. */
    async click(selector: string) {
      const box = await evaluate(`(() => { const r = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; })()`);
      const next = c.waitFor('Page.loadEventFired', sessionId);
      await c.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: box.x, y: box.y }, sessionId);
      await c.send('Input.dispatchMouseEvent', { type: 'mousePressed', x: box.x, y: box.y, button: 'left', clickCount: 1 }, sessionId);
      await c.send('Input.dispatchMouseEvent', { type: 'mouseReleased', x: box.x, y: box.y, button: 'left', clickCount: 1 }, sessionId);
      await next;
    },
    close: () => c.send('Target.closeTarget', { targetId }),
  };
}

/**
 * browser_handoff_wait with its longest timeout (60 s). Whatever ends it, it returns the state as stored, so
 * a wait that was never woken would still show the new state, 60 s late: the request gives up at 40 s so that
 * a wait the change did not wake fails the test instead.
 */
async function waitWoken(client: Client, id: string) {
  const raw: any = await client.callTool({ name: 'browser_handoff_wait', arguments: { id, timeoutS: 60 } }, undefined, { timeout: 40_000 });
  return { raw, isError: !!raw.isError, text: (raw.content ?? []).map((c: any) => c.text ?? '').join('\n') };
}

/**
 * Resolves once a browser_handoff_wait call is inside the service, waiting on `id` (checked each turn of the
 * event loop), or once that call has ended some other way (its answer then fails the test's assertions).
 */
async function waitingOn(user: string, id: string, pending: Promise<unknown>) {
  let settled = false;
  pending.then(
    () => (settled = true),
    () => (settled = true),
  );
  while (!settled && d.daemon.features.handoffs.waiting(user, id) === 0) await new Promise((r) => setImmediate(r));
}

/** Moves the hand-off service's clock to `at` ms; returns a function putting the real clock back. */
function clockAt(at: () => number): () => void {
  const svc = d.daemon.features.handoffs;
  svc.now = at;
  return () => {
    svc.now = Date.now;
  };
}

t.test('browser_handoff answers an id, a link to the page and the expiry; the list shows it open', async (t) => {
  const before = Date.now();
  const h = await handoff(a, { reason: 'two_factor', message: 'Type the code from your phone.' });
  t.match(h.id, /^ho_[0-9a-f]{16}$/);
  t.match(h.url, new RegExp(`^${d.url}/handoff/[a-z2-7]{10}\\.[A-Za-z0-9_-]{43}$`), 'an absolute link on the daemon, carrying the token');
  const listed = await stateOf(alice, h.id);
  t.equal(Date.parse(listed.expiresAt) - Date.parse(listed.createdAt), 1800_000, 'default expiry 1800 s');
  t.ok(Date.parse(listed.createdAt) >= before, 'made now');
  t.equal(listed.status, 'open');
  t.equal(listed.reason, 'two_factor');
  t.equal(listed.message, 'Type the code from your phone.');
  t.notOk(JSON.stringify(listed).includes(h.url.split('/').pop()!), 'the token is not in the listing');
});

t.test('the page token is stored only as a hash', async (t) => {
  const h = await handoff(a, { message: 'Look at this.' });
  const token = h.url.split('/').pop()!;
  const db = d.daemon.env.db.handoffs;
  let seen = 0;
  for (const { key, value } of db.getRange({})) {
    seen++;
    t.notOk(`${String(key)} ${JSON.stringify(value)}`.includes(token), 'no key or record holds the token itself');
  }
  t.ok(seen >= 2, 'records were read');
});

t.test('the page: headers that keep the token and the page safe, the message as text, the live view line', async (t) => {
  const h = await handoff(a, { reason: 'captcha', message: 'Solve the puzzle\n<script>alert(1)</script> & "quote"' });
  const res = await fetch(h.url);
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/html/);
  const csp = res.headers.get('content-security-policy') ?? '';
  t.match(csp, /frame-ancestors 'none'/);
  t.match(csp, /default-src 'none'/);
  t.match(csp, /script-src 'nonce-[A-Za-z0-9+/=]+'/);
  t.notMatch(csp, /unsafe-inline|unsafe-eval/);
  t.equal(res.headers.get('cache-control'), 'no-store');
  t.equal(res.headers.get('referrer-policy'), 'strict-origin', 'no Referer ever carries the path (and its token)');
  t.equal(res.headers.get('x-frame-options'), 'DENY');
  const body = await res.text();
  t.notOk(body.includes('<script>alert(1)</script>'), 'the message is not markup');
  t.ok(body.includes('&#60;script&#62;alert(1)&#60;/script&#62; &#38; &#34;quote&#34;'), 'it is escaped text');
  t.match(body, /A CAPTCHA needs solving/);
  t.match(body, /Live view unavailable/, 'without a live view the page says so and still works');
  t.match(body, /Time left: <span id="left">\d+ min \d+ s<\/span>/);
});

t.test('with a tab open, the page embeds the live browser of that tab and it draws frames', async (t) => {
  const opened = await call(a, 'browser_open', { url: 'about:blank', mode: 'read' });
  t.notOk(opened.isError, opened.text);
  const tab = /\b(t\d+)\b/.exec(opened.text)![1];
  const h = await handoff(a, { reason: 'two_factor', message: 'Enter the code.', tab });
  const p = await personOpens(h.url);
  t.teardown(() => p.close());
  const src: string = await p.evaluate(`document.getElementById('live')?.getAttribute('src') ?? ''`);
  t.match(src, new RegExp(`^${d.url}/live/[a-z2-7]{10}\\.[A-Za-z0-9_-]{43}$`), 'an interactive live link of the daemon, in an iframe');
  // The viewer is framed by its own origin only: inside the hand-off page it loads and connects.
  const status = await p.evaluate(`new Promise((resolve) => {
    const started = Date.now();
    const look = () => {
      const doc = document.getElementById('live').contentDocument;
      const canvas = doc && doc.getElementById('screen');
      if (canvas && canvas.width > 0) return resolve({ mode: doc.body.dataset.mode, width: canvas.width });
      if (Date.now() - started > 20000) return resolve({ status: doc ? doc.getElementById('status')?.textContent : 'no document' });
      requestAnimationFrame(look);
    };
    look();
  })`);
  t.equal(status.mode, 'interactive', `the viewer inside the page takes input (${JSON.stringify(status)})`);
  t.ok(status.width > 0, 'a frame of the tab was drawn');
});

t.test('in a real browser the message shows literally and runs nothing', async (t) => {
  const message = 'Check this: <img src=x onerror="window.pwned=1"><script>window.pwned=2</script><b>bold?</b>';
  const h = await handoff(a, { message });
  const p = await personOpens(h.url);
  t.teardown(() => p.close());
  t.equal(await p.evaluate(`document.getElementById('message').textContent`), message, 'shown character for character');
  t.equal(await p.evaluate(`document.getElementById('message').children.length`), 0, 'no element came out of it');
  t.equal(await p.evaluate(`typeof window.pwned`), 'undefined', 'no script of the message ran');
  t.match(await p.evaluate(`document.getElementById('left').textContent`), /min/, 'the nonce\'d countdown script may run');
});

t.test('a real click on Done wakes a waiting browser_handoff_wait with resolvedBy person', async (t) => {
  const h = await handoff(a, { reason: 'login', message: 'Log in, then press Done.' });
  const p = await personOpens(h.url);
  t.teardown(() => p.close());
  const waiting = waitWoken(a, h.id);
  await waitingOn('alice', h.id, waiting);
  await p.click('#done');
  const w = await waiting;
  t.notOk(w.isError, w.text);
  t.match(w.text, /is resolved \(the person pressed Done\)/, 'the wait returned because the state changed');
  t.equal((await stateOf(alice, h.id)).resolvedBy, 'person');
  t.equal(await p.evaluate(`document.getElementById('thanks')?.textContent`), 'Done, thank you', 'the person sees it went through');
  const again = await fetch(h.url);
  t.equal(again.status, 410, 'the link is over once Done was pressed');
  t.notMatch(await again.text(), /Log in|ho_/, 'the gone page says nothing about the hand-off');
});

t.test('Done by HTTP: cross-site posts are refused and change nothing; a guessed token gets a bare 404', async (t) => {
  const h = await handoff(a, { message: 'Approve the payment.' });
  const token = h.url.split('/').pop()!;
  const done = `${d.url}/handoff/${token}/done`;
  const foreign = await fetch(done, { method: 'POST', headers: { Origin: 'http://evil.test' } });
  t.equal(foreign.status, 403, 'a foreign Origin is refused');
  const crossSite = await fetch(done, { method: 'POST', headers: { 'Sec-Fetch-Site': 'cross-site' } });
  t.equal(crossSite.status, 403, 'a browser saying the post came from another site is refused');
  t.equal((await stateOf(alice, h.id)).status, 'open', 'still open after both');

  const guessed = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
  for (const bad of [guessed, 'x', 'ho_' + h.id.slice(3), encodeURIComponent('../v1/me')]) {
    const g = await fetch(`${d.url}/handoff/${bad}`);
    t.equal(g.status, 404, `GET /handoff/${bad} is 404`);
    const text = await g.text();
    t.notMatch(text, /Approve|ho_/, 'the 404 page reveals nothing');
    t.equal((await fetch(`${d.url}/handoff/${bad}/done`, { method: 'POST' })).status, 404);
  }
  t.equal((await stateOf(alice, h.id)).status, 'open', 'guesses changed nothing');

  const ok = await fetch(done, { method: 'POST', headers: { Origin: d.url, 'Content-Type': 'application/x-www-form-urlencoded' }, body: '' });
  t.equal(ok.status, 200);
  t.equal((await stateOf(alice, h.id)).resolvedBy, 'person');
  t.equal((await fetch(done, { method: 'POST' })).status, 410, 'a second press finds it over');
});

t.test('resolve with a note; resolving again is refused and keeps the first note', async (t) => {
  const h = await handoff(a, { message: 'Tell me when the parcel is booked.' });
  const r = await call(a, 'browser_handoff_resolve', { id: h.id, note: 'The person booked it by phone.' });
  t.notOk(r.isError, r.text);
  t.match(r.text, /resolved \(resolved by the agent\)[^\n]*It has a note \(fenced below\)\.\n<<<page \w+ source="note of ho_\w+">>>\nThe person booked it by phone\.\n/);
  const again = await call(a, 'browser_handoff_resolve', { id: h.id, note: 'second' });
  t.ok(again.isError);
  t.match(again.text, /\[refused\].*already|\[refused\].*was resolved/);
  const state = await stateOf(alice, h.id);
  t.equal(state.note, 'The person booked it by phone.', 'nothing changed');
  t.equal(state.resolvedBy, 'agent');
  const w = await waitWoken(a, h.id);
  t.match(w.text, /is resolved/, 'wait returns at once when not open');
  t.equal((await fetch(h.url)).status, 410, 'the page is over too');
});

t.test('Done and resolve at the same moment: exactly one wins', async (t) => {
  const h = await handoff(a, { message: 'Race.' });
  const [page, tool] = await Promise.all([fetch(`${h.url}/done`, { method: 'POST' }), call(a, 'browser_handoff_resolve', { id: h.id })]);
  t.equal([page.status === 200, !tool.isError].filter(Boolean).length, 1, `page ${page.status}, tool ${tool.isError ? 'refused' : 'ok'}`);
  t.equal((await stateOf(alice, h.id)).status, 'resolved');
});

t.test('extend moves the expiry, never past the 24 h whole-life cap', async (t) => {
  const t0 = Date.now();
  let now = t0;
  t.teardown(clockAt(() => now));
  const h = await handoff(a, { message: 'Take your time.', expiresInS: 86400 });
  t.equal(Date.parse(h.expiresAt), t0 + 86400_000);
  now = t0 + 10_000;
  const shorter = await extend(h.id, 3600);
  t.equal(shorter.status, 200);
  t.equal(Date.parse(shorter.json.handoff.expiresAt), now + 3600_000, 'expires expiresInS from now');
  now = t0 + 23.5 * 3600_000;
  t.equal((await stateOf(alice, h.id)).status, 'expired', 'past its (shortened) expiry it reads expired');

  const h2 = await handoff(a, { message: 'Longer job.', expiresInS: 3600 });
  const c0 = now;
  now = c0 + 3000_000;
  const ext = await extend(h2.id, 7200);
  t.equal(Date.parse(ext.json.handoff.expiresAt), now + 7200_000);
  now = c0 + 10_000_000;
  const ext2 = await call(a, 'browser_handoff_extend', { id: h2.id, expiresInS: 86400 });
  t.notOk(ext2.isError, ext2.text);
  t.match(ext2.text, /cut to the cap/);
  t.equal(Date.parse((await stateOf(alice, h2.id)).expiresAt), c0 + 86400_000, 'cut to 24 h after creation');
  const ext3 = await call(a, 'browser_handoff_extend', { id: h2.id, expiresInS: 86400 });
  t.ok(ext3.isError, 'no further extension at the cap');
  t.match(ext3.text, /\[refused\].*cap/);
  t.equal(Date.parse((await stateOf(alice, h2.id)).expiresAt), c0 + 86400_000, 'the refusal changed nothing');
});

t.test('expiry: a waiting call returns when the time comes; expired ones cannot be resolved or opened', async (t) => {
  const t0 = Date.now();
  let now = t0;
  t.teardown(clockAt(() => now));
  const h = await handoff(a, { message: 'Quick one.', expiresInS: 60 });
  const waiting = waitWoken(a, h.id);
  t.match((await call(a, 'browser_handoff_wait', { id: h.id, timeoutS: 0 })).text, /is open/, 'timeoutS 0 only looks');
  await waitingOn('alice', h.id, waiting);
  now = t0 + 61_000;
  await d.daemon.features.handoffs.expireDue();
  const w = await waiting;
  t.match(w.text, /expired at/, 'woken by the expiry, long before its own timeout');
  const r = await call(a, 'browser_handoff_resolve', { id: h.id });
  t.ok(r.isError);
  t.match(r.text, /\[refused\].*expired/);
  t.equal((await fetch(h.url)).status, 410);
  t.equal((await fetch(`${h.url}/done`, { method: 'POST' })).status, 410, 'Done after expiry does nothing');
  t.equal((await stateOf(alice, h.id)).status, 'expired');
  const onlyExpired = await d.rest(alice, 'POST', '/v1/tools/browser_handoffs', { status: 'expired' });
  t.ok(onlyExpired.json.handoffs.every((x: any) => x.status === 'expired') && onlyExpired.json.handoffs.some((x: any) => x.id === h.id), 'status filter');
});

t.test('expiry needs no timer: a hand-off past its time reads expired even if nothing noticed', async (t) => {
  const h = await handoff(a, { message: 'Unattended.', expiresInS: 60 });
  const t0 = Date.now();
  t.teardown(clockAt(() => t0 + 120_000));
  t.equal((await stateOf(alice, h.id)).status, 'expired');
  t.equal((await fetch(h.url)).status, 410);
});

t.test('a restart keeps hand-offs, their links and their states', async (t) => {
  const open = await handoff(a, { reason: 'needs_approval', message: 'Still here after a restart?' });
  const resolved = await handoff(a, { message: 'Done before the restart.' });
  await call(a, 'browser_handoff_resolve', { id: resolved.id, note: 'kept' });
  const listBefore = (await d.rest(alice, 'POST', '/v1/tools/browser_handoffs', {})).json.handoffs.map((x: any) => x.id);
  await d.restart();
  a = await d.mcp(alice);
  const listAfter = (await d.rest(alice, 'POST', '/v1/tools/browser_handoffs', {})).json.handoffs;
  t.same(listAfter.map((x: any) => x.id), listBefore, 'same hand-offs, newest first');
  t.equal(listAfter.find((x: any) => x.id === open.id).status, 'open');
  t.equal(listAfter.find((x: any) => x.id === resolved.id).note, 'kept');
  t.ok(listAfter.findIndex((x: any) => x.id === resolved.id) < listAfter.findIndex((x: any) => x.id === open.id), 'newest first');
  // A test daemon listens on a new ephemeral port after a restart; the link's path (its token) is what must hold.
  const link = `${d.url}${new URL(open.url).pathname}`;
  const pageRes = await fetch(link);
  t.equal(pageRes.status, 200, 'the link still opens the page');
  t.match(await pageRes.text(), /Still here after a restart\?/);
  const waiting = waitWoken(a, open.id);
  await waitingOn('alice', open.id, waiting);
  t.equal((await fetch(`${link}/done`, { method: 'POST' })).status, 200);
  t.match((await waiting).text, /is resolved \(the person pressed Done\)/);
});

t.test("another user's hand-off is not found, exactly like one that never was", async (t) => {
  const h = await handoff(a, { message: "Alice's step." });
  const b = await d.mcp(bob);
  const unknown = 'ho_0123456789abcdef';
  for (const [tool, args] of [
    ['browser_handoff_wait', { timeoutS: 0 }],
    ['browser_handoff_resolve', { note: 'bob was here' }],
    ['browser_handoff_extend', { expiresInS: 600 }],
  ] as const) {
    const theirs = await call(b, tool, { id: h.id, ...args });
    const none = await call(b, tool, { id: unknown, ...args });
    t.ok(theirs.isError, `${tool} on alice's id fails`);
    t.match(theirs.text, /\[not_found\]/);
    t.equal(theirs.text.replace(h.id, 'ID'), none.text.replace(unknown, 'ID'), `${tool}: the same answer as for an unknown id`);
  }
  t.notOk((await d.rest(bob, 'POST', '/v1/tools/browser_handoffs', {})).json.handoffs.some((x: any) => x.id === h.id), "bob's list does not show it");
  const state = await stateOf(alice, h.id);
  t.equal(state.status, 'open');
  t.notOk(state.note, 'nothing bob did reached it');
});

t.test('bad input is a validation_error and creates nothing', async (t) => {
  const count = async () => (await d.rest(alice, 'POST', '/v1/tools/browser_handoffs', {})).json.handoffs.length;
  const before = await count();
  for (const [tool, args] of [
    ['browser_handoff', { message: 'x'.repeat(2001) }],
    ['browser_handoff', { message: '' }],
    ['browser_handoff', { message: 'ok', expiresInS: 59 }],
    ['browser_handoff', { message: 'ok', expiresInS: 86401 }],
    ['browser_handoff', { message: 'ok', reason: 'bored' }],
    ['browser_handoff', { message: 'ok', tab: 't999' }],
    ['browser_handoff_wait', { id: 'ho_0123456789abcdef', timeoutS: 61 }],
    ['browser_handoff_wait', { id: 'ho_XYZ' }],
    ['browser_handoff_resolve', { id: 'ho_0123456789abcdef', note: 'n'.repeat(2001) }],
  ] as const) {
    const r = await d.rest(alice, 'POST', `/v1/tools/${tool}`, args);
    t.ok(r.status === 400 || r.status === 404, `${tool} ${JSON.stringify(args).slice(0, 60)} -> ${r.status}`);
    t.ok(r.json.error.next, 'with a next step');
  }
  t.equal(await count(), before, 'no hand-off was created');
});

t.test('the whole-life cap is a server setting: BROWSERD_HANDOFF_MAX_S, and creation is cut to it too', async (t) => {
  t.equal(loadConfig({}, {}).handoffMaxS, 86400, 'default 24 h');
  t.equal(loadConfig({}, { BROWSERD_HANDOFF_MAX_S: '600' }).handoffMaxS, 600);
  t.equal(loadConfig({ 'handoff-max-s': '900' }, {}).handoffMaxS, 900);
  t.throws(() => loadConfig({}, { BROWSERD_HANDOFF_MAX_S: '10' }), /handoff-max-s/, 'below a minute is refused at start');
  const small = await startTestDaemon({ handoffMaxS: 600 });
  t.teardown(() => small.stop());
  const carol = await small.addUser('carol');
  const r = await small.rest(carol, 'POST', '/v1/tools/browser_handoff', { message: 'Short life.', expiresInS: 1800 });
  t.equal(r.status, 200);
  const h = r.json.handoff;
  t.equal(Date.parse(h.expiresAt) - Date.parse(h.createdAt), 600_000, 'cut to the cap');
  t.equal(h.capAt, h.expiresAt);
  t.match(r.json.text, /cut to the server's cap of 600 s/);
});

// The service's own timers (no test clock): records written straight to the store get expiries the tools
// would refuse (under a minute), so the real timer path runs in a moment. This test's 30 s timeout bounds it:
// a timer that never fired would leave the 60 s wait to run out.
t.test('expiry timers: armed at start for open hand-offs, they expire them on time and wake waiters', { timeout: 30_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'browserd-handoff-timers-'));
  const db = openDb(dir);
  t.teardown(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });
  const store = new HandoffStore(db);
  const now = Date.now();
  const make = (expiresInMs: number) =>
    store.create({ user: 'erin', reason: 'other', message: 'timer', createdAt: new Date(now).toISOString(), expiresAt: new Date(now + expiresInMs).toISOString(), capAt: new Date(now + 86400_000).toISOString() });
  const past = (await make(-1000)).record;
  const soon = (await make(300)).record;
  // A daemon starting over these records: the one already past its time expires at once, the other on time.
  const svc = new HandoffService(store, { maxLifeS: 86400, baseUrl: () => 'http://127.0.0.1:1', hasTab: () => false, log: pino({ level: 'silent' }) });
  t.teardown(() => svc.close());
  const v = await svc.wait('erin', soon.id, 60_000);
  t.equal(v.status, 'expired', 'the wait was woken by the expiry timer');
  t.equal(store.get('erin', soon.id)!.status, 'expired', 'and the expiry was written down');
  t.equal(store.get('erin', past.id)!.status, 'expired', 'a hand-off past its time while the daemon was down is marked expired at start');
});
