/** One daemon per data dir: a live holder refuses a second, a dead one's lock (pid reused or not) is taken over. */
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lockDataDir, LOCK_FILE } from '../../daemon/data-dir-lock.js';

const root = mkdtempSync(join(tmpdir(), 'browserd-lock-'));
t.teardown(() => rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
let n = 0;
const freshDir = () => join(root, `d${++n}`);

t.test('a held data dir refuses a second holder, naming the first; released, it can be taken again', async (t) => {
  const dir = freshDir();
  const first = lockDataDir(dir);
  t.ok(existsSync(join(dir, LOCK_FILE)), 'the lock file is made (with the dir)');
  t.throws(() => lockDataDir(dir), new RegExp(`another browserd \\(pid ${process.pid}\\) is running on the data dir`));
  first.release();
  t.notOk(existsSync(join(dir, LOCK_FILE)), 'released: the file is gone');
  const again = lockDataDir(dir);
  again.release();
});

t.test("a lock whose holder is gone is taken over: an exited pid, a pid now someone else's, a half-written file", async (t) => {
  const exited = spawnSync(process.execPath, ['-e', '0']).pid;
  const stale = [
    JSON.stringify({ pid: exited, start: '1' }),
    // Our own pid, but another start time: the pid was reused by this process after the holder died.
    JSON.stringify({ pid: process.pid, start: 'not-this-process' }),
    '{"pid": 12',
  ];
  for (const content of stale) {
    const dir = freshDir();
    lockDataDir(dir).release();
    writeFileSync(join(dir, LOCK_FILE), content);
    const lock = lockDataDir(dir);
    t.equal(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid, process.pid, `taken over from ${content}`);
    lock.release();
  }
});

t.test('release leaves a lock that is no longer ours', async (t) => {
  const dir = freshDir();
  const lock = lockDataDir(dir);
  const other = JSON.stringify({ pid: 1, start: 'someone else' });
  writeFileSync(join(dir, LOCK_FILE), other);
  lock.release();
  t.equal(readFileSync(join(dir, LOCK_FILE), 'utf8'), other);
});
