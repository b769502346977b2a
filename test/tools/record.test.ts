/**
 * Recordings and replays: each call on the recorded tab is a step with a locator, a screenshot and no vault
 * value; a replay runs in a new tab and repeats the recorded write (the site sees it again); replay-strict with
 * the site stopped still runs from the cache; bad input changes nothing; other users get not_found.
 */
import t from 'tap';
import { startStack, type Stack } from '../fixtures/stack.js';
import { html } from '../fixtures/site.js';
import { refOf } from '../fixtures/daemon.js';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const repo = fileURLToPath(new URL('../../', import.meta.url));

const SECRET = 'vault-Pass-90417';
let s: Stack;
let bob: string;

const form = html(`<h1>Shopping list</h1>
<form method="post" action="/add"><label>Item <input name="item"></label> <label>Note <input name="note"></label> <button type="submit">Add item</button></form>`, '', 'List');

t.before(async () => {
  s = await startStack();
  bob = await s.d.addUser('bob');
  s.site.route('/list', form);
  s.site.route('/add', (_q, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html('<p>Added.</p>', '', 'Added'));
  });
  const put = await s.d.rest(s.token, 'PUT', '/v1/vault/shop.test', { fields: { password: SECRET } });
  if (put.status !== 200) throw new Error(JSON.stringify(put.json));
});
t.teardown(() => s.stop());

async function ok(name: string, args: Record<string, unknown> = {}, token = s.token) {
  const r = await s.d.rest(token, 'POST', `/v1/tools/${name}`, args);
  if (r.status !== 200) throw new Error(`${name}: ${JSON.stringify(r.json)}`);
  return r.json;
}
async function err(name: string, args: Record<string, unknown>, token = s.token): Promise<string> {
  const r = await s.d.rest(token, 'POST', `/v1/tools/${name}`, args);
  return r.json.error?.code ?? `ok (${r.status})`;
}
const adds = () => s.site.writes().filter((w) => w.path === '/add');

let recId: string;

t.test('a recording keeps each call on its tab as a step, and a replay repeats the write', async (t) => {
  const { tab } = await ok('browser_open', { url: `${s.site.url}/list`, mode: 'act' });
  const other = (await ok('browser_open', { url: `${s.site.url}/list` })).tab;
  const started = await ok('browser_record', { tab, name: 'add an item', cache: 'record', cacheName: 'shop' });
  recId = started.id;
  t.match(recId, /^rec_[0-9a-f]{16}$/);
  t.equal(started.recording.state, 'recording');

  const snap = (await ok('browser_snapshot', { tab })).text;
  await ok('browser_snapshot', { tab: other }); // another tab: not a step
  await ok('browser_type', { tab, ref: refOf(snap, /textbox "Item"/), text: 'blue widget' });
  t.equal(await err('browser_click', { tab, ref: 'e999' }), 'stale_ref', 'a failing call is a step too');
  await ok('browser_click', { tab, ref: refOf(snap, /button "Add item"/) });
  const first = await s.site.waitFor((r) => r.path === '/add');
  t.match(first.body, /item=blue\+widget/);

  const stopped = await ok('browser_record', { action: 'stop', id: recId });
  t.equal(stopped.recording.state, 'stopped');
  t.equal(stopped.recording.stopReason, 'stop');
  const got = await ok('browser_record', { action: 'get', id: recId, step: 2 });
  t.same(got.steps.map((x: any) => [x.tool, x.outcome]), [['browser_snapshot', 'ok'], ['browser_type', 'ok'], ['browser_click', 'stale_ref'], ['browser_click', 'ok']]);
  const [, typed, , clicked] = got.steps;
  t.equal(typed.args.text, 'blue widget', 'what was typed is kept (it is no secret)');
  t.match(typed.locators.ref, { css: 'input[name="item"]', role: 'textbox', name: 'Item' });
  t.match(clicked.locators.ref.css, /button/);
  t.match(clicked.url, /\/list$/, 'the URL before the step');
  t.ok(got.steps.every((x: any) => x.screenshot), 'every step has its screenshot');
  t.equal(got.images?.[0]?.mimeType, 'image/jpeg');
  t.equal(Buffer.from(got.images[0].data, 'base64').subarray(0, 2).toString('hex'), 'ffd8', 'a JPEG');
  await ok('browser_type', { tab, ref: refOf(snap, /textbox "Item"/), text: 'after stop' }).catch(() => undefined);
  t.equal((await ok('browser_record', { action: 'get', id: recId })).steps.length, 4, 'calls after stop are not steps');

  const replay = await ok('browser_replay', { id: recId });
  t.match(replay.id, /^rpl_[0-9a-f]{16}$/);
  t.match(replay.state, /queued|running/);
  const done = await ok('browser_replay_wait', { id: replay.id, timeoutS: 60 });
  t.equal(done.state, 'done', JSON.stringify(done.replay));
  t.not(done.replay.tab, tab, 'in a new tab');
  t.same(done.replay.steps.map((x: any) => x.skipped ? 'skipped' : x.outcome), ['ok', 'ok', 'skipped', 'ok']);
  t.equal(adds().length, 2, 'the site saw the write again');
  t.match(adds()[1]!.body, /item=blue\+widget/);
});

