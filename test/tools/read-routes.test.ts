/**
 * A read tab sends no write by any route: shared workers, workers started by workers, cross-site frames (their
 * WebSockets and their workers), beacons and keepalive fetches sent as the tab closes, and browser_read's
 * scratch tabs. Each route first runs in an act tab, where its writes do arrive: the control that proves the
 * route is real, so the read-tab half can fail.
 */
import t from 'tap';
import { call } from '../fixtures/daemon.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import { mountWriteRoutes, type WriteCounter } from '../fixtures/write-routes.js';

let stack: Stack;
let routes: WriteCounter;
let crossSite: string;

t.before(async () => {
  stack = await startStack();
  // Another site on the same loopback server: frame.test maps to 127.0.0.1 (the fixture's resolver rules).
  crossSite = `http://frame.test:${stack.site.port}`;
  routes = mountWriteRoutes(stack.site, crossSite);
  await stack.d.daemon.env.policies.upsert('alice', { pattern: 'ro.test', access: 'read_only' });
});
t.teardown(async () => {
  await routes.close();
  await stack.stop();
});

const tabId = (text: string) => /Opened tab (t\d+)/.exec(text)![1];

/** Opens a page in a tab of the given mode and waits until the route's attempt reported back. */
async function attempt(mode: 'read' | 'act', path: string, route: string, origin = stack.site.url) {
  const before = routes.writes(route).length;
  const reported = routes.expect(route);
  const open = await call(stack.client, 'browser_open', { url: `${origin}${path}`, mode, visible: false });
  if (open.isError) throw new Error(open.text);
  const report = await reported;
  return { tab: tabId(open.text), report, writes: routes.writes(route).slice(before) };
}

const cases: [string, string, string][] = [
  ['the page itself (its WebSocket)', '/frame-attempt?route=main', 'main'],
  ['a shared worker', '/shared', 'shared'],
  ['a worker started by a worker', '/nested', 'nested'],
  ['a cross-site frame (its POST and its WebSocket)', '/cross-frame', 'framews'],
  ['a worker inside a cross-site frame', '/cross-frame-worker', 'frameworker'],
];

for (const [name, path, route] of cases) {
  t.test(`${name}: writes in an act tab, none in a read tab`, async (t) => {
    const act = await attempt('act', path, route);
    t.ok(act.writes.some((w) => w.startsWith('POST:')), `the act tab's POST arrived (${act.report})`);
    t.ok(act.writes.some((w) => w.startsWith('ws:')), `the act tab's WebSocket message arrived (${act.report})`);
    const read = await attempt('read', path, route);
    t.same(read.writes, [], `nothing from the read tab arrived (${read.report})`);
    // An act tab on a site the user's policy makes read-only is held to the same rules.
    const readOnly = await attempt('act', path, route, `http://ro.test:${stack.site.port}`);
    t.same(readOnly.writes, [], `nothing from an act tab on a read-only site arrived (${readOnly.report})`);
    // A shared or service worker that a read tab of its origin may have made runs under read rules (fail
    // closed), so this case's read tab must not outlive it into the next case's act-tab half.
    for (const tab of [act.tab, read.tab, readOnly.tab]) await call(stack.client, 'browser_close_tab', { tab });
  });
}

t.test('an act tab that leaves a read-only site gets its WebSocket back on the next site, and loses it on the way back', async (t) => {
  const onReadOnly = await attempt('act', '/frame-attempt?route=main', 'main', `http://ro.test:${stack.site.port}`);
  t.same(onReadOnly.writes, [], 'held on the read-only site');
  const moveTo = async (origin: string) => {
    const before = routes.writes('main').length;
    const reported = routes.expect('main');
    const nav = await call(stack.client, 'browser_navigate', { tab: onReadOnly.tab, url: `${origin}/frame-attempt?route=main` });
    t.notOk(nav.isError, nav.text);
    await reported;
    return { writes: routes.writes('main').slice(before) };
  };
  const away = await moveTo(stack.site.url);
  t.ok(away.writes.some((w) => w.startsWith('ws:')), `the guard came off: the WebSocket message arrived (${away.writes})`);
  const back = await moveTo(`http://ro.test:${stack.site.port}`);
  t.same(back.writes, [], 'and went on again for the read-only site');
});

t.test('closing a tab: its beacon and keepalive fetch go out from an act tab, not from a read tab', async (t) => {
  const leave = async (mode: 'read' | 'act') => {
    const before = routes.writes('leaving').length;
    const open = await call(stack.client, 'browser_open', { url: `${stack.site.url}/leaving`, mode, visible: false });
    const closed = await call(stack.client, 'browser_close_tab', { tab: tabId(open.text) });
    t.notOk(closed.isError, closed.text);
    return before;
  };
  const actBefore = await leave('act');
  await stack.site.waitFor((r) => r.method === 'POST' && r.path === '/sink?route=leaving' && r.body === 'keepalive');
  await stack.site.waitFor((r) => r.method === 'POST' && r.path === '/sink?route=leaving' && r.body === 'beacon');
  t.ok(routes.writes('leaving').length - actBefore >= 2, 'the act tab sent its beacon and keepalive fetch on the way out');
  const readBefore = await leave('read');
  // A page loaded after the close reports back: anything the closed tab sent was sent before it.
  const later = routes.expect('later');
  await call(stack.client, 'browser_open', { url: `${stack.site.url}/later`, mode: 'act', visible: false });
  await later;
  t.same(routes.writes('leaving').slice(readBefore), [], 'the read tab sent nothing on the way out');
});

t.test("browser_read's scratch tabs send no write, neither while loading nor on the way out", async (t) => {
  const act = await attempt('act', '/on-load', 'scratch');
  t.ok(act.writes.length >= 2, 'the page writes when it can');
  const before = { scratch: routes.writes('scratch').length, leaving: routes.writes('leaving').length };
  const reported = routes.expect('scratch');
  const r = await call(stack.client, 'browser_read', { urls: [`${stack.site.url}/leaving`, `${stack.site.url}/on-load`] });
  t.notOk(r.isError, r.text);
  t.match(await reported, /post:failed,ws:failed/);
  const later = routes.expect('later');
  await call(stack.client, 'browser_open', { url: `${stack.site.url}/later`, mode: 'act', visible: false });
  await later;
  t.same(routes.writes('scratch').slice(before.scratch), [], 'nothing the scratch tab tried while loading arrived');
  t.same(routes.writes('leaving').slice(before.leaving), [], 'nothing it tried on the way out arrived');
});

t.test("a popup of a scratch tab sends no write and is closed; an act tab's popup does, and writes", async (t) => {
  const act = await attempt('act', '/opens-popup', 'popup');
  t.ok(act.writes.length >= 2, `the act tab's popup wrote (${act.report})`);
  const before = routes.writes('popup').length;
  const r = await call(stack.client, 'browser_read', { urls: [`${stack.site.url}/opens-popup`] });
  t.notOk(r.isError, r.text);
  const later = routes.expect('later');
  await call(stack.client, 'browser_open', { url: `${stack.site.url}/later`, mode: 'act', visible: false });
  await later;
  t.same(routes.writes('popup').slice(before), [], "nothing from the scratch tab's popup arrived");
});
