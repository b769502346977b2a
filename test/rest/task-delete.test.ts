/**
 * DELETE /v1/tasks/{id}: a task is deleted with its conversation, its bytes go back to the user's storage
 * quota (GET /v1/me), and the call is audited; one still queued or running is cancelled first; another user's
 * id is not_found and leaves the task alone; at the quota, deleting a task makes room for a new one. No
 * browser: the fake model answers task_done at once, or never (delayMs) for a task that must stay under way.
 */
import t from 'tap';
import { startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { startFakeModels, type FakeModels } from '../fixtures/fake-models.js';
import { loadConfig } from '../../daemon/config.js';

const MB = 1024 * 1024;
let d: TestDaemon;
let fake: FakeModels;
let alice: string;
let bob: string;

t.before(async () => {
  fake = await startFakeModels();
  fake.fallback = () => ({ toolCalls: [{ name: 'task_done', args: { result: 'done' } }] });
  d = await startTestDaemon({ quotas: loadConfig({ listen: '127.0.0.1:0', 'max-storage-mb-per-user': '1' }).quotas, models: fake.config });
  alice = await d.addUser('alice');
  bob = await d.addUser('bob');
});
t.teardown(async () => {
  await d.stop();
  await fake.close();
});

const me = async (token = alice) => (await d.rest(token, 'GET', '/v1/me')).json;
const start = async (goal: string) => {
  const r = await d.rest(alice, 'POST', '/v1/tasks', { goal });
  if (r.status !== 201) throw new Error(JSON.stringify(r.json).slice(0, 300));
  return r.json.id as string;
};
/** GET with waitS: answers once the task is neither queued nor running (the service's own change events). */
const settled = async (id: string) => (await d.rest(alice, 'GET', `/v1/tasks/${id}?waitS=60`)).json.task;
const audited = (tool: string) => d.daemon.env.audit.all(1_000_000).filter((e) => e.tool === tool);

t.test('a finished task is deleted with its bytes; the call is audited', async (t) => {
  const id = await start(`a goal worth keeping ${'word '.repeat(400)}`);
  t.equal((await settled(id)).state, 'succeeded');
  const before = (await me()).usage.storage.tasks;
  t.ok(before > 2000, `the task counts (${before} bytes)`);

  const r = await d.rest(alice, 'DELETE', `/v1/tasks/${id}`);
  t.equal(r.status, 200, JSON.stringify(r.json).slice(0, 300));
  t.match(r.json, { ok: true, id, deleted: true });
  const gone = await d.rest(alice, 'GET', `/v1/tasks/${id}`);
  t.equal(gone.status, 404);
  t.equal(gone.json.error?.code, 'not_found');
  t.same((await d.rest(alice, 'GET', '/v1/tasks')).json.tasks, [], 'not listed');
  t.equal((await me()).usage.storage.tasks, 0, 'its bytes are given back');
  t.equal((await d.rest(alice, 'DELETE', `/v1/tasks/${id}`)).json.error?.code, 'not_found', 'a second delete finds nothing');
  const entries = audited('task_delete');
  t.equal(entries.length, 2, 'both deletes are audited');
  t.match(entries.map((e) => [e.via, e.outcome]).sort(), [['rest', 'not_found'], ['rest', 'ok']]);
});

t.test("another user's task id is not_found and leaves the task alone; a malformed id is a validation_error", async (t) => {
  const id = await start('alice only');
  await settled(id);
  const r = await d.rest(bob, 'DELETE', `/v1/tasks/${id}`);
  t.equal(r.status, 404);
  t.equal(r.json.error?.code, 'not_found');
  t.notMatch(JSON.stringify(r.json), 'alice only', 'nothing of the task shows');
  t.equal((await d.rest(alice, 'GET', `/v1/tasks/${id}`)).status, 200, "alice's task is still there");
  t.ok((await me()).usage.storage.tasks > 0, 'and still counted');
  const bad = await d.rest(alice, 'DELETE', '/v1/tasks/task_nothex');
  t.equal(bad.status, 400);
  t.equal(bad.json.error?.code, 'validation_error');
  t.equal((await d.rest(alice, 'DELETE', `/v1/tasks/${id}`)).status, 200);
});

t.test('a task still under way is cancelled, then deleted', async (t) => {
  // The model never answers: the task stays queued or running until it is cancelled.
  fake.delayMs = 600_000;
  t.teardown(() => {
    fake.delayMs = 0;
  });
  const id = await start('never ends by itself');
  const state = (await d.rest(alice, 'GET', `/v1/tasks/${id}`)).json.task.state;
  t.ok(state === 'queued' || state === 'running', `under way (${state})`);
  const r = await d.rest(alice, 'DELETE', `/v1/tasks/${id}`);
  t.equal(r.status, 200, JSON.stringify(r.json).slice(0, 300));
  t.equal((await d.rest(alice, 'GET', `/v1/tasks/${id}`)).status, 404, 'gone');
  t.equal((await me()).usage.storage.tasks, 0, 'nothing of it is counted');
});

t.test('at the quota, deleting a task makes room for a new one', async (t) => {
  const id = await start(`fill ${'the quota '.repeat(390)}`);
  t.equal((await settled(id)).state, 'succeeded');
  const room = MB - (await me()).usage.storageBytes;
  const fill = await d.rest(alice, 'POST', '/v1/tools/browser_convert', { base64: Buffer.from('f'.repeat(room)).toString('base64'), name: 'fill.txt', store: true, maxChars: 100 });
  t.equal(fill.status, 200, JSON.stringify(fill.json).slice(0, 300));
  t.equal((await me()).usage.storageBytes, MB, 'exactly at the quota');

  const refused = await d.rest(alice, 'POST', '/v1/tasks', { goal: 'one more' });
  t.equal(refused.status, 403, JSON.stringify(refused.json).slice(0, 300));
  t.match(refused.json.error?.message, '--max-storage-mb-per-user');

  t.equal((await d.rest(alice, 'DELETE', `/v1/tasks/${id}`)).status, 200);
  t.ok((await me()).usage.storageBytes < MB - 3000, 'the deleted task made room');
  const again = await d.rest(alice, 'POST', '/v1/tasks', { goal: 'one more' });
  t.equal(again.status, 201, JSON.stringify(again.json).slice(0, 300));
  await settled(again.json.id);
});