t.test('a vault value never lands in a step, and such a step is not replayed', async (t) => {
  const { tab } = await ok('browser_open', { url: `${s.site.url}/list`, mode: 'act' });
  const rec = await ok('browser_record', { tab });
  const snap = (await ok('browser_snapshot', { tab })).text;
  await ok('browser_type', { tab, ref: refOf(snap, /textbox "Note"/), text: `code ${SECRET}` });
  await ok('browser_record', { action: 'stop', id: rec.id });
  const r = await s.d.rest(s.token, 'POST', '/v1/tools/browser_record', { action: 'get', id: rec.id });
  t.notOk(JSON.stringify(r.json).includes(SECRET), 'not in the answer');
  t.equal(r.json.steps[1].args.text, '[secret]');
  const stored = JSON.stringify([...s.d.daemon.env.db.records.getRange({})]);
  t.notOk(stored.includes(SECRET), 'not in the store');
  const script = (await ok('browser_record_script', { id: rec.id })).script as string;
  t.notOk(script.includes(SECRET), 'not in the script');
  t.match(script, /throw new Error\("step 2 cannot run as recorded: it typed a vault value/);
  const replay = await ok('browser_replay', { id: rec.id });
  const done = await ok('browser_replay_wait', { id: replay.id, timeoutS: 60 });
  t.equal(done.state, 'failed');
  t.match(done.replay.steps[1], { outcome: 'validation_error', message: /vault value/ });
});

t.test('bad input is a validation_error and stores nothing; other users get not_found', async (t) => {
  const before = (await ok('browser_record', { action: 'list' })).recordings.length;
  t.equal(await err('browser_record', { action: 'stop' }), 'validation_error', 'stop needs an id');
  t.equal(await err('browser_record', { cacheName: 'x' }), 'validation_error', 'cacheName without cache record');
  t.equal(await err('browser_record', { action: 'get', id: recId, video: true }), 'validation_error');
  t.equal(await err('browser_record', { id: 'rec_nothex' }), 'validation_error');
  t.equal(await err('browser_record', { tab: 't99' }), 'not_found');
  t.equal(await err('browser_replay', { id: recId, cacheName: 'shop' }), 'validation_error', 'cacheName without a cache mode');
  t.equal(await err('browser_replay_wait', { id: 'rpl_0123456789abcdef', timeoutS: 61 }), 'validation_error');
  t.equal((await ok('browser_record', { action: 'list' })).recordings.length, before, 'nothing stored');

  for (const action of ['get', 'stop', 'delete']) t.equal(await err('browser_record', { action, id: recId }, bob), 'not_found', `bob: ${action}`);
  t.equal(await err('browser_replay', { id: recId }, bob), 'not_found');
  const replay = await ok('browser_replay', { id: recId, cache: 'replay', cacheName: 'shop' });
  t.equal(await err('browser_replay_wait', { id: replay.id, timeoutS: 0 }, bob), 'not_found');
  t.same((await ok('browser_record', { action: 'list' }, bob)).recordings, []);
  t.equal((await ok('browser_replay_wait', { id: replay.id, timeoutS: 60 })).state, 'done');
  t.equal(adds().length, 3, 'a cached replay still sends its write');
});

t.test('the script of a recording runs and repeats the write', async (t) => {
  const json = await ok('browser_record_script', { id: recId, format: 'json' });
  const plan = JSON.parse(json.script);
  t.match(plan, { recording: recId, mode: 'act', startUrl: `${s.site.url}/list` });
  t.match(plan.steps[2], { tool: 'browser_click', skip: /failed while recording/ });
  const ts = (await ok('browser_record_script', { id: recId })).script as string;
  t.match(ts, /\/\/ Step 2: browser_type on textbox "Item" \(input\[name="item"\]\), text "blue widget"/, 'a commented block naming tool, element and value');
  t.match(ts, /\/\/ Step 4: browser_click on button "Add item"/);
  t.match(ts, /\/\/ Skipped: failed while recording \(stale_ref\)/);
  const dir = mkdtempSync(join(tmpdir(), 'browserd-script-'));
  mkdirSync(join(dir, 'node_modules', '@browserd'), { recursive: true });
  symlinkSync(join(repo, 'client'), join(dir, 'node_modules', '@browserd', 'client'));
  writeFileSync(join(dir, 'replay.ts'), ts);
  const before = adds().length;
  const run = await promisify(execFile)(process.execPath, ['--import', 'tsx', join(dir, 'replay.ts')], { cwd: repo, env: { ...process.env, BROWSERD_URL: s.d.url, BROWSERD_TOKEN: s.token }, timeout: 60_000 });
  t.match(run.stdout, /done/);
  t.equal(adds().length, before + 1, 'the site saw the write once more');
  t.match(adds().at(-1)!.body, /item=blue\+widget/);
  t.equal(await err('browser_record_script', { id: recId }, bob), 'not_found');
  t.equal(await err('browser_record_script', { id: recId, format: 'python' }), 'validation_error');
});

t.test('video: true stores a WebM in the user\'s files that plays in Chromium', async (t) => {
  const { tab } = await ok('browser_open', { url: `${s.site.url}/list`, mode: 'act' });
  const rec = await ok('browser_record', { tab, video: true, name: 'with video' });
  const snap = (await ok('browser_snapshot', { tab })).text;
  await ok('browser_type', { tab, ref: refOf(snap, /textbox "Item"/), text: 'red paint' });
  await ok('browser_type', { tab, ref: refOf(snap, /textbox "Note"/), text: 'two litres' });
  const stopped = (await ok('browser_record', { action: 'stop', id: rec.id })).recording;
  t.equal(stopped.videoFile, `${rec.id}.webm`, stopped.note ?? 'a video file');
  const webm = s.d.daemon.env.files.read('alice', stopped.videoFile)!;
  t.equal(webm.subarray(0, 4).toString('hex'), '1a45dfa3', 'an EBML (WebM) header');
  s.site.route('/clip.webm', (_q, res) => void res.writeHead(200, { 'content-type': 'video/webm', 'content-length': webm.length }).end(webm));
  s.site.route('/player', html('<video src="/clip.webm" muted preload="auto"></video>'));
  const player = (await ok('browser_open', { url: `${s.site.url}/player` })).tab;
  const page = await (await s.d.daemon.env.pool.get('alice')).getTab(player);
  const r = await page.send('Runtime.evaluate', {
    expression: `new Promise((done) => {
      const v = document.querySelector('video');
      const report = () => done({ readyState: v.readyState, duration: v.duration, width: v.videoWidth, error: v.error && v.error.message });
      if (v.readyState >= 2) report();
      else { v.addEventListener('loadeddata', report); v.addEventListener('error', report); }
    })`,
    awaitPromise: true,
    returnByValue: true,
  });
  const v = r.result.value;
  t.equal(v.error, null, 'Chromium decodes it');
  t.ok(v.readyState >= 2, `readyState ${v.readyState}`);
  t.ok(v.width > 0 && v.duration > 0, `${v.width} px wide, ${v.duration} s`);
});

t.test('replay-strict with the site stopped runs from the cache', async (t) => {
  const writes = adds().length;
  await s.site.close();
  const replay = await ok('browser_replay', { id: recId, cache: 'replay-strict' });
  const done = await ok('browser_replay_wait', { id: replay.id, timeoutS: 60 });
  t.equal(done.state, 'done', JSON.stringify(done.replay));
  t.same(done.replay.steps.map((x: any) => x.skipped ? 'skipped' : x.outcome), ['ok', 'ok', 'skipped', 'ok'], 'the form was found and used in the cached page');
  t.equal(adds().length, writes, 'nothing reached the site');
  t.equal(await err('browser_record', { action: 'delete', id: recId }), 'ok (200)');
  t.equal(await err('browser_record', { action: 'get', id: recId }), 'not_found');
});

t.test('a restart stops a recording under way and fails a running replay', async (t) => {
  const { tab } = await ok('browser_open', {});
  const rec = await ok('browser_record', { tab });
  // A replay the daemon was running when it went down, as the store holds it.
  const store = s.d.daemon.features.records.store;
  const running = { id: store.newReplayId(), user: 'alice', recording: rec.id, cache: 'off' as const, state: 'running' as const, steps: [], createdAt: new Date().toISOString() };
  await store.putReplay(running);
  await s.d.restart();
  const after = await ok('browser_replay_wait', { id: running.id, timeoutS: 0 });
  t.equal(after.state, 'failed');
  t.match(after.replay.error, /restarted/);
  const got = (await ok('browser_record', { action: 'get', id: rec.id })).recording;
  t.match(got, { state: 'stopped', stopReason: 'shutdown' }, 'a graceful stop ends it (after a crash, the next start does: restart)');
});
