/**
 * storage/key-range.ts on a real store: keys under one prefix whose lengths cross 64 characters (lmdb-js writes
 * them in two forms that sort apart) all come back, once each, as the strings they were written as, in order
 * both ways, with limits, and nothing of a neighbouring prefix.
 */
import t, { type Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { countUnder, entriesUnder, keysUnder, range } from '../../../storage/key-range.js';

/** A table in a store of its own, removed when the test ends. */
function freshTable(t: Test) {
  const dir = mkdtempSync(join(tmpdir(), 'browserd-key-range-'));
  const root = open({ path: join(dir, 'x.lmdb'), compression: false, maxDbs: 2 });
  t.teardown(async () => {
    await root.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return root.openDB<number, string>({ name: 't' });
}

t.test('keys of both forms under a prefix, in order, once each', async (t) => {
  const table = freshTable(t);
  // Tails of growing length: the keys go from 10 to 110 characters, across the 64 where the form changes.
  const keys: string[] = [];
  for (let i = 0; i < 100; i++) keys.push(`user\u0000run\u0000${String(i).padStart(3, '0')}${'x'.repeat(i)}`);
  await table.transaction(() => {
    for (const [i, k] of keys.entries()) table.put(k, i);
    // Neighbours that must never show: a longer name, another run, the run's own record.
    table.put('user\u0000run', -1);
    table.put(`user\u0000runs\u0000${'y'.repeat(70)}`, -2);
    table.put(`userx\u0000run\u0000${'z'.repeat(70)}`, -3);
  });
  t.ok(keys.some((k) => k.length < 64) && keys.some((k) => k.length >= 64), 'both forms are there');
  t.same([...keysUnder(table, ['user', 'run'])], keys, 'every key, in order, as written');
  t.same([...entriesUnder(table, ['user', 'run'])].map((e) => e.value), keys.map((_, i) => i), 'their values');
  t.same([...keysUnder(table, ['user', 'run'], { reverse: true })], [...keys].reverse(), 'reversed');
  t.same([...keysUnder(table, ['user', 'run'], { limit: 70 })], keys.slice(0, 70), 'a limit across both forms');
  t.equal(countUnder(table, ['user', 'run']), 100, 'counted');
  t.equal(countUnder(table, ['user']), 102, "the user's keys (the run record and the other run too)");
  t.same([...range(table, { start: keys[40]!, end: keys[60]! })].map((e) => e.value), Array.from({ length: 20 }, (_, i) => 40 + i), 'a range between two keys of different forms');
  // The plain read the listings used to do: it misses one form.
  const plain = [...table.getKeys({ start: 'user\u0000run\u0000', end: 'user\u0000run\u0001' })];
  t.ok(plain.length < 100, `a plain lmdb range misses keys (${plain.length} of 100)`);
});

t.test('a merge left early ends both reads: a thousand of them do not fill the reader table', async (t) => {
  const table = freshTable(t);
  for (let i = 0; i < 5; i++) await table.put(`u\u0000${String(i).padStart(70, 'k')}`, i);
  for (let i = 0; i < 5; i++) await table.put(`u\u0000${i}`, i);
  for (let i = 0; i < 1000; i++) {
    for (const _ of entriesUnder(table, ['u'], { limit: 1 })) break;
    await table.put(`w${i}`, i); // a write between reads, so each read wants a fresh snapshot
  }
  t.equal([...keysUnder(table, ['u'])].length, 10, 'reads still work after a thousand early exits');
});
