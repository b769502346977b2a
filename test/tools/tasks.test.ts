/**
 * Server-run tasks end to end: a fake OpenAI scripted per task (it answers from what it was sent: the goal and
 * how many tool results came back) drives real tools in real Chromium. The task's calls are audited with via
 * task, a hand-off pauses it with its link and the REST Done route resumes it; two run per user and a third
 * queues; cancel stops one; a restart goes on with a paused task and with one that was mid-turn (then on the
 * host's key: the caller's key lived in memory only); another user cannot see or cancel it; bad input costs no
 * provider request; no key in results, audit, logs or the stored record.
 */
import t from 'tap';
import { startStack, type Stack } from '../fixtures/stack.js';
import { html } from '../fixtures/site.js';
import { startFakeModels, type FakeModels, type RecordedRequest, type ScriptedTurn } from '../fixtures/fake-models.js';
import { TASK_ID } from '../../protocol/tasks.js';
import { TaskStore } from '../../storage/tasks.js';
import { startReceiver, type Receiver } from '../fixtures/webhook-receiver.js';
import { verifyWebhook } from '../../client/verify.js';

const USER_KEY = 'sk-task-caller-key-9a41be07';

let s: Stack;
let fake: FakeModels;
let bob: string;
let receiver: Receiver;
let hookSecret: string;
const answers: string[] = [];

/** The messages of an OpenAI request: the goal marker of its task and how many tool results it carries. */
function conversation(req: RecordedRequest) {
  const messages: any[] = req.body?.messages ?? [];
  const goal = String(messages.find((m) => m.role === 'user')?.content ?? '');
  const tools = messages.filter((m) => m.role === 'tool');
  return { goal, tools, messages };
}

const call = (name: string, args: Record<string, unknown> = {}): ScriptedTurn => ({ toolCalls: [{ name, args }] });

/** Each scripted task, by the marker in its goal: the next turn from the tool results so far. */
const scripts: Record<string, (c: ReturnType<typeof conversation>) => ScriptedTurn | undefined> = {
  'script-main': ({ tools }) => {
    if (tools.length === 0) return call('browser_open', { url: `${s.site.url}/start` });
    if (tools.length === 1) return call('browser_snapshot');
    if (tools.length === 2) {
      const ref = /button \\?"Go\\?" \[ref=(e\d+)\]/.exec(tools[1].content)?.[1];
      return ref ? call('browser_click', { ref }) : { text: 'no ref' };
    }
    if (tools.length === 3) return call('browser_handoff', { reason: 'captcha', message: 'Please solve the CAPTCHA, then press Done.' });
    return call('task_done', { result: 'Pressed Go; the person solved the CAPTCHA.' });
  },
  'script-restart': ({ tools }) => (tools.length === 0 ? call('browser_handoff', { message: 'Enter the code, then press Done.' }) : call('task_done', { result: 'went on after the restart' })),
  'script-running': () => call('task_done', { result: 'finished after the restart' }),
  hang: () => call('task_done', { result: 'late' }),
};

t.before(async () => {
  fake = await startFakeModels();
  fake.fallback = (req) => {
    const c = conversation(req);
    const name = Object.keys(scripts).find((k) => c.goal.includes(k));
    return name ? scripts[name]!(c) : undefined;
  };
  s = await startStack({ models: fake.config });
  bob = await s.d.addUser('bob');
  receiver = await startReceiver();
  hookSecret = (await s.d.rest(s.token, 'POST', '/v1/webhooks', { url: `${receiver.url}/hooks`, events: ['task.finished'] })).json.secret;
  s.site.route('/start', html('<h1>Start</h1><button onclick="fetch(\'/clicked\')">Go</button>', '', 'Start page'));
});
t.teardown(async () => {
  await s.stop();
  await fake.close();
  await receiver.close();
});

const api = async (method: string, path: string, body?: unknown, token = s.token, headers: Record<string, string> = {}) => {
  const r = await s.d.rest(token, method, path, body, headers);
  answers.push(JSON.stringify(r.json));
  return r;
};
const start = (goal: string, extra: Record<string, unknown> = {}) => api('POST', '/v1/tasks', { goal, ...extra }, s.token, { 'X-Model-Key': USER_KEY });
/** GET with waitS: answers once the task is neither queued nor running (the service's own change events). */
const settled = async (id: string) => (await api('GET', `/v1/tasks/${id}?waitS=60`)).json.task;
/** After Done: the task leaves paused on the hand-off's own wake-up (an event, not a timer). */
const resumedFrom = (id: string) => s.d.daemon.features.tasks.waitFor('alice', id, (x) => x.state !== 'paused', 10_000);
const requestsOf = (marker: string) => fake.requests.filter((r) => conversation(r).goal.includes(marker));
const doneUrl = (handoffUrl: string) => `${s.d.url}${new URL(handoffUrl).pathname}/done`;

