/**
 * The fast tier (`npm run check:fast`: test/unit and test/contract) stays fast: no file there starts a daemon,
 * Chromium or a child process. Such a test belongs in test/integration (or test/tools, test/rest), which only
 * the full `npm run check` runs.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, sourceFiles } from '../fixtures/source-files.js';

// Built from parts so this file does not match itself.
const call = (name: string) => new RegExp(`\\b${name}\\s*\\(`);
const FORBIDDEN: [RegExp, string][] = [
  [call('start' + 'TestDaemon'), 'starts a test daemon (and Chromium with it)'],
  [call('start' + 'Stack'), 'starts a daemon, a site and Chromium'],
  [call('start' + 'Daemon'), 'starts a daemon'],
  [call('child' + 'Daemon'), 'runs `browserd serve` as a child process'],
  [call('launch' + 'Chromium'), 'launches Chromium'],
  [new RegExp(`from 'node:${'child'}_process'|import\\('node:${'child'}_process'\\)`), 'starts child processes (the short list below excepted)'],
];
// Files that run a quick read-only command and nothing else: git ls-files, systemd-analyze on a copied unit.
const CHILD_PROCESS_OK = new Set(['test/contract/generated.test.ts', 'test/unit/ops/systemd-unit.test.ts']);

t.test('no file of the fast tier starts a daemon, Chromium or (beyond a short list) a child process', async (t) => {
  // Every .ts file there, helpers too: the in-page script's Chromium harness hid its launch in harness.ts.
  const files = [...sourceFiles('test/unit'), ...sourceFiles('test/contract')];
  t.ok(files.length > 50, 'the fast tier is found');
  const offenders: string[] = [];
  for (const f of files) {
    const text = readFileSync(join(repoRoot, f), 'utf8');
    for (const [re, what] of FORBIDDEN) {
      if (re.source.includes('child_process') && CHILD_PROCESS_OK.has(f)) continue;
      if (re.test(text)) offenders.push(`${f} ${what}: move it to test/integration`);
    }
  }
  t.same(offenders, [], 'the fast tier starts nothing heavy');
});
