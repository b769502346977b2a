/**
 * Per-user quotas through the real REST API, with small limits set by the `browserd serve` flags: the next
 * crawl, task or monitor past its limit is refused naming the limit and its flag, and nothing of it is
 * created; a file store past the storage quota is refused and nothing is stored; another user is unaffected;
 * GET /v1/me shows every limit. No browser starts in this file (crawls read over HTTP, tasks wait on a slow
 * fake model, monitors only schedule, conversions of text run in the daemon).
 */
import t, { type Test } from 'tap';
import type { ServerResponse } from 'node:http';
import { startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { startSite, type FixtureSite } from '../fixtures/site.js';
import { startFakeModels, type FakeModels } from '../fixtures/fake-models.js';
import { loadConfig } from '../../daemon/config.js';

let d: TestDaemon;
let site: FixtureSite;
let fake: FakeModels;
let alice: string;
let bob: string;
/** Answers the crawls are waiting on: held so each crawl stays running until the test lets go. */
const held: ServerResponse[] = [];

const FLAGS = {
  listen: '127.0.0.1:0',
  'max-crawls-per-user': '2',
  'max-tasks-per-user': '3',
  'max-monitors-per-user': '2',
  'max-storage-mb-per-user': '1',
};

t.before(async () => {
  site = await startSite();
  site.route('/slow', (_req, res) => void held.push(res));
  fake = await startFakeModels();
  // Each model turn takes longer than the test: tasks stay running (two) or queued.
  fake.delayMs = 600_000;
  fake.fallback = () => ({ text: 'done' });
  d = await startTestDaemon({ quotas: loadConfig(FLAGS).quotas, models: fake.config });
  alice = await d.addUser('alice');
  bob = await d.addUser('bob');
});
t.teardown(async () => {
  for (const res of held.splice(0)) res.destroy();
  await d.stop();
  await fake.close();
  await site.close();
});

/** The refusal every quota gives: `refused`, the limit named with its flag, the numbers in details. */
function refusedFor(t: Test, r: { status: number; json: any }, quota: string, flag: string, limit: number) {
  t.equal(r.status, 403, JSON.stringify(r.json));
  t.equal(r.json.error.code, 'refused');
  t.match(r.json.error.message, flag, 'the message names the flag');
  t.match(r.json.error.next, flag, 'the next step says which flag an admin can raise');
  t.match(r.json.error.details, { quota, flag, limit });
}

t.test('GET /v1/me shows every per-user quota as the flags set it', async (t) => {
  const r = await d.rest(alice, 'GET', '/v1/me');
  t.equal(r.status, 200);
  t.match(r.json.limits, { crawlsPerUser: 2, tasksPerUser: 3, monitorsPerUser: 2, recordingsPerUser: 200, harRecordingsPerUser: 10, storageBytesPerUser: 1024 * 1024 });
  t.equal(r.json.usage.storageBytes, 0);
});

t.test('the third crawl is refused naming --max-crawls-per-user; nothing of it is stored; another user may crawl', async (t) => {
  const spec = { startUrls: [`${site.url}/slow`], mode: 'http', delayMs: 0, maxPages: 1, obeyRobots: false };
  for (let i = 0; i < 2; i++) {
    const r = await d.rest(alice, 'POST', '/v1/crawls', spec);
    t.equal(r.status, 201, JSON.stringify(r.json));
    t.equal(r.json.state, 'running');
  }
  const before = (await d.rest(alice, 'GET', '/v1/crawls')).json.crawls.length;
  const third = await d.rest(alice, 'POST', '/v1/crawls', spec);
  refusedFor(t, third, 'crawls', '--max-crawls-per-user', 2);
  t.equal((await d.rest(alice, 'GET', '/v1/crawls')).json.crawls.length, before, 'no run was created');
  const other = await d.rest(bob, 'POST', '/v1/crawls', spec);
  t.equal(other.status, 201, "bob's crawls count against bob's own quota");
  // A cancelled crawl frees its place.
  const first = (await d.rest(alice, 'GET', '/v1/crawls')).json.crawls[0].id;
  t.equal((await d.rest(alice, 'POST', `/v1/crawls/${first}/cancel`)).status, 200);
  t.equal((await d.rest(alice, 'POST', '/v1/crawls', spec)).status, 201, 'room again after a cancel');
});

t.test('the fourth unfinished task is refused naming --max-tasks-per-user, queued ones counted; nothing is stored', async (t) => {
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await d.rest(alice, 'POST', '/v1/tasks', { goal: `wait ${i}` });
    t.equal(r.status, 201, JSON.stringify(r.json));
    ids.push(r.json.task?.id ?? r.json.id);
  }
  const states = (await d.rest(alice, 'GET', '/v1/tasks')).json.tasks.map((x: any) => x.state).sort();
  t.same(states, ['queued', 'running', 'running'], 'two run, the third waits in the queue');
  const fourth = await d.rest(alice, 'POST', '/v1/tasks', { goal: 'one too many' });
  refusedFor(t, fourth, 'tasks', '--max-tasks-per-user', 3);
  const after = (await d.rest(alice, 'GET', '/v1/tasks')).json.tasks;
  t.equal(after.length, 3, 'no task was stored');
  t.notOk(after.some((x: any) => x.goal === 'one too many'));
  t.equal((await d.rest(bob, 'POST', '/v1/tasks', { goal: 'bob waits' })).status, 201, 'another user is unaffected');
  for (const id of ids) await d.rest(alice, 'POST', `/v1/tasks/${id}/cancel`);
  t.equal((await d.rest(alice, 'POST', '/v1/tasks', { goal: 'after cancel' })).status, 201, 'ended tasks free their places');
});

