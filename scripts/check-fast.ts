/**
 * `npm run check:fast`: the edit loop's tier, every test file under test/unit and test/contract (none starts
 * Chromium or a daemon: test/contract/fast-tier.test.ts), no typecheck (`npx tsc -p . --noEmit` alone takes about as
 * long as the whole tier). Starting node, tsx and tap costs about 1.5 CPU seconds per file, more than most of
 * these files' own work, so instead of a process per file (as
 * `npx tap` and `npm run check` do) the files are split over two processes, each importing its share in one
 * module graph (so every file's tests are queued before any runs, as in a process of its own). A file that sets
 * process.env at its top level would change the others, so it gets a process to itself. Prints failures and a
 * count; the whole TAP output is kept in a temp file.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync, createWriteStream } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const FAST_DIRS = ['test/unit', 'test/contract'];

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir)).sort()) {
    const p = join(dir, name);
    if (statSync(join(root, p)).isDirectory()) out.push(...testFiles(p));
    else if (p.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const files = FAST_DIRS.flatMap(testFiles);
const alone = files.filter((f) => /^process\.env\.\w+\s*=/m.test(readFileSync(join(root, f), 'utf8')));
const shared = files.filter((f) => !alone.includes(f));
// Two shares balanced by file size (a rough stand-in for cost), plus one process per file that must be alone.
const shares: string[][] = Array.from({ length: Math.max(1, Math.min(2, availableParallelism())) }, () => []);
const weight = shares.map(() => 0);
for (const f of [...shared].sort((a, b) => statSync(join(root, b)).size - statSync(join(root, a)).size)) {
  const i = weight.indexOf(Math.min(...weight));
  shares[i]!.push(f);
  weight[i]! += statSync(join(root, f)).size;
}
const groups = [...shares.filter((s) => s.length), ...alone.map((f) => [f])];

const dir = mkdtempSync(join(tmpdir(), 'browserd-check-fast-'));
const started = Date.now();
const results = await Promise.all(
  groups.map(
    (group, i) =>
      new Promise<{ log: string; code: number; total: number; pass: number; fail: number }>((resolve) => {
        // .mts: the entry sits outside the package, so it must say it is a module itself.
        const entry = join(dir, `group-${i}.mts`);
        writeFileSync(entry, group.map((f) => `import ${JSON.stringify(pathToFileURL(join(root, f)).href)};\n`).join(''));
        const log = join(dir, `group-${i}.tap`);
        const out = createWriteStream(log);
        // TAP_TIMEOUT bounds the whole process here, not one file; the full suite keeps its per-file 180 s.
        const child = spawn(process.execPath, ['--import', 'tsx', entry], {
          cwd: root,
          env: { ...process.env, TAP_TIMEOUT: '900' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        child.stdout.pipe(out);
        child.stderr.pipe(out);
        child.on('close', (code) => {
          out.end(() => {
            const text = readFileSync(log, 'utf8');
            const m = /^# \{ total: (\d+), pass: (\d+)(?:, fail: (\d+))?/m.exec(text);
            resolve({ log, code: code ?? 1, total: Number(m?.[1] ?? 0), pass: Number(m?.[2] ?? 0), fail: Number(m?.[3] ?? 0) });
          });
        });
      }),
  ),
);

let failed = false;
for (const r of results) {
  if (r.code === 0) continue;
  failed = true;
  // Each failing point with the lines tap printed under it (the file and line are among them).
  const lines = readFileSync(r.log, 'utf8').split('\n');
  const shown: string[] = [];
  lines.forEach((line, i) => {
    if (/^\s*not ok /.test(line) && !/# (TODO|SKIP)/i.test(line)) shown.push(...lines.slice(i, i + 14));
  });
  console.log(`\nFailures (whole output: ${r.log}):`);
  console.log((shown.length ? shown : lines.slice(-40)).slice(0, 300).join('\n'));
}
const sum = (k: 'total' | 'pass' | 'fail') => results.reduce((n, r) => n + r[k], 0);
console.log(`check:fast: ${files.length} files in ${groups.length} processes, ${sum('pass')} passed, ${sum('fail')} failed, ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(failed ? 1 : 0);
