/**
 * The store's disk full. LMDB's map is no limit here: lmdb-js starts it small and grows it as the data grows
 * (MDB_MAP_FULL never reaches us), so what stops writes is the file system. The daemon runs on a data dir on a
 * small tmpfs; a filler file takes nearly all of it; vault saves go on until one is refused. The refusal is a
 * clear error with a next step, nothing refused shows up as stored, the daemon stays up and reads still work,
 * and once the filler is gone writes succeed again and everything acknowledged survives a restart.
 *
 * Mounting a tmpfs needs root (and `mount`): elsewhere this file is skipped, and says why.
 */
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { childDaemon } from '../fixtures/child-daemon.js';
import { ERROR_CODES } from '../../protocol/errors.js';

const mnt = mkdtempSync(join(tmpdir(), 'browserd-full-'));
let mounted = false;
try {
  if (process.getuid?.() === 0) {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', mnt], { stdio: 'ignore' });
    mounted = true;
  }
} catch {
  // no mount permission here (a container without CAP_SYS_ADMIN): skipped below
}
t.teardown(() => {
  if (mounted) execFileSync('umount', ['-l', mnt]);
  rmSync(mnt, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

const data = join(mnt, 'data');
const filler = join(mnt, 'filler');
// The store keeps 4 MB in hand here (the default, 64 MB, is more than this whole disk): the test fills the disk
// to 1 MB free, so the reserve is what refuses, before LMDB ever meets a full disk.
const d0 = childDaemon(data, { BROWSERD_STORE_RESERVE_MB: '4' });

t.test('a full disk refuses writes clearly, keeps reads and the daemon up, and recovers when space returns', { skip: mounted ? false : 'needs root to mount a small tmpfs (a full disk cannot be made otherwise without touching the host)' }, async (t) => {
  let d = await d0.serve();
  const acked = new Map<string, string>();
  const save = async (i: number) => {
    const name = `site-${i}.test`;
    const r = await d0.call(d.url, 'PUT', `/v1/vault/${name}`, { loginUrl: `https://${name}/login`, fields: { username: `user-${i}`, password: `${i}-${'p'.repeat(4000)}` } });
    if (r.status >= 200 && r.status < 300) acked.set(name, `https://${name}/login`);
    return r;
  };
  for (let i = 0; i < 5; i++) t.equal((await save(i)).status, 200, 'saves work while there is room');

  // Leave about 1 MB free, then save until the store cannot take more.
  const free = () => { const s = statfsSync(mnt); return s.bavail * s.bsize; };
  writeFileSync(filler, Buffer.alloc(Math.max(0, free() - 1024 * 1024)));
  let refused: { status: number; json: any } | undefined;
  let i = 5;
  for (; i < 2000 && !refused; i++) {
    const r = await save(i);
    if (r.status !== 200) refused = r;
  }
  t.ok(refused, `a save was refused once the disk filled (after ${i - 5} more saves)`);
  const body = refused!.json;
  t.ok(body?.error?.code in ERROR_CODES, `the refusal has a code from the table: ${JSON.stringify(body)}`);
  t.equal(body?.error?.code, 'storage_full', 'it says the storage is full');
  t.equal(refused!.status, 507, "507 Insufficient Storage: the server's condition, not the caller's mistake");
  t.match(body?.error?.message ?? '', /space|full|disk/i, 'it says the store is full');
  t.ok(body?.error?.next, 'it says what to do next');
  t.equal(d.child.exitCode, null, 'the daemon is still running');

  const health = await fetch(`${d.url}/health`);
  t.equal(health.status, 200, 'health answers');
  const listed = await d0.call(d.url, 'GET', '/v1/vault');
  t.equal(listed.status, 200, 'reads still work');
  const names = new Set(listed.json.entries.map((e: any) => e.name));
  t.same([...acked.keys()].filter((n) => !names.has(n)), [], `all ${acked.size} acknowledged saves are listed`);
  const refusedName = `site-${i - 1}.test`;
  t.notOk(names.has(refusedName), 'the refused save is not stored');

  rmSync(filler);
  const after = await save(i++);
  t.equal(after.status, 200, `a save succeeds once space returns: ${JSON.stringify(after.json)}`);

  d.child.kill('SIGKILL');
  await once(d.child, 'exit');
  d = await d0.serve();
  const back = await d0.call(d.url, 'GET', '/v1/vault');
  const backNames = new Set(back.json.entries.map((e: any) => e.name));
  t.same([...acked.keys()].filter((n) => !backNames.has(n)), [], `after a kill and restart all ${acked.size} acknowledged saves are there`);
  t.notOk(backNames.has(refusedName), 'and the refused one is still absent');
  d.child.kill('SIGTERM');
  await once(d.child, 'exit');
});
