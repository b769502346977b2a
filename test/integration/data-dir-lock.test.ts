/**
 * One daemon per data dir: a live holder refuses a second, in this process or another, whatever the lock file
 * says; a holder that ended (kill -9 included) frees it at once; of many starts at the same instant on a stale
 * lock exactly one goes on.
 */
import t from 'tap';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lockDataDir, LOCK_FILE } from '../../daemon/data-dir-lock.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const root = mkdtempSync(join(tmpdir(), 'browserd-lock-'));
t.teardown(() => rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
let n = 0;
const freshDir = () => join(root, `d${++n}`);

/**
 * Another process trying the lock, as a second daemon would: it prints "took" or the refusal, then holds what it
 * took until stdin closes. `at` (epoch ms) makes several start their attempt at the same instant.
 */
function contender(dir: string, at = 0): { child: ChildProcess; said: Promise<string> } {
  const code = `
    const { lockDataDir } = await import(${JSON.stringify(join(repo, 'daemon/data-dir-lock.ts'))});
    while (Date.now() < ${at}) {} // the same instant as the others: no await between here and the attempt
    try {
      await lockDataDir(${JSON.stringify(dir)});
      console.log('took');
      process.stdin.resume();
      process.stdin.on('end', () => process.exit(0));
    } catch (e) {
      console.log(e.message);
      process.exit(0);
    }`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: repo, stdio: ['pipe', 'pipe', 'inherit'] });
  const said = (async () => {
    let out = '';
    for await (const chunk of child.stdout!) {
      out += chunk;
      if (out.includes('\n')) return out.trim();
    }
    return out.trim();
  })();
  return { child, said };
}

t.test('a held data dir refuses a second holder, naming the first; released, it can be taken again', async (t) => {
  const dir = freshDir();
  const first = await lockDataDir(dir);
  t.ok(existsSync(join(dir, LOCK_FILE)), 'the lock file is made (with the dir)');
  await t.rejects(lockDataDir(dir), new RegExp(`another browserd \\(pid ${process.pid}\\) is running on the data dir`));
  const other = contender(dir);
  t.match(await other.said, new RegExp(`another browserd \\(pid ${process.pid}\\) is running`), 'another process is refused too');
  await first.release();
  t.notOk(existsSync(join(dir, LOCK_FILE)), 'released: the file is gone');
  const again = await lockDataDir(dir);
  await again.release();
});

t.test('the lock does not rest on the file: with it removed or naming a dead holder, a second start is still refused', async (t) => {
  const dir = freshDir();
  const held = contender(dir);
  t.equal(await held.said, 'took');
  t.teardown(() => held.child.kill('SIGKILL'));
  const exited = spawnSync(process.execPath, ['-e', '0']).pid;
  for (const tamper of ['removed', 'dead holder']) {
    if (tamper === 'removed') unlinkSync(join(dir, LOCK_FILE));
    else writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: exited, start: '1' }));
    await t.rejects(lockDataDir(dir), /another browserd \(.*\) is running on the data dir/, `file ${tamper}: refused`);
  }
});

t.test('a holder killed with SIGKILL frees the data dir at once', async (t) => {
  const dir = freshDir();
  const held = contender(dir);
  t.equal(await held.said, 'took');
  held.child.kill('SIGKILL');
  await once(held.child, 'exit');
  t.equal(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid, held.child.pid, 'its file is left behind');
  const lock = await lockDataDir(dir);
  t.equal(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid, process.pid, 'and taken over');
  await lock.release();
});

t.test("a lock file whose holder is gone is taken over: an exited pid, a pid now someone else's, a half-written file", async (t) => {
  const exited = spawnSync(process.execPath, ['-e', '0']).pid;
  const stale = [
    JSON.stringify({ pid: exited, start: '1' }),
    // A live pid with another start time: the pid was reused after the holder died.
    JSON.stringify({ pid: 1, start: 'not-this-process' }),
    '{"pid": 12',
  ];
  for (const content of stale) {
    const dir = freshDir();
    await (await lockDataDir(dir)).release();
    writeFileSync(join(dir, LOCK_FILE), content);
    const lock = await lockDataDir(dir);
    t.equal(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid, process.pid, `taken over from ${content}`);
    await lock.release();
  }
});

t.test('of several starts at the same instant on a stale lock, exactly one goes on', async (t) => {
  const dir = freshDir();
  await (await lockDataDir(dir)).release();
  writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: spawnSync(process.execPath, ['-e', '0']).pid, start: '1' }));
  // Far enough ahead for every contender to have loaded and be spinning on the clock.
  const at = Date.now() + 3000;
  const all = Array.from({ length: 6 }, () => contender(dir, at));
  t.teardown(() => all.forEach((c) => c.child.kill('SIGKILL')));
  const said = await Promise.all(all.map((c) => c.said));
  t.equal(said.filter((s) => s === 'took').length, 1, `one took it (${JSON.stringify(said)})`);
  t.equal(said.filter((s) => /another browserd/.test(s)).length, 5, 'the others were refused');
});

t.test('release leaves a lock file that is no longer ours', async (t) => {
  const dir = freshDir();
  const lock = await lockDataDir(dir);
  const other = JSON.stringify({ pid: 1, start: 'someone else' });
  writeFileSync(join(dir, LOCK_FILE), other);
  await lock.release();
  t.equal(readFileSync(join(dir, LOCK_FILE), 'utf8'), other);
});
