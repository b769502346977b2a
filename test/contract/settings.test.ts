/**
 * One table of settings (daemon/settings.ts) says what the daemon reads, and the parser, `--help` and the
 * settings table of docs/operations.md say the same (that the table there is current: generated.test.ts). Each flag and its variable set the same thing, and take effect.
 */
import t from 'tap';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SETTINGS, envName } from '../../daemon/settings.js';
import { SERVE_FLAGS } from '../../bin/args.js';
import { SERVE_USAGE } from '../../bin/serve-usage.js';
import { loadConfig } from '../../daemon/config.js';
import { markers } from '../../scripts/docs.js';

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

/** `--name ARG` (or `--name`) as --help and the docs show a setting's flag. */
const flagText = (flag: string, arg?: string) => `--${flag}${arg ? ` ${arg}` : ''}`;
const tableFlags = new Set(SETTINGS.filter((s) => s.flag).map((s) => flagText(s.flag!, s.arg)));

t.test('the parser takes exactly the table\'s flags, and `browserd serve --help` lists exactly them', async (t) => {
  t.same(Object.keys(SERVE_FLAGS).sort(), [...new Set(SETTINGS.filter((s) => s.flag).map((s) => s.flag!))].sort());
  // SERVE_USAGE is what `browserd serve --help` prints under its header (bin/cli.ts; test/cli/cli.test.ts runs the built command).
  const listed = [...SERVE_USAGE.matchAll(/\[(--[^\]]+)\]/g)].map((m) => m[1]!);
  t.equal(new Set(listed).size, listed.length, 'no flag listed twice');
  t.same([...listed].sort(), [...tableFlags].sort(), '--help lists the table\'s flags, no more, no fewer, each with its argument');
});

t.test('the settings table of docs/operations.md names every flag and variable of the table, and no other', async (t) => {
  const { start, end } = markers('settings');
  const doc = readFileSync(join(root, 'docs/operations.md'), 'utf8');
  const i = doc.indexOf(start);
  const j = doc.indexOf(end);
  t.ok(i >= 0 && j > i, `docs/operations.md holds ${start} ... ${end}`);
  const rows = doc.slice(i, j).split('\n').filter((l) => l.startsWith('| ') && !/^\| flag \|/.test(l));
  const flags = new Set<string>();
  const envs = new Set<string>();
  for (const row of rows) {
    const [flag, env] = row.split(/(?<!\\)\|/).slice(1, 3).map((c) => c.trim());
    if (flag) flags.add(/^`([^`]+)`$/.exec(flag)?.[1]?.replace(/\\\|/g, '|') ?? `(not a flag: ${flag})`);
    envs.add(/^`([^`]+)`$/.exec(env ?? '')?.[1] ?? `(not a variable: ${env})`);
  }
  t.equal(envs.size, rows.length, 'a row per variable');
  t.same([...flags].sort(), [...tableFlags].sort(), 'the flags, each with its argument');
  t.same([...envs].sort(), SETTINGS.map((s) => s.env).sort(), 'the variables (a switch with the value that turns it on)');
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
