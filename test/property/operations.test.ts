/**
 * The REST-only operations (research, tasks, extractors, ask, observe/act/validate), each through its own REST
 * route with generated arguments: the same property as the tools (harness.ts), ids and tabs moved into the path
 * as the routes take them.
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
