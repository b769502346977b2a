/**
 * One table of settings (daemon/settings.ts) says what the daemon reads, and the parser, `--help` and
 * docs/settings.md say the same. Each flag and its variable set the same thing, and take effect.
 */
import t from 'tap';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SETTINGS, envName, flagUsage } from '../../daemon/settings.js';
import { SERVE_FLAGS } from '../../bin/args.js';
import { loadConfig } from '../../daemon/config.js';
import { renderSettingsDoc } from '../../scripts/settings-doc.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** BROWSERD_ names the code reads that are not operator settings, and why. */
const NOT_SETTINGS: Record<string, string> = {
  BROWSERD_CHECK_OUTPUT: 'the test suite turns on output-schema checks',
  BROWSERD_BUNDLED: 'a constant the bundler defines, not a variable',
  BROWSERD_AUTH: 'a variable in the example mcp-remote config the install guide prints',
  BROWSERD_URL: 'for `browserd vault` and generated scripts: where the daemon is (its --help says so)',
  BROWSERD_TOKEN: 'for `browserd vault` and generated scripts: the caller\'s token',
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) return f === 'generated' || f === 'node_modules' ? [] : sources(p);
    return /\.(ts|sh)$/.test(f) ? [p] : [];
  });
}

const read = new Set<string>();
for (const dir of ['daemon', 'bin', 'storage', 'protocol']) {
  for (const f of sources(join(root, dir))) {
    if (f.endsWith('daemon/settings.ts')) continue;
    for (const m of readFileSync(f, 'utf8').matchAll(/BROWSERD_[A-Z0-9_]+/g)) read.add(m[0]);
  }
}

t.test('every BROWSERD_ variable the code reads is in the table (or is named here as not a setting), and every row is read', async (t) => {
  const table = new Set(SETTINGS.map(envName));
  for (const name of [...read].sort()) t.ok(table.has(name) || name in NOT_SETTINGS, `${name} is documented in daemon/settings.ts`);
  for (const name of table) t.ok(read.has(name), `${name} (a row of the table) is read by the code`);
  t.equal(table.size, SETTINGS.length, 'each variable has one row');
});

t.test('the parser takes exactly the table\'s flags, the usage lists every one, and docs/settings.md is current', async (t) => {
  const flags = SETTINGS.filter((s) => s.flag).map((s) => s.flag!);
  t.same(Object.keys(SERVE_FLAGS).sort(), [...new Set(flags)].sort());
  // The usage --help prints is made by flagUsage (test/cli/cli.test.ts reads it from the built command).
  const usage = flagUsage(118, '  ', 'browserd serve');
  for (const s of SETTINGS.filter((x) => x.flag)) t.ok(usage.includes(`[--${s.flag}${s.arg ? ` ${s.arg}` : ''}]`), `--${s.flag} is in the usage`);
  t.equal(readFileSync(join(root, 'docs/settings.md'), 'utf8'), renderSettingsDoc(), 'docs/settings.md is stale: run `npm run gen`');
});

/** A value each flag takes that differs from its default. */
const SAMPLE: Record<string, string | true> = {
  listen: '127.0.0.1:9911',
  data: '/tmp/browserd-settings-test',
  http: 'node',
  headful: true,
  'allowed-hosts': 'example.test',
  'allowed-origins': 'https://app.example.test',
  'allow-private-network': true,
  'handoff-max-s': '700',
};

t.test('a flag and its variable set the same thing, and it takes effect', async (t) => {
  const env = { HOME: '/tmp' } as NodeJS.ProcessEnv;
  const base = loadConfig({}, env);
  for (const s of SETTINGS.filter((x) => x.flag)) {
    const value = SAMPLE[s.flag!] ?? '7';
    const byFlag = loadConfig({ [s.flag!]: value }, env);
    const [name, on] = s.env.split('=');
    const byEnv = loadConfig({}, { ...env, [name!]: value === true ? (on ?? '1') : value });
    t.same(byFlag, byEnv, `--${s.flag} and ${name} set the same thing`);
    t.notSame(byFlag, base, `--${s.flag} changes the configuration`);
  }
});