t.test('a scripted task calls real tools, is audited as via task, pauses on a hand-off, resumes when it is resolved', async (t) => {
  const r = await start('script-main: press Go on the start page');
  t.equal(r.status, 201, JSON.stringify(r.json));
  const id = r.json.id as string;
  t.match(id, TASK_ID);
  t.ok(['queued', 'running'].includes(r.json.task.state));
  t.match(r.json.task.model, /^openai\//, 'the default model, resolved and kept on the task');

  const paused = await settled(id);
  t.equal(paused.state, 'paused', JSON.stringify(paused));
  t.match(paused.handoff?.url, new RegExp(`^${s.d.url}/handoff/`), 'the hand-off link is on the task');
  t.same(paused.calls.map((c: any) => [c.tool, c.outcome]), [['browser_open', 'ok'], ['browser_snapshot', 'ok'], ['browser_click', 'ok'], ['browser_handoff', 'ok']]);
  await s.site.waitFor((q) => q.path === '/clicked', 10_000);
  t.pass('the click really happened in the page (its handler fetched /clicked)');

  const audit = await api('GET', '/v1/audit?limit=50');
  const byTask = audit.json.entries.filter((e: any) => e.via === 'task').map((e: any) => e.tool);
  for (const tool of ['browser_open', 'browser_snapshot', 'browser_click', 'browser_handoff']) t.ok(byTask.includes(tool), `${tool} is audited with via task`);
  t.ok(audit.json.entries.some((e: any) => e.tool === 'task_start' && e.via === 'rest'), 'the start itself is audited');

  const sent = requestsOf('script-main');
  t.equal(sent.length, 4, 'one model turn per step so far');
  t.ok(sent.every((q) => q.headers.authorization === `Bearer ${USER_KEY}`), "every turn carries the caller's key in OpenAI's header");
  const names = (sent[0]!.body.tools as any[]).map((x) => x.function.name);
  t.ok(names.includes('browser_click') && names.includes('task_done'), 'the model gets the MCP tools and task_done');
  t.notOk(names.includes('browser_handoff_resolve'), 'but not the tool that would resolve its own hand-off');
  t.notOk(names.includes('task_start'), 'nor the operations');
  const snapResult = conversation(sent[2]!).tools[1].content as string;
  t.match(snapResult, /^<<<page [0-9a-f]+ browser_snapshot result>>>/, 'tool results reach the model fenced');

  const done = await fetch(doneUrl(paused.handoff.url), { method: 'POST' });
  t.equal(done.status, 200, 'Done on the hand-off page');
  await resumedFrom(id);
  const finished = await settled(id);
  t.equal(finished.state, 'succeeded', JSON.stringify(finished));
  t.equal(finished.result, 'Pressed Go; the person solved the CAPTCHA.');
  t.notOk(finished.handoff);
  t.equal(finished.step, 5);
  const last = requestsOf('script-main').at(-1)!;
  t.match(JSON.stringify(conversation(last).messages.at(-1)), /pressed Done/, 'the model is told the person finished');
  t.equal(finished.usage.turns, 5);
  t.equal(finished.usage.inputTokens, requestsOf('script-main').reduce((n, q) => n + Math.round(q.bodyText.length / 4), 0), "usage is what the fake reported, over every turn");
  await receiver.waitFor(() => receiver.calls.some((c) => JSON.parse(c.body).data?.id === id));
  const delivered = receiver.calls.find((c) => JSON.parse(c.body).data?.id === id)!;
  const event = verifyWebhook(hookSecret, delivered.headers as Record<string, string>, delivered.body);
  t.equal(event.type, 'task.finished', "signed with the receiver's secret");
  t.match(event.data, { id, state: 'succeeded', result: 'Pressed Go; the person solved the CAPTCHA.', steps: 5 });
});

t.test('two tasks run per user, a third queues; cancel frees a slot and stops the task', async (t) => {
  fake.delayMs = 60_000;
  t.teardown(() => void (fake.delayMs = 0));
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await start(`hang ${i}`);
    t.equal(r.status, 201);
    ids.push(r.json.id);
  }
  const tasks = s.d.daemon.features.tasks;
  await tasks.waitFor('alice', ids[0]!, (x) => x.state === 'running', 10_000);
  await tasks.waitFor('alice', ids[1]!, (x) => x.state === 'running', 10_000);
  t.equal((await api('GET', `/v1/tasks/${ids[0]}`)).json.task.state, 'running');
  t.equal((await api('GET', `/v1/tasks/${ids[1]}`)).json.task.state, 'running');
  t.equal((await api('GET', `/v1/tasks/${ids[2]}`)).json.task.state, 'queued', 'the third waits');
  const queued = await api('GET', '/v1/tasks?state=queued');
  t.same(queued.json.tasks.map((x: any) => x.id), [ids[2]]);

  const c = await api('POST', `/v1/tasks/${ids[0]}/cancel`);
  t.equal(c.status, 200, JSON.stringify(c.json));
  t.equal(c.json.task.state, 'cancelled');
  const third = await tasks.waitFor('alice', ids[2]!, (x) => x.state === 'running', 10_000);
  t.equal(third.state, 'running', 'the queued task starts when a slot frees');
  for (const id of [ids[1]!, ids[2]!]) t.equal((await api('POST', `/v1/tasks/${id}/cancel`)).json.task.state, 'cancelled');
  const again = await api('POST', `/v1/tasks/${ids[0]}/cancel`);
  t.equal(again.status, 400);
  t.equal(again.json.error.code, 'validation_error', 'a finished task cannot be cancelled');
  const after = await api('GET', `/v1/tasks/${ids[0]}`);
  t.equal(after.json.task.state, 'cancelled', 'and it stays cancelled');
  t.same(after.json.task.calls, [], 'no tool ran for a cancelled task');
});

