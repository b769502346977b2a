/**
 * Every MCP tool, sent generated arguments (valid, near-valid, hostile) over MCP and over POST /v1/tools/<name>:
 * each answer is a result or an error from the closed table, never internal_error, a 500 or a hang, and the
 * daemon keeps serving. The property, the world and how the number of cases is bounded: harness.ts.
 */
import t from 'tap';
import { DEFAULT_SEED, planFor, resetAlice, runProperty, startWorld, stillServing, subjects, type World } from './harness.js';

let w: World;
t.before(async () => {
  w = await startWorld();
});
t.teardown(() => w?.stop());

for (const s of subjects().filter((s) => !s.operation)) {
  t.test(s.name, async (t) => {
    await resetAlice(w);
    const { runs, mix } = planFor(s.name);
    t.equal(await runProperty(w, s, { runs, mix, seed: DEFAULT_SEED }), undefined, `${runs} generated calls answered within the bound, from the closed error table`);
    t.equal(await stillServing(w), undefined, `the daemon still serves after ${runs} cases of ${s.name}`);
  });
}
