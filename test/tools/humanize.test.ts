/**
 * Humanized input where the identity applies: the fixture page records every pointer move and key press with
 * its time. On: many moves on a curve from where the pointer last was before each click, keys typed one by one
 * at uneven gaps. profile.humanize false, or a site the identity does not apply to: today's input (one move
 * then the click; insertText, or evenly paced keys with slowly).
 */
import t from 'tap';
import { startTestDaemon, call, refOf, type TestDaemon } from '../fixtures/daemon.js';
import { startIdentitySite, type IdentitySite } from '../fixtures/identity-site.js';

let d: TestDaemon;
let site: IdentitySite;
let admin: string;
let alice: string;

t.before(async () => {
  site = await startIdentitySite();
  d = await startTestDaemon({ chromeArgs: site.chromeArgs() });
  admin = await d.daemon.env.users.replaceAdminKey();
  alice = await d.addUser('alice');
  const r = await d.rest(admin, 'PATCH', '/v1/admin/browser-settings', { profile_enabled: ['site.test'] });
  if (r.status !== 200) throw new Error(JSON.stringify(r.json));
});
t.teardown(async () => {
  await d.stop();
  await site.close();
});

const GO = { x: 480, y: 320 };
const AGAIN = { x: 120, y: 540 };

/** How far the points stray from the straight line between the first and the last (px). */
function bend(points: { x: number; y: number }[]): number {
  const a = points[0]!;
  const b = points[points.length - 1]!;
  const len = Math.hypot(b.x - a.x, b.y - a.y) || 1;
  return Math.max(...points.map((p) => Math.abs((b.x - a.x) * (a.y - p.y) - (a.x - p.x) * (b.y - a.y)) / len));
}

const gaps = (keys: { t: number }[]) => keys.slice(1).map((k, i) => k.t - keys[i]!.t);

async function openInput(host: string, tag: string) {
  const client = await d.mcp(alice);
  const opened = await call(client, 'browser_open', { url: `${site.origin(host)}/input?tag=${tag}`, mode: 'act' });
  if (opened.isError) throw new Error(opened.text);
  const tab = /Opened tab (t\d+)/.exec(opened.text)![1]!;
  return { client, tab };
}

t.test('on: curved pointer paths from the last position, keys at a varied pace', async (t) => {
  const { client, tab } = await openInput('site', 'h1');
  await call(client, 'browser_click', { tab, x: GO.x, y: GO.y });
  const first = await site.inputLog('h1', (l) => l.clicks.length >= 1);
  const toGo = first.moves.slice(0, first.clicks[0].moves);
  // Chromium may merge moves that arrive within one frame on a busy machine: a path shows as several, not all.
  t.ok(toGo.length >= 5, `many moves before the click (${toGo.length})`);
  t.same(toGo.at(-1), { ...toGo.at(-1), x: GO.x, y: GO.y }, 'the path ends on the point clicked');
  t.equal(first.clicks[0].target, 'go');

  await call(client, 'browser_click', { tab, x: AGAIN.x, y: AGAIN.y });
  const second = await site.inputLog('h1', (l) => l.clicks.length >= 2);
  const toAgain = second.moves.slice(first.clicks[0].moves, second.clicks[1].moves);
  t.ok(toAgain.length >= 5, `many moves before the second click (${toAgain.length})`);
  const fromGo = Math.hypot(toAgain[0].x - GO.x, toAgain[0].y - GO.y);
  t.ok(fromGo < Math.hypot(toAgain[0].x - AGAIN.x, toAgain[0].y - AGAIN.y), `the second path starts where the pointer was left (first move ${fromGo.toFixed(0)} px from it)`);
  t.ok(Math.max(bend(toGo), bend(toAgain)) > 1, `the paths curve (${bend(toGo).toFixed(1)} px, ${bend(toAgain).toFixed(1)} px)`);

  const snap = (await call(client, 'browser_snapshot', { tab })).text;
  const text = 'hello world';
  await call(client, 'browser_type', { tab, ref: refOf(snap, /textbox "Text"/), text });
  const typed = await site.inputLog('h1', (l) => l.keys.length >= text.length);
  t.equal(typed.keys.map((k: any) => k.key).join(''), text, 'key by key');
  const g = gaps(typed.keys);
  t.ok(Math.min(...g) >= 25, `no key follows another at once (min ${Math.min(...g).toFixed(0)} ms)`);
  t.ok(Math.max(...g) - Math.min(...g) > 15, `the gaps vary (${g.map((x) => x.toFixed(0)).join(', ')})`);
});

t.test("humanize false: today's input", async (t) => {
  t.equal((await d.rest(admin, 'PATCH', '/v1/admin/browser-settings', { profile: { humanize: false } })).status, 200);
  t.equal((await d.rest(alice, 'GET', '/v1/browser/settings')).json.identity.humanize, false);
  const { client, tab } = await openInput('site', 'h2');
  await call(client, 'browser_click', { tab, x: GO.x, y: GO.y });
  const clicked = await site.inputLog('h2', (l) => l.clicks.length >= 1);
  t.ok(clicked.clicks[0].moves <= 1, `one move at most before the click (${clicked.clicks[0].moves})`);
  t.equal(clicked.clicks[0].target, 'go');

  const snap = (await call(client, 'browser_snapshot', { tab })).text;
  const ref = refOf(snap, /textbox "Text"/);
  await call(client, 'browser_type', { tab, ref, text: 'hello' });
  const pasted = await site.inputLog('h2', (l) => l.inputs >= 1);
  t.equal(pasted.keys.length, 0, 'inserted as text, no key events');
  await call(client, 'browser_type', { tab, ref, text: 'slowly typed', slowly: true });
  const slow = await site.inputLog('h2', (l) => l.keys.length >= 12);
  t.equal(slow.keys.map((k: any) => k.key).join(''), 'slowly typed', 'key by key, in order');
  // That no pause is made between the keys is checked where pauses are made (test/unit/browser/typing-pace):
  // the gaps a page sees grow with the machine's load, so they cannot show it.
  t.equal((await d.rest(admin, 'PATCH', '/v1/admin/browser-settings', { profile: null })).status, 200);
});

t.test("a site the identity does not apply to: today's input", async (t) => {
  const { client, tab } = await openInput('other', 'h3');
  await call(client, 'browser_click', { tab, x: GO.x, y: GO.y });
  const clicked = await site.inputLog('h3', (l) => l.clicks.length >= 1);
  t.ok(clicked.clicks[0].moves <= 1, `one move at most before the click (${clicked.clicks[0].moves})`);
});
