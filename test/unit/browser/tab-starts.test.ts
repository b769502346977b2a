/** The host's turns for building tabs: a few at once, first come first served, a turn given back however a build ends. */
import t from 'tap';
import { TabStarts } from '../../../daemon/browser/tab-starts.js';

/** A build the test finishes by hand, and a record of when each one began. */
function builds(n: number) {
  const began: number[] = [];
  const finish: ((ok: boolean) => void)[] = [];
  const started: Promise<void>[] = [];
  const starters: (() => void)[] = [];
  for (let i = 0; i < n; i++) started.push(new Promise<void>((r) => starters.push(r)));
  const make = (i: number) => () =>
    new Promise<number>((resolve, reject) => {
      began.push(i);
      finish[i] = (ok) => (ok ? resolve(i) : reject(new Error(`build ${i} failed`)));
      starters[i]!();
    });
  return { began, finish, started, make };
}

const tick = () => new Promise((r) => setImmediate(r));

t.test('no more than the slots run at once, and the waiting go in the order they asked', async (t) => {
  const gate = new TabStarts(2);
  const b = builds(5);
  const results = [0, 1, 2, 3, 4].map((i) => gate.run(b.make(i)));
  await Promise.all([b.started[0], b.started[1]]);
  await tick();
  t.same(b.began, [0, 1], 'two began');
  t.equal(gate.queued, 3);
  b.finish[1]!(true);
  await b.started[2];
  await tick();
  t.same(b.began, [0, 1, 2], 'the first in line takes the freed turn');
  b.finish[0]!(true);
  b.finish[2]!(true);
  await Promise.all([b.started[3], b.started[4]]);
  b.finish[3]!(true);
  b.finish[4]!(true);
  t.same(await Promise.all(results), [0, 1, 2, 3, 4]);
  t.same([gate.started, gate.peak, gate.queued, gate.longestQueue], [5, 2, 0, 3]);
});

t.test('a failed build gives its turn back and its caller gets the error', async (t) => {
  const gate = new TabStarts(1);
  const b = builds(2);
  const first = gate.run(b.make(0));
  const second = gate.run(b.make(1));
  await b.started[0];
  b.finish[0]!(false);
  await t.rejects(first, /build 0 failed/);
  await b.started[1];
  b.finish[1]!(true);
  t.equal(await second, 1);
  t.equal(gate.peak, 1);
});

t.test('a build that overruns its turn lets the next one begin, and still ends for its own caller', async (t) => {
  const gate = new TabStarts(1, 50);
  const b = builds(2);
  const stuck = gate.run(b.make(0));
  const next = gate.run(b.make(1));
  await b.started[0];
  await b.started[1]; // begins although build 0 has not ended: its turn ran out
  t.same(b.began, [0, 1]);
  b.finish[1]!(true);
  t.equal(await next, 1);
  b.finish[0]!(true);
  t.equal(await stuck, 0, 'the overrunning build still answers its caller');
  t.equal(gate.queued, 0);
  // Its late end gives back nothing twice: one slot, so two builds now still run one at a time.
  const c = builds(2);
  const x = gate.run(c.make(0));
  const y = gate.run(c.make(1));
  await c.started[0];
  await tick();
  t.same(c.began, [0], 'one turn, not two');
  c.finish[0]!(true);
  await c.started[1];
  c.finish[1]!(true);
  await Promise.all([x, y]);
});

t.test('slots must be a whole number of at least one', async (t) => {
  for (const n of [0, -1, 1.5, NaN]) t.throws(() => new TabStarts(n), /at least 1/);
});
