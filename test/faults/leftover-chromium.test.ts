/**
 * A Chromium a killed daemon left running on a profile. Its pipe closed, it shuts down by itself, but a daemon
 * restarted at once starts a new one on the same profile before it is gone, and Chromium refuses a second browser
 * on a profile (it hands itself over and exits). The launcher ends the leftover first; a Chromium on another
 * profile that a lock happens to name is left alone.
 */
import t from 'tap';
import { mkdtempSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { launchChromium, type LaunchedChromium } from '../../daemon/browser/launcher.js';

const root = mkdtempSync(join(tmpdir(), 'browserd-leftover-'));
const started: LaunchedChromium[] = [];
t.teardown(async () => {
  for (const c of started) if (c.process.exitCode === null && c.process.signalCode === null) c.process.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});
const launch = async (dir: string) => {
  const c = await launchChromium({ userDataDir: dir, headless: true });
  started.push(c);
  return c;
};
const running = (c: LaunchedChromium) => c.process.exitCode === null && c.process.signalCode === null;
/** Asks the browser to close, as the daemon does (close() alone waits for an exit already under way first). */
const shut = async (c: LaunchedChromium) => {
  await c.conn.send('Browser.close', {}).catch(() => {});
  await c.close();
};

t.test('a browser whose daemon is gone (its pipe closed) is waited for, and the new one takes the profile', async (t) => {
  const dir = join(root, 'closed-pipe');
  const first = await launch(dir);
  // A busy host: the leftover is slow to act on its closed pipe (stopped for a second, then let go).
  process.kill(first.process.pid!, 'SIGSTOP');
  setTimeout(() => process.kill(first.process.pid!, 'SIGCONT'), 1000);
  // What kill -9 of the daemon does to its browser: the CDP pipe's far end closes, nothing else.
  first.process.stdio[3]!.destroy();
  first.process.stdio[4]!.destroy();
  const second = await launch(dir);
  t.notOk(running(first), 'the leftover has exited');
  t.equal(first.process.signalCode, null, 'by itself, not by a signal');
  const { targetId } = await second.conn.send('Target.createTarget', { url: 'about:blank' });
  t.match(targetId, /\w+/, 'the new browser works on the profile');
  await shut(second);
});

t.test('a browser that stays on the profile (its pipe still open, hung) is ended, and the new one takes the profile', async (t) => {
  const dir = join(root, 'hung');
  const first = await launch(dir);
  const firstExit = once(first.process, 'exit');
  const second = await launch(dir);
  await firstExit;
  t.notOk(running(first), 'the leftover was ended');
  t.ok(running(second), 'the new browser runs');
  const { product } = await second.conn.send('Browser.getVersion', {});
  t.match(product, /Chrom/, 'and answers');
  await shut(second);
});

t.test('a Chromium on another profile, named by a lock on this one, is left alone', async (t) => {
  const other = await launch(join(root, 'other'));
  const dir = join(root, 'mine');
  const mine = await launch(dir);
  await shut(mine);
  // This profile's lock now names the other profile's browser (a pid reused, or a copied profile).
  try {
    unlinkSync(join(dir, 'SingletonLock'));
  } catch {}
  symlinkSync(`${hostname()}-${other.process.pid}`, join(dir, 'SingletonLock'));
  const again = await launch(dir).catch((e: Error) => e);
  t.ok(running(other), 'the other profile\'s browser still runs');
  if (again instanceof Error) t.match(again.message, /Chromium/, 'a refusal, if Chromium refuses, names Chromium');
  else await shut(again);
  await shut(other);
});
