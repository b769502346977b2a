/**
 * An act tab holds back only the requests some rule of the user's could refuse (none while there is none), so a rule
 * made while its page is open must reach it before the change is reported: the page's very next write to a
 * site just made read-only never leaves the browser, whether the rule came from inside the daemon (the admin
 * console's path) or from the `browserd policy` command in another process. The fixture's request log shows
 * what really arrived.
 */
import t from 'tap';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startStack, type Stack } from '../fixtures/stack.js';
import { html } from '../fixtures/site.js';

const run = promisify(execFile);
const bin = new URL('../../bin/browserd.js', import.meta.url).pathname;

let stack: Stack;
t.before(async () => {
  stack = await startStack();
  stack.site.route('/sink', (req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
  // The page writes on its own (a person's click), so no tool that a read-only site refuses is needed to make it.
  stack.site.route('/app', html(`<button id="ping">Ping</button><a href="http://away.test:${stack.site.port}/app">Away</a><p id="out">idle</p><script>
    document.getElementById('ping').onclick = () => fetch('/sink', { method: 'POST', body: 'x' }).then(
      (r) => (document.getElementById('out').textContent = 'status ' + r.status),
      (e) => (document.getElementById('out').textContent = 'error ' + e.name));</script>`, '', 'App'));
});
t.teardown(() => stack.stop());

async function openApp(): Promise<string> {
  const r = await stack.rest('browser_open', { url: `${stack.site.url}/app`, mode: 'act', live: 'none' });
  if (r.status !== 200) throw new Error(JSON.stringify(r.json));
  return r.json.tab;
}

/**
 * A click on the page's button, whose handler POSTs to /sink (no navigation). Answers what the page saw, whether
 * the fixture got the POST, and what the click's result reported blocked. The click waits for the network to
 * go quiet, so the request has ended either way when it answers.
 */
async function postFromPage(tab: string): Promise<{ seen: string; arrived: boolean; blocked: number }> {
  const before = stack.site.requests.filter((q) => q.method === 'POST' && q.path === '/sink').length;
  const snap = await stack.rest('browser_snapshot', { tab });
  const ref = /button "Ping" \[ref=(e\d+)\]/.exec(snap.json.text)?.[1];
  if (!ref) throw new Error(`no Ping button in ${snap.json.text}`);
  const click = await stack.rest('browser_click', { tab, ref });
  if (click.status !== 200) throw new Error(JSON.stringify(click.json));
  const page = await stack.rest('browser_snapshot', { tab });
  const seen = /(status \d+|error \w+)/.exec(page.json.text)?.[1] ?? 'nothing';
  const after = stack.site.requests.filter((q) => q.method === 'POST' && q.path === '/sink').length;
  return { seen, arrived: after > before, blocked: (click.json.blocked ?? []).length };
}

const cli = (...args: string[]) => run(process.execPath, [bin, ...args, '--data', stack.d.dataDir], { encoding: 'utf8' });

t.test('a read-only rule stored in the daemon stops the open page\'s next write; removing it lets writes go again', async (t) => {
  const tab = await openApp();
  t.same(await postFromPage(tab), { seen: 'status 200', arrived: true, blocked: 0 }, 'an act tab writes while no rule says otherwise');
  await stack.d.daemon.env.policies.upsert('alice', { pattern: '127.0.0.1', access: 'read_only' });
  t.same(await postFromPage(tab), { seen: 'error TypeError', arrived: false, blocked: 1 }, 'the write made right after the rule never arrived');
  const log = (await stack.rest('browser_log', { tab })).json.entries;
  t.match(log.filter((e: any) => e.kind === 'write_blocked'), [{ method: 'POST', url: `${stack.site.url}/sink`, detail: /read-only/ }]);
  await stack.d.daemon.env.policies.remove('alice', '127.0.0.1');
  t.same(await postFromPage(tab), { seen: 'status 200', arrived: true, blocked: 0 });
  await stack.rest('browser_close_tab', { tab });
});

t.test('a read-only rule set by the CLI beside the running daemon holds in the open page once the command has answered', async (t) => {
  const tab = await openApp();
  t.same(await postFromPage(tab), { seen: 'status 200', arrived: true, blocked: 0 });
  const set = await cli('policy', 'set', 'alice', '127.0.0.1', 'read_only');
  t.match(set.stdout, /127\.0\.0\.1 is read_only for alice/);
  t.same(await postFromPage(tab), { seen: 'error TypeError', arrived: false, blocked: 1 }, 'blocked at once, with no navigation in between');
  t.match((await cli('policy', 'remove', 'alice', '127.0.0.1')).stdout, /Removed/);
  t.same(await postFromPage(tab), { seen: 'status 200', arrived: true, blocked: 0 });
  await stack.rest('browser_close_tab', { tab });
});

t.test('a page opened while a read-only rule stands is held to it from its first request', async (t) => {
  await stack.d.daemon.env.policies.upsert('alice', { pattern: '127.0.0.1', access: 'read_only' });
  t.teardown(() => stack.d.daemon.env.policies.remove('alice', '127.0.0.1'));
  const tab = await openApp();
  t.same(await postFromPage(tab), { seen: 'error TypeError', arrived: false, blocked: 1 });
  await stack.rest('browser_close_tab', { tab });
});

t.test('a site blocked while a page is open is not reached by the next link the page follows', async (t) => {
  const tab = await openApp();
  await stack.d.daemon.env.policies.upsert('alice', { pattern: 'away.test', access: 'blocked' });
  t.teardown(() => stack.d.daemon.env.policies.remove('alice', 'away.test'));
  const snap = await stack.rest('browser_snapshot', { tab });
  const ref = /link "Away" \[ref=(e\d+)\]/.exec(snap.json.text)?.[1];
  t.ok(ref, snap.json.text);
  const before = stack.site.requests.length;
  const click = await stack.rest('browser_click', { tab, ref });
  t.equal(click.status, 200, JSON.stringify(click.json));
  t.match(click.json.blocked, [{ url: `http://away.test:${stack.site.port}/app`, reason: /blocked by the user's policy/ }]);
  t.notOk(stack.site.requests.slice(before).some((q) => q.headers.host?.startsWith('away.test')), 'nothing reached the blocked site');
  await stack.rest('browser_close_tab', { tab });
});
