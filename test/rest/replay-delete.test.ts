/**
 * browser_record delete of a replay id (over REST as /v1/tools/browser_record): a
 * finished replay is deleted and its bytes go back to the user's storage quota (GET /v1/me), audited; a
 * queued or running one is refused (its run would write it again) and can be deleted once it ends; another
 * user's id is not_found and leaves it alone; at the quota, deleting a replay makes room for a new one.
 * Chromium: a replay runs in a tab. The start page can be held, so a replay stays running without a timer.
 */
import t from 'tap';
import { startStack, type Stack } from '../fixtures/stack.js';
import { html } from '../fixtures/site.js';
import { loadConfig } from '../../daemon/config.js';

const MB = 1024 * 1024;
let s: Stack;
let bob: string;
/** While set, the start page answers only when it is called (a replay stays on its first navigation). */
let held: (() => void)[] | undefined;

t.before(async () => {
  s = await startStack({ quotas: loadConfig({ listen: '127.0.0.1:0', 'max-storage-mb-per-user': '1' }).quotas });
  bob = await s.d.addUser('bob');
  s.site.route('/page', (_q, res) => {
    const answer = () => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(html('<h1>Replay me</h1><p>Nothing to change.</p>', '', 'Page'));
    };
    if (held) held.push(answer);
    else answer();
  });
});
t.teardown(() => s.stop());

async function ok(name: string, args: Record<string, unknown> = {}, token = s.token) {
  const r = await s.d.rest(token, 'POST', `/v1/tools/${name}`, args);
  if (r.status !== 200) throw new Error(`${name}: ${JSON.stringify(r.json).slice(0, 300)}`);
  return r.json;
}
const call = (name: string, args: Record<string, unknown>, token = s.token) => s.d.rest(token, 'POST', `/v1/tools/${name}`, args);
const me = async () => (await s.d.rest(s.token, 'GET', '/v1/me')).json;
// browser_record's audited deletes (the audit keeps the action, not the id; this file deletes only replays until the quota test).
const auditedDeletes = () => s.d.daemon.env.audit.all(1_000_000).filter((e) => e.tool === 'browser_record' && (e.args as { action?: string }).action === 'delete');

let recId = '';
let first = '';

t.test('a finished replay is deleted with its bytes; the call is audited', async (t) => {
  const { tab } = await ok('browser_open', { url: `${s.site.url}/page`, mode: 'act' });
  recId = (await ok('browser_record', { tab, name: 'to replay' })).id;
  await ok('browser_snapshot', { tab });
  await ok('browser_record', { action: 'stop', id: recId });

  first = (await ok('browser_replay', { id: recId })).id;
  t.equal((await ok('browser_replay_wait', { id: first, timeoutS: 60 })).state, 'done');
  const second = (await ok('browser_replay', { id: recId })).id;
  t.equal((await ok('browser_replay_wait', { id: second, timeoutS: 60 })).state, 'done');
  const before = (await me()).usage.storage.records;

  const r = await ok('browser_record', { action: 'delete', id: second });
  t.match(r, { id: second, deleted: true });
  const gone = await call('browser_replay_wait', { id: second, timeoutS: 0 });
  t.equal(gone.json.error?.code, 'not_found', 'gone');
  const after = (await me()).usage.storage.records;
  t.ok(after < before, `its bytes are given back (${before} -> ${after})`);
  t.equal((await ok('browser_replay_wait', { id: first, timeoutS: 0 })).state, 'done', 'the other replay stays');
  t.equal((await ok('browser_record', { action: 'get', id: recId })).recording.state, 'stopped', 'the recording stays');
  t.equal((await call('browser_record', { action: 'delete', id: second })).json.error?.code, 'not_found', 'a second delete finds nothing');
  t.match(auditedDeletes().map((e) => [e.via, e.outcome]).sort(), [['rest', 'not_found'], ['rest', 'ok']], 'both deletes are audited');
});

t.test("another user's replay id is not_found and leaves the replay alone; a malformed id is a validation_error", async (t) => {
  const r = await call('browser_record', { action: 'delete', id: first }, bob);
  t.equal(r.status, 404);
  t.equal(r.json.error?.code, 'not_found');
  t.equal((await ok('browser_replay_wait', { id: first, timeoutS: 0 })).state, 'done', "alice's replay is still there");
  t.equal((await call('browser_record', { action: 'delete', id: 'rpl_nothex' })).json.error?.code, 'validation_error');
  for (const action of ['get', 'stop']) {
    t.equal((await call('browser_record', { action, id: first })).json.error?.code, 'validation_error', `${action} takes no replay id`);
  }
});

t.test('a replay still under way is refused, and deleted once it ends', async (t) => {
  held = [];
  const seen = s.site.requests.length;
  const id = (await ok('browser_replay', { id: recId })).id;
  // Once the start page is asked for, the replay is on it: running until the page answers.
  await s.site.waitFor((r) => r.path === '/page' && s.site.requests.indexOf(r) >= seen, 60_000);
  const r = await call('browser_record', { action: 'delete', id });
  t.equal(r.status, 400, JSON.stringify(r.json).slice(0, 300));
  t.equal(r.json.error?.code, 'validation_error');
  t.match(r.json.error?.message, 'running');
  t.match(r.json.error?.next, 'browser_replay_wait');
  t.equal((await ok('browser_replay_wait', { id, timeoutS: 0 })).state, 'running', 'it runs on');
  const waiting = held;
  held = undefined;
  for (const answer of waiting) answer();
  t.equal((await ok('browser_replay_wait', { id, timeoutS: 60 })).state, 'done');
  t.match(await ok('browser_record', { action: 'delete', id }), { id, deleted: true });
});

t.test('at the quota, deleting a replay makes room for a new one', async (t) => {
  const room = MB - (await me()).usage.storageBytes;
  const fill = await call('browser_convert', { base64: Buffer.from('f'.repeat(room)).toString('base64'), name: 'fill.txt', store: true, maxChars: 100 });
  t.equal(fill.status, 200, JSON.stringify(fill.json).slice(0, 300));
  t.equal((await me()).usage.storageBytes, MB, 'exactly at the quota');
  const refused = await call('browser_replay', { id: recId });
  t.equal(refused.status, 403, JSON.stringify(refused.json).slice(0, 300));
  t.match(refused.json.error?.message, '--max-storage-mb-per-user');

  await ok('browser_record', { action: 'delete', id: first });
  t.ok((await me()).usage.storageBytes < MB, 'the deleted replay made room');
  const again = (await ok('browser_replay', { id: recId })).id;
  t.equal((await ok('browser_replay_wait', { id: again, timeoutS: 60 })).state, 'done', 'the new replay runs');
});
