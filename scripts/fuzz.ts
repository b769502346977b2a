/**
 * `npm run fuzz`: the property tests' long run. Every tool and REST-only operation gets N generated calls
 * (default 10,000; valid, near-valid and hostile, over MCP and REST) against one test daemon with real Chromium
 * and a loopback fixture site, with the same property and arbitraries as test/property/*.test.ts. Prints the
 * seed, and for each failure fast-check's shrunk counterexample; exits 1 if any subject failed.
 *
 *   npm run fuzz -- [--runs N] [--seed S] [--tool name]...
 */
import { DEFAULT_SEED, outcomeLine, planFor, resetAlice, runProperty, startWorld, stillServing, subjects } from '../test/property/harness.js';

function parseArgs(argv: string[]) {
  const opts = { runs: 10_000, seed: DEFAULT_SEED, tools: [] as string[] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--runs') opts.runs = Number(value());
    else if (a === '--seed') opts.seed = Number(value());
    else if (a === '--tool') opts.tools.push(value());
    else throw new Error(`unknown option ${a} (use --runs N, --seed S, --tool name)`);
  }
  if (!Number.isInteger(opts.runs) || opts.runs < 1) throw new Error('--runs must be a whole number of at least 1');
  if (!Number.isInteger(opts.seed)) throw new Error('--seed must be a whole number');
  return opts;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const all = subjects();
  const unknown = opts.tools.filter((n) => !all.some((s) => s.name === n));
  if (unknown.length) throw new Error(`no tool or operation named ${unknown.join(', ')}`);
  const chosen = opts.tools.length ? all.filter((s) => opts.tools.includes(s.name)) : all;
  console.log(`fuzz: seed ${opts.seed}, ${opts.runs} cases for each of ${chosen.length} tools and operations (rerun with --seed ${opts.seed})`);
  const w = await startWorld();
  const failures: string[] = [];
  try {
    for (const s of chosen) {
      const started = Date.now();
      w.outcomes.clear();
      await resetAlice(w);
      // The same kinds of case as in the test, only many more of them.
      const failure = (await runProperty(w, s, { runs: opts.runs, seed: opts.seed, mix: planFor(s.name).mix })) ?? (await stillServing(w));
      console.log(`${failure ? 'FAIL' : 'ok  '} ${s.name} (${((Date.now() - started) / 1000).toFixed(1)} s): ${outcomeLine(w)}`);
      if (failure) {
        console.log(failure);
        failures.push(s.name);
      }
    }
  } finally {
    await w.stop();
  }
  console.log(failures.length ? `fuzz: ${failures.length} failed (${failures.join(', ')}); seed ${opts.seed}` : `fuzz: all held; seed ${opts.seed}`);
  process.exitCode = failures.length ? 1 : 0;
}

main().catch((e) => {
  console.error(`fuzz: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
});
