/**
 * `npm run bench`: every benchmark in sequence, each printing its own table, after a note of the machine.
 * `--only NAME` (overhead, snapshot-size, cold-start, read, query, page-load, page-load-settings, isolation, crawl, docs, downloads,
 * traffic, egress, webhooks, act-cache, monitors, model-extract, load, memory, round-trips, http-servers, tool-definitions, fleet) runs one (downloads: the daemon's memory while a 500 MB page
 * download is stored; traffic: page load with browser_har recording off and on and against Playwright's recordHar, a
 * 5,000-entry recording's memory; egress: pages through the private-network guard against the same pages straight to
 * the site, in one Chromium; webhooks: outbox events/s against a bare standardwebhooks + fetch sender, and 100,000
 * rows pending while the receiver is down; act-cache: a 5-step act sequence twice against a fake model at 500 ms, the
 * second run from the action cache; monitors: start drift of 1,000 monitors due at one 5-minute boundary, and their idle
 * memory against 1,000 bare croner jobs; model-extract: tokens sent per extraction of a long article against its whole
 * text, same data extracted; page-load-settings: a 40-resource page with block_ads and the identity on against all
 * off, and the filter lists' parse time, cache load time and memory; load: U users x C concurrent calls for T minutes,
 * latency percentiles, errors, RSS and descriptors, audit entries vs acknowledged calls; memory: PSS of an idle user
 * against an idle Playwright MCP; round-trips: tool calls and characters for one scripted task, ours vs Playwright MCP; http-servers: MCP no-op,
 * click and 50 parallel REST calls on uWebSockets.js against node:http + ws; tool-definitions: tokens and bytes of
 * tools/list, ours against Playwright MCP's; fleet: calls/s for 30 users on three hosts through HAProxy against
 * straight to each user's host).
 * Benchmarks print numbers and never assert times; the exit code is non-zero only when a benchmark could not run at all.
 */
import { machineLines, now } from './lib.js';

// Benchmarks measure the daemon as it serves. The test fixtures switch on a strict check of every result against
// its tool's output schema (BROWSERD_CHECK_OUTPUT); that costs time on every call and is there for tests only.
process.env.BROWSERD_CHECK_OUTPUT ??= '0';

const BENCHMARKS: Record<string, () => Promise<{ run(): Promise<void> }>> = {
  overhead: () => import('./overhead.js'),
  'snapshot-size': () => import('./snapshot-size.js'),
  'cold-start': () => import('./cold-start.js'),
  read: () => import('./read.js'),
  query: () => import('./query.js'),
  'page-load': () => import('./page-load.js'),
  'page-load-settings': () => import('./page-load-settings.js'),
  isolation: () => import('./isolation.js'),
  crawl: () => import('./crawl.js'),
  docs: () => import('./docs.js'),
  downloads: () => import('./downloads.js'),
  traffic: () => import('./traffic.js'),
  egress: () => import('./egress.js'),
  'model-extract': () => import('./model-extract.js'),
  'act-cache': () => import('./act-cache.js'),
  webhooks: () => import('./webhooks.js'),
  monitors: () => import('./monitors.js'),
  load: () => import('./load.js'),
  memory: () => import('./memory.js'),
  'round-trips': () => import('./round-trips.js'),
  'http-servers': () => import('./http-servers.js'),
  'tool-definitions': () => import('./tool-definitions.js'),
  fleet: () => import('./fleet.js'),
};

function parseOnly(argv: string[]): string[] {
  const i = argv.indexOf('--only');
  if (i < 0) return Object.keys(BENCHMARKS);
  const names = (argv[i + 1] ?? '').split(',').filter(Boolean);
  const unknown = names.filter((n) => !(n in BENCHMARKS));
  if (!names.length || unknown.length) {
    console.error(`--only takes one of: ${Object.keys(BENCHMARKS).join(', ')}${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}`);
    process.exit(2);
  }
  return names;
}

const names = parseOnly(process.argv.slice(2));
console.log('# browserd benchmarks\n');
for (const line of machineLines()) console.log(line);
console.log(`date: ${new Date().toISOString()}`);

const failed: string[] = [];
const t0 = now();
for (const name of names) {
  const started = now();
  try {
    const mod = await BENCHMARKS[name]();
    await mod.run();
    console.log(`  (${name}: ${((now() - started) / 1000).toFixed(1)} s)`);
  } catch (e) {
    failed.push(name);
    console.log(`\n## ${name}: FAILED TO RUN\n  ${e instanceof Error ? e.stack ?? e.message : String(e)}`);
  }
}
console.log(`\nall done in ${((now() - t0) / 1000).toFixed(1)} s${failed.length ? `; could not run: ${failed.join(', ')}` : ''}`);
// Open handles (a Chromium pipe, a keep-alive socket) must not keep `npm run bench` waiting.
process.exit(failed.length ? 1 : 0);
