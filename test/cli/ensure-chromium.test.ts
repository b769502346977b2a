/**
 * scripts/ensure-chromium.sh, run by both README commands: Chromium is required, the filter lists are optional.
 * `id` and `apt-get` are stand-ins on PATH (nothing is installed, nothing leaves this machine).
 */
import t from 'tap';
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const script = new URL('../../scripts/ensure-chromium.sh', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'browserd-ensure-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the script as `uid`, with apt-get failing for the packages in `failing` (update too, with 'update'). */
async function ensure(opts: { uid: number; chrome: string; failing: string[] }) {
  const bin = join(dir, `bin-${Math.random().toString(36).slice(2)}`);
  const calls = join(bin, 'calls');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(bin);
  writeFileSync(join(bin, 'id'), `#!/bin/sh\necho ${opts.uid}\n`);
  const fails = opts.failing.map((p) => `*${p}*) exit 100;;`).join(' ');
  writeFileSync(join(bin, 'apt-get'), `#!/bin/sh\necho "$*" >> ${calls}\ncase "$*" in ${fails} esac\nexit 0\n`);
  chmodSync(join(bin, 'id'), 0o755);
  chmodSync(join(bin, 'apt-get'), 0o755);
  writeFileSync(calls, '');
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, BROWSERD_CHROME: opts.chrome, BROWSERD_LISTS_PROBE: join(dir, 'no-list.txt') };
  const r = await run('bash', [script], { env, encoding: 'utf8' }).then(
    (x) => ({ code: 0, stderr: x.stderr }),
    (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
  );
  return { ...r, calls: readFileSync(calls, 'utf8') };
}

t.test('as root, lists apt cannot fetch leave the start going, said on stderr', async (t) => {
  const r = await ensure({ uid: 0, chrome: '/bin/true', failing: ['update', 'webext-ublock'] });
  t.equal(r.code, 0, r.stderr);
  t.match(r.stderr, /Could not install webext-ublock-origin-chromium: browserd runs without it/);
  t.match(r.calls, /install -y -qq webext-ublock-origin-chromium/);
  t.notMatch(r.calls, /install[^\n]*chromium poppler/, 'chromium is there: not installed again');
});

t.test('as root, a Chromium apt cannot install stops the start', async (t) => {
  const r = await ensure({ uid: 0, chrome: join(dir, 'no-chromium'), failing: ['chromium poppler'] });
  t.not(r.code, 0);
  t.match(r.calls, /install -y -qq chromium poppler-utils/);
});

t.test('not root: a missing list is a note, a missing Chromium an error naming the command', async (t) => {
  const lists = await ensure({ uid: 1000, chrome: '/bin/true', failing: [] });
  t.equal(lists.code, 0);
  t.match(lists.stderr, /sudo apt-get install webext-ublock-origin-chromium/);
  t.equal(lists.calls, '', 'no apt-get run without root');
  const chrome = await ensure({ uid: 1000, chrome: join(dir, 'no-chromium'), failing: [] });
  t.equal(chrome.code, 1);
  t.match(chrome.stderr, /sudo apt-get install chromium/);
});
