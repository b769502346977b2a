/**
 * What only REST reaches: the operations (research, tasks, extractors, ask, observe/act/validate), each through
 * its own route with ids and tabs moved into the path as the routes take them, and the other routes that take a
 * body or a path id (tabs, crawls, webhooks, caches, convert, vault, the SMS inbox, sign-up, admin). The same
 * property as the tools (harness.ts).
 */
import t from 'tap';
import { DEFAULT_SEED, planFor, resetAlice, runProperty, startWorld, stillServing, subjects, type World } from './harness.js';

let w: World;
t.before(async () => {
  w = await startWorld();
});
t.teardown(() => w?.stop());

for (const s of subjects().filter((s) => s.operation)) {
  t.test(s.name, async (t) => {
    await resetAlice(w);
    const { runs, mix } = planFor(s.name);
    t.equal(await runProperty(w, s, { runs, mix, seed: DEFAULT_SEED }), undefined, `${runs} generated calls answered within the bound, from the closed error table`);
    t.equal(await stillServing(w), undefined, `the daemon still serves after ${runs} cases of ${s.name}`);
  });
}
