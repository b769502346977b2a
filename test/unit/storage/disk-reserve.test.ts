/**
 * The store's disk reserve: below it, adding writes are refused with ENOSPC (answered storage_full) and change
 * nothing; a transaction is refused whole or runs whole; deletions still go through. Real LMDB in a temp dir;
 * the free-space check is swapped for a switch so "the disk is full" can be said without filling a disk.
 */
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { assertRoom, storeReserveBytes, writeGuard } from '../../../storage/disk-reserve.js';
import { toBrowserdError } from '../../../protocol/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'browserd-reserve-'));
const root = open({ path: join(dir, 'x.lmdb'), compression: false, maxDbs: 4 });
const db = root.openDB<any, string>({ name: 'things' });
t.teardown(async () => {
  await root.close();
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});
let full = false;
let checks = 0;
const guard = writeGuard(() => {
  checks++;
  if (full) assertRoom(dir, Number.MAX_SAFE_INTEGER);
});
guard(root);
guard(db);

t.test('with room, writes go through', async (t) => {
  await db.put('a', 1);
  db.putSync('b', 2);
  await db.transaction(() => {
    db.put('c', 3);
    db.put('d', 4);
  });
  t.same([db.get('a'), db.get('b'), db.get('c'), db.get('d')], [1, 2, 3, 4]);
});

t.test('below the reserve, adding writes are refused as storage_full and store nothing', async (t) => {
  full = true;
  const refused = await db.put('e', 5).then(() => undefined, (e: unknown) => e);
  t.equal((refused as NodeJS.ErrnoException)?.code, 'ENOSPC');
  t.match((refused as Error).message, /less than the .* MB the store keeps in hand; nothing was written/);
  t.equal(toBrowserdError(refused).code, 'storage_full', 'the daemon answers it as storage_full');
  t.throws(() => db.putSync('f', 6), { code: 'ENOSPC' }, 'a sync write throws');
  const tx = await db.transaction(() => db.put('g', 7)).then(() => undefined, (e: unknown) => e);
  t.equal((tx as NodeJS.ErrnoException)?.code, 'ENOSPC', 'a transaction is refused as it starts');
  t.same([db.get('e'), db.get('f'), db.get('g')], [undefined, undefined, undefined], 'nothing was stored');
  await db.remove('a');
  t.equal(db.get('a'), undefined, 'a deletion still goes through: it is how space comes back');
  full = false;
});

t.test('a transaction checked at its start runs whole, even if the disk fills while it runs', async (t) => {
  const before = checks;
  await db.transaction(() => {
    full = true;
    db.put('h', 8);
    db.put('i', 9);
  });
  full = false;
  t.same([db.get('h'), db.get('i')], [8, 9], 'both writes of the transaction are there');
  t.equal(checks - before, 1, 'one check, at the start');
});

t.test('the reserve comes from BROWSERD_STORE_RESERVE_MB, 64 MB by default', async (t) => {
  t.equal(storeReserveBytes({}), 64 * 1024 * 1024);
  t.equal(storeReserveBytes({ BROWSERD_STORE_RESERVE_MB: '4' }), 4 * 1024 * 1024);
  t.equal(storeReserveBytes({ BROWSERD_STORE_RESERVE_MB: '0' }), 0, '0 turns it off');
  t.equal(storeReserveBytes({ BROWSERD_STORE_RESERVE_MB: 'lots' }), 64 * 1024 * 1024, 'a value that is no number keeps the default');
});
