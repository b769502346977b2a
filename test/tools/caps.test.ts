/**
 * Per-user caps: one user cannot take every browser slot or open tabs without end, and an idle browser gives
 * its slot back without losing a tab. Small caps: 1 browser and 2 tabs per user, idle after 2 s.
 */
import t from 'tap';
import { once } from 'node:events';
import { call, refOf } from '../fixtures/daemon.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import { html } from '../fixtures/site.js';

let stack: Stack;
t.before(async () => {
  stack = await startStack({ maxBrowsers: 4, maxBrowsersPerUser: 1, maxTabsPerUser: 2, browserIdleMs: 2000 });
  stack.site.route('/a', html('<h1>Page A</h1>', '', 'Page A'));
  stack.site.route('/b', html('<h1>Page B</h1><a href="/a?popup" target="_blank">Open A</a>', '', 'Page B'));
});
t.teardown(() => stack.stop());

t.test('a second browser for one user is browser_capacity naming the per-user limit; another user still starts one', async (t) => {
  const { client, site, d } = stack;
  const first = await call(client, 'browser_open', { url: `${site.url}/a`, mode: 'read' });
  t.notOk(first.isError, first.text);
  const second = await stack.rest('browser_open', { url: `${site.url}/b`, mode: 'read', profile: 'work' });
  t.equal(second.status, 503);
  t.equal(second.json.error.code, 'browser_capacity');
  t.match(second.json.error.message, /per-user limit 1/);
  t.match(second.json.error.next, /idle/);
  const wait = Number(second.headers.get('retry-after'));
  t.ok(wait > 0, 'REST: Retry-After');
  t.match(second.json.error.next, new RegExp(`wait ${wait} seconds`), 'the per-user refusal names the wait too');
  const overMcp = await call(client, 'browser_open', { url: `${site.url}/b`, mode: 'read', profile: 'work' });
  t.ok(overMcp.isError);
  t.match(overMcp.text, /Error \[browser_capacity\]/);
  t.match(overMcp.text, new RegExp(`Retry after: ${wait} seconds`), 'MCP: the same wait, in the error');
  t.equal(d.daemon.env.pool.countFor('alice'), 1, 'no second browser was started');

  const bob = await d.addUser('bob');
  const bobOpen = await d.rest(bob, 'POST', '/v1/tabs', { url: `${site.url}/b`, mode: 'read' });
  t.equal(bobOpen.status, 201, 'bob starts his own browser although alice is at her cap');
  t.equal(d.daemon.env.pool.countFor('bob'), 1);
});

t.test('past the per-user tab cap, opening is refused with a next step; closing one makes room', async (t) => {
  const { client, site } = stack;
  const two = await call(client, 'browser_open', { url: `${site.url}/b`, mode: 'read' });
  t.notOk(two.isError, two.text);
  const three = await stack.rest('browser_open', { url: `${site.url}/a`, mode: 'read' });
  t.equal(three.status, 403);
  t.equal(three.json.error.code, 'refused');
  t.match(three.json.error.message, /per-user limit 2/);
  t.match(three.json.error.next, /browser_close_tab/);
  t.equal(stack.d.daemon.env.tabs.list('alice').length, 2, 'no third tab on record');

  // A page cannot go past the cap either: its popup is closed before it loads.
  const tab = /\b(t\d+)\b/.exec(two.text)![1];
  const link = refOf((await call(client, 'browser_snapshot', { tab })).text, /link "Open A"/);
  const clicked = await call(client, 'browser_click', { tab, ref: link });
  t.notOk(clicked.isError, clicked.text);
  let log = '';
  for (let i = 0; i < 200 && !/popup was closed/.test(log); i++) log = (await call(client, 'browser_log', { tab })).text;
  t.match(log, /popup was closed before it loaded: 2 open tabs is the per-user limit \(2\)/);
  t.equal(stack.d.daemon.env.tabs.list('alice').length, 2, 'still two tabs');
  t.notOk(site.requests.some((r) => r.path === '/a?popup'), 'the popup loaded nothing');
});

t.test('an idle browser shuts down, frees its slot, and its tabs come back when it restarts', async (t) => {
  const { client, d } = stack;
  const pool = d.daemon.env.pool;
  const before = d.daemon.env.tabs.list('alice').map((r) => `${r.id} ${r.url}`);
  if (pool.peek('alice')) {
    // Wait for the sweeper itself (idle 2 s): an event, not a sleep.
    for (;;) {
      const [key] = await once(pool.events, 'idle-closed');
      if (key === 'alice') break;
    }
  }
  t.notOk(pool.peek('alice'), "alice's browser is down");
  t.equal(pool.countFor('alice'), 0, 'and its slot is free');
  t.same(d.daemon.env.tabs.list('alice').map((r) => `${r.id} ${r.url}`), before, 'the tab records are untouched');

  const snap = await call(client, 'browser_snapshot', { tab: 't1' });
  t.notOk(snap.isError, snap.text);
  t.match(snap.text, /Page A/, 't1 came back at its page');
  t.ok(pool.peek('alice'), 'the browser restarted on the next call');
});

t.test('a browser in the middle of a call is not idle, however long the call takes', async (t) => {
  const { client, d } = stack;
  const pool = d.daemon.env.pool;
  let closedDuringCall = false;
  const onClosed = (key: string) => {
    if (key === 'alice') closedDuringCall = true;
  };
  pool.events.on('idle-closed', onClosed);
  t.teardown(() => pool.events.off('idle-closed', onClosed));
  // Twice the idle time (2 s) inside one call; the sweeper runs every second meanwhile.
  const waited = await call(client, 'browser_wait', { tab: 't1', timeMs: 4500 });
  t.notOk(waited.isError, waited.text);
  t.notOk(closedDuringCall, 'the sweeper left the browser alone while the call ran');
  t.ok(pool.peek('alice'), 'the browser is still up when the call returns');
});