t.test('the third monitor is refused naming --max-monitors-per-user; none is stored', async (t) => {
  const create = (token: string) => d.rest(token, 'POST', '/v1/tools/browser_monitor', { action: 'create', url: `${site.url}/page`, cron: '@daily' });
  for (let i = 0; i < 2; i++) t.equal((await create(alice)).status, 200);
  const third = await create(alice);
  refusedFor(t, third, 'monitors', '--max-monitors-per-user', 2);
  const list = await d.rest(alice, 'POST', '/v1/tools/browser_monitor', { action: 'list' });
  t.equal(list.json.total ?? list.json.monitors.length, 2, 'still two monitors');
  t.equal((await create(bob)).status, 200, 'another user is unaffected');
});

t.test('a file store past --max-storage-mb-per-user is refused and nothing is stored; the user sees their bytes', async (t) => {
  // 600 KB of short lines (8 bytes each).
  const text = (c: string) => Buffer.from(`${c}bc def\n`.repeat((600 * 1024) / 8)).toString('base64');
  const store = (token: string, name: string, c: string) => d.rest(token, 'POST', '/v1/tools/browser_convert', { base64: text(c), name, store: true, maxChars: 100 });
  const first = await store(alice, 'first.txt', 'a');
  t.equal(first.status, 200, JSON.stringify(first.json).slice(0, 300));
  t.equal(first.json.file.name, 'first.txt');
  const second = await store(alice, 'second.txt', 'b');
  t.equal(second.status, 403, JSON.stringify(second.json).slice(0, 300));
  t.equal(second.json.error.code, 'refused');
  t.match(second.json.error.message, '--max-storage-mb-per-user');
  t.match(second.json.error.details, { quota: 'storageBytes', flag: '--max-storage-mb-per-user', limit: 1024 * 1024, adding: 600 * 1024 });
  const files = (await d.rest(alice, 'GET', '/v1/files')).json.files.map((f: any) => f.name);
  t.same(files, ['first.txt'], 'second.txt was not stored');
  const usage = (await d.rest(alice, 'GET', '/v1/me')).json.usage;
  t.equal(usage.storage.files, 600 * 1024, 'GET /v1/me counts the stored bytes');
  t.ok(usage.storage.crawls > 0 && usage.storage.tasks > 0 && usage.storage.monitors > 0, 'her crawls, tasks and monitors in the store count too');
  t.equal(usage.storageBytes, Object.values(usage.storage as Record<string, number>).reduce((a, b) => a + b, 0), 'storageBytes is every place together');
  t.equal((await store(alice, 'again.txt', 'a')).status, 200, 'the same bytes again take no room (one copy)');
  t.equal((await store(bob, 'second.txt', 'b')).status, 200, "bob's bytes are bob's own quota");
  // The way out: DELETE /v1/files/{name} frees the bytes (only the caller's own files).
  t.equal((await d.rest(bob, 'DELETE', '/v1/files/first.txt')).status, 404, "bob cannot delete alice's file");
  t.equal((await d.rest(alice, 'DELETE', '/v1/files/first.txt')).status, 200);
  t.equal((await d.rest(alice, 'DELETE', '/v1/files/first.txt')).status, 404, 'gone');
  t.equal((await store(alice, 'second.txt', 'b')).status, 200, 'with the bytes freed the store goes through');
});

t.test('each quota flag takes a whole number >= 1 and says which flag is wrong', async (t) => {
  for (const flag of ['max-crawls-per-user', 'max-tasks-per-user', 'max-monitors-per-user', 'max-recordings-per-user', 'max-har-recordings-per-user', 'max-storage-mb-per-user']) {
    t.throws(() => loadConfig({ listen: '127.0.0.1:1', [flag]: '0' }), new RegExp(`--${flag}`));
    t.throws(() => loadConfig({ listen: '127.0.0.1:1', [flag]: 'lots' }), new RegExp(`--${flag}`));
  }
  t.equal(loadConfig({ listen: '127.0.0.1:1' }, { BROWSERD_MAX_CRAWLS_PER_USER: '7' }).quotas.crawls, 7, 'or from the environment');
});