t.test("another user's task is not found; bad input costs no provider request", async (t) => {
  const mine = (await api('GET', '/v1/tasks')).json.tasks[0].id as string;
  for (const [method, path] of [['GET', `/v1/tasks/${mine}`], ['POST', `/v1/tasks/${mine}/cancel`]] as const) {
    const r = await api(method, path, undefined, bob);
    t.equal(r.status, 404, `${method} ${path} as bob`);
    t.equal(r.json.error.code, 'not_found');
  }
  t.same((await api('GET', '/v1/tasks', undefined, bob)).json.tasks, [], 'bob lists none of alice\'s tasks');
  const requests = fake.requests.length;
  for (const body of [{}, { goal: '' }, { goal: 'x', maxSteps: 0 }, { goal: 'x', maxSteps: 101 }, { goal: 'x', model: 'openai/nope' }, { goal: 'x', startUrl: 'notanaddress' }, { goal: 'x', maxTokensTotal: 2_000_001 }]) {
    const r = await api('POST', '/v1/tasks', body, s.token, { 'X-Model-Key': USER_KEY });
    t.equal(r.status, 400, JSON.stringify(body));
    t.equal(r.json.error.code, 'validation_error');
  }
  const ftp = await api('POST', '/v1/tasks', { goal: 'x', startUrl: 'ftp://files.test/x' }, s.token, { 'X-Model-Key': USER_KEY });
  t.equal(ftp.json.error?.code, 'blocked', 'a start page agents may not open is refused');
  t.equal((await api('GET', '/v1/tasks/task_123')).status, 400, 'a malformed id');
  t.equal(fake.requests.length, requests, 'no provider request');
});

t.test('a restart goes on with a paused task and a running one, on the host key', async (t) => {
  const paused = await start('script-restart');
  const pausedTask = await settled(paused.json.id);
  t.equal(pausedTask.state, 'paused');
  // The second task is mid-turn (the fake holds its answer) when the daemon stops.
  fake.delayMs = 60_000;
  let asked!: () => void;
  const reachedFake = new Promise<void>((r) => (asked = r));
  const answer = fake.fallback!;
  fake.fallback = (req) => {
    if (conversation(req).goal.includes('script-running')) asked();
    return answer(req);
  };
  t.teardown(() => void (fake.fallback = answer));
  const running = await start('script-running');
  await reachedFake;
  t.equal((await api('GET', `/v1/tasks/${running.json.id}`)).json.task.state, 'running', 'mid-turn when the daemon stops');
  t.equal(requestsOf('script-running')[0]!.headers.authorization, `Bearer ${USER_KEY}`);
  await s.d.restart();
  fake.delayMs = 0;
  const afterRunning = await settled(running.json.id);
  t.equal(afterRunning.state, 'succeeded', JSON.stringify(afterRunning));
  t.equal(afterRunning.result, 'finished after the restart');
  t.equal(requestsOf('script-running').at(-1)!.headers.authorization, 'Bearer host-openai-key', "after a restart the host's key: the caller's was never stored");

  const still = (await api('GET', `/v1/tasks/${paused.json.id}`)).json.task;
  t.equal(still.state, 'paused', 'the paused task is still paused after the restart');
  t.equal(still.handoff.id, pausedTask.handoff.id);
  t.equal((await fetch(doneUrl(still.handoff.url), { method: 'POST' })).status, 200);
  await resumedFrom(paused.json.id);
  const resumed = await settled(paused.json.id);
  t.equal(resumed.state, 'succeeded', JSON.stringify(resumed));
  t.equal(resumed.result, 'went on after the restart');
  t.equal(requestsOf('script-restart').at(-1)!.headers.authorization, 'Bearer host-openai-key');
});

t.test('no model key in results, audit, logs or the stored tasks', async (t) => {
  t.notOk(JSON.stringify(s.d.daemon.env.audit.all(10_000)).includes(USER_KEY), 'audit');
  t.notOk(s.d.logLines.some((l) => l.includes(USER_KEY)), 'logs');
  t.notOk(answers.some((a) => a.includes(USER_KEY)), 'answers');
  const store = new TaskStore(s.d.daemon.env.db);
  t.notOk(JSON.stringify(store.list('alice')).includes(USER_KEY), 'stored tasks');
});
