/**
 * A disabled account's server-run tasks stop asking the model: `browserd user disable` (another process) holds
 * the running task within the sweep's couple of seconds (its loop ends as at shutdown, the record stays running)
 * and its queued task does not start; no model request is made while disabled. Enabled again, both go on and
 * finish. A fake OpenAI answers; real daemon and CLI.
 */
import t from 'tap';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startStack, type Stack } from '../fixtures/stack.js';
import { startFakeModels, type FakeModels } from '../fixtures/fake-models.js';

const run = promisify(execFile);
const bin = new URL('../../bin/browserd.js', import.meta.url).pathname;

let s: Stack;
let fake: FakeModels;

t.before(async () => {
  fake = await startFakeModels();
  fake.fallback = () => ({ toolCalls: [{ name: 'task_done', args: { result: 'done' } }] });
  s = await startStack({ models: fake.config });
});
t.teardown(async () => {
  await s.stop();
  await fake.close();
});

const cli = (...args: string[]) => run(process.execPath, [bin, ...args, '--data', s.d.dataDir], { encoding: 'utf8' });

t.test('disabled: running tasks are held and queued ones wait, with no model request; enabled: they finish', async (t) => {
  const tasks = s.d.daemon.features.tasks;
  fake.delayMs = 60_000;
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await s.d.rest(s.token, 'POST', '/v1/tasks', { goal: `held ${i}` }, { 'X-Model-Key': 'sk-held-task-key' });
    t.equal(r.status, 201, JSON.stringify(r.json));
    ids.push(r.json.id);
  }
  await tasks.waitFor('alice', ids[0]!, (x) => x.state === 'running', 10_000);
  await tasks.waitFor('alice', ids[1]!, (x) => x.state === 'running', 10_000);

  await cli('user', 'disable', 'alice');
  const deadline = Date.now() + 10_000;
  while (tasks.runningUsers().includes('alice')) {
    if (Date.now() > deadline) throw new Error('the task loops were not held within 10 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  t.pass('the running task loops ended');
  fake.delayMs = 0;
  const asked = fake.requests.length;
  await new Promise((r) => setTimeout(r, 2500));
  t.equal(fake.requests.length, asked, 'no model request while the account is disabled');
  t.same(ids.map((id) => tasks.get('alice', id)!.state), ['running', 'running', 'queued'], 'kept where they were, none ended');

  await cli('user', 'enable', 'alice');
  for (const id of ids) t.equal((await tasks.waitFor('alice', id, (x) => x.state === 'succeeded', 20_000)).state, 'succeeded', `${id} went on and finished`);
});
