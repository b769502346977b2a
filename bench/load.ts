/**
 * Load: U users, each with C MCP sessions calling at once, for T minutes, against the loopback bench site. Each
 * session keeps one tab of its own on /load and loops over a realistic mix (open a new tab, snapshot, click, type,
 * read, query). Printed: p50/p95/p99 per tool, errors by code, RSS and open descriptors of the daemon and of its
 * Chromiums over time, RSS growth over the last half, and audit entries against acknowledged calls (every
 * answered call, refusals included, is audited before its answer, so the two must be equal). Then the same mix
 * for one user alone, for the "p95 under 4x the one-user p95" comparison.
 *
 * `npm run bench` runs the daemon as its own process (`browserd serve` from the bundle, as an operator starts it), so
 * its RSS, descriptors and CPU are its own. runLoad can also run it in this process (the suite's short run does,
 * for the tab-start counters it reads), started without the test fixture's collectors, which keep every log line
 * and result and would grow; then the bench site and the load generator's clients add to the RSS read.
 * Knobs: BENCH_LOAD_USERS / --users (4), BENCH_LOAD_CONCURRENCY / --concurrency (4), BENCH_LOAD_MINUTES /
 * --minutes (2). Prints numbers, asserts nothing.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loadConfig } from '../daemon/config.js';
import { statFields } from '../daemon/proc-stat.js';
import { startDaemon, type Daemon } from '../daemon/main.js';
import { startBenchSite, loadPage, type BenchSite } from './pages.js';
import { RESOLVER_RULES, mcpText, ms, now, printTable, quantile } from './lib.js';
import { startServeProcess } from './serve-process.js';

export interface LoadOptions {
  users: number;
  concurrency: number;
  durationMs: number;
  /** How often RSS and descriptors are sampled. */
  sampleEveryMs?: number;
  /** Run the daemon as a `browserd serve` process of its own instead of in this process. */
  ownProcess?: boolean;
}

export interface Sample {
  atS: number;
  daemonRssMb: number;
  daemonFds: number;
  chromiumRssMb: number;
  /** The same processes' PSS: shared pages (the binary, fonts) counted once, not once per process as in RSS. */
  chromiumPssMb: number;
  chromiumFds: number;
  chromiumProcs: number;
  /** CPU time the daemon's process has used so far, seconds (in-process: this process, site and clients too). */
  processCpuS: number;
  /** CPU time every user's Chromium has used so far (live processes, and the exited ones their parents reaped), seconds. */
  chromiumCpuS: number;
}

export interface LoadResult {
  opts: LoadOptions;
  /** Latency of every answered call, by tool. */
  latencies: Map<string, number[]>;
  /** Error answers by code (an isError result is still an acknowledged call). */
  errors: Map<string, number>;
  /** A few error texts, for the report. */
  errorSamples: string[];
  /** Calls that got no answer at all (the transport failed): not acknowledged, not expected in the audit. */
  unanswered: number;
  acknowledged: number;
  audited: number;
  samples: Sample[];
  /** After the load stopped: every user's browser_tabs and a snapshot of one of its tabs answered. */
  stillServing: boolean;
  wallMs: number;
  /** The host's turns for building tabs (daemon/browser/tab-starts.ts): slots, builds, the longest line; read in-process only. */
  tabStarts?: { slots: number; started: number; longestQueue: number };
}

/** Tools that start a navigation; the others are held to the one-user comparison. */
export const NAVIGATING = new Set(['browser_open', 'browser_close_tab']);

/** The mix: weights out of 100, what a browsing agent does most (look, act, read) and a new tab now and then. */
const MIX: [op: 'open' | 'snapshot' | 'click' | 'type' | 'read' | 'query', weight: number][] = [
  ['snapshot', 25],
  ['click', 20],
  ['type', 15],
  ['read', 15],
  ['query', 15],
  ['open', 10],
];

function numberOpt(flag: string, env: string, fallback: number): number {
  const argv = process.argv;
  const i = argv.indexOf(flag);
  const raw = i >= 0 ? argv[i + 1] : process.env[env];
  const n = raw === undefined ? NaN : Number(raw);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

// ------------------------------------------------------------------ /proc

function readProc(pid: number, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined; // the process ended between listing and reading
  }
}

function rssKb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readProc(pid, 'status') ?? '')?.[1] ?? 0);
}

/**
 * Pss and private pages of a process (/proc/<pid>/smaps_rollup, kB). Pss counts a page shared by n processes as 1/n
 * in each, so a sum over processes counts shared pages once; private pages (Private_Clean + Private_Dirty) are
 * what ending the process frees for sure.
 */
export function smapsRollup(pid: number): { pssKb: number; ussKb: number } {
  const s = readProc(pid, 'smaps_rollup');
  if (!s) return { pssKb: 0, ussKb: 0 };
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(s)?.[1] ?? 0);
  return { pssKb: kb('Pss'), ussKb: kb('Private_Clean') + kb('Private_Dirty') };
}

/** Clock ticks per second in /proc/<pid>/stat (USER_HZ: 100 on Linux). */
const TICKS_PER_S = 100;

/** CPU seconds of a process from /proc/<pid>/stat: its own user and system time, and with `reaped` its reaped children's. */
function cpuSeconds(pid: number, reaped: boolean): number {
  const stat = readProc(pid, 'stat');
  if (!stat) return 0;
  // Fields after the command name (which may hold spaces), from field 3: utime is 14, stime 15, cutime 16, cstime 17.
  const f = statFields(stat).map(Number);
  const own = f[11]! + f[12]!;
  return (reaped ? own + f[13]! + f[14]! : own) / TICKS_PER_S;
}

function fdCount(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
}

/**
 * The command line of a process, split into arguments. Chromium's child processes rewrite theirs (one string,
 * spaces between the arguments, as setproctitle leaves it), so both separators count.
 */
export function argvOf(pid: number): string[] {
  return (readProc(pid, 'cmdline') ?? '').split(/[\0 ]/).filter(Boolean); // none when it ended meanwhile
}

/** Part of the browser: Chromium itself or Debian's wrapper script that started it. */
export function isBrowser(pid: number): boolean {
  const argv = argvOf(pid);
  return argv.some((a) => /\/(chromium|chrome|headless_shell)$/.test(a) || /^--type=/.test(a));
}

/** A process and every process under it (Chromium's zygotes, renderers, GPU and utility processes). */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readProc(Number(name), 'stat');
    if (!stat) continue;
    // The command name is in parentheses and may hold spaces; the parent pid is the second field after it.
    const ppid = Number(statFields(stat)[1]);
    const list = children.get(ppid) ?? [];
    list.push(Number(name));
    children.set(ppid, list);
  }
  const out: number[] = [];
  const todo = [root];
  while (todo.length) {
    const p = todo.pop()!;
    out.push(p);
    todo.push(...(children.get(p) ?? []));
  }
  return out;
}

function sample(daemon: DaemonUnderLoad, t0: number): Sample {
  let chromiumRss = 0;
  let chromiumPss = 0;
  let chromiumFds = 0;
  let chromiumCpu = 0;
  const pids = daemon.chromiumPids();
  for (const p of pids) {
    chromiumRss += rssKb(p);
    chromiumPss += smapsRollup(p).pssKb;
    chromiumFds += fdCount(p);
    chromiumCpu += cpuSeconds(p, true);
  }
  return {
    atS: (now() - t0) / 1000,
    daemonRssMb: rssKb(daemon.pid) / 1024,
    daemonFds: fdCount(daemon.pid),
    chromiumRssMb: chromiumRss / 1024,
    chromiumPssMb: chromiumPss / 1024,
    chromiumFds,
    chromiumProcs: pids.length,
    processCpuS: cpuSeconds(daemon.pid, false),
    chromiumCpuS: chromiumCpu,
  };
}

// ------------------------------------------------------------------ the daemon under load

/** The daemon a run drives, in this process or its own: what the run reads of it. */
interface DaemonUnderLoad {
  url: string;
  /** The process whose RSS, descriptors and CPU are the daemon's. */
  pid: number;
  tokens: Map<string, string>;
  /** Every process of every user's Chromium. */
  chromiumPids(): number[];
  /** The audit entries of the run's users (the mix's calls; nothing else is called before this is read). */
  audited(): Promise<number>;
  tabStarts(): LoadResult['tabStarts'];
  stop(): Promise<void>;
}

/** The daemon's settings for a run, as environment: the same whether it runs in this process or as its own. */
function baseConfigEnv(opts: LoadOptions): Record<string, string> {
  // The bench site's names map to loopback and nothing else resolves (a JSON list: the rules hold spaces).
  return { BROWSERD_ALLOW_PRIVATE_NETWORK: '1', BROWSERD_MAX_BROWSERS: String(opts.users + 1), BROWSERD_CHROME_ARGS: JSON.stringify([RESOLVER_RULES]) };
}

async function daemonInProcess(opts: LoadOptions, users: string[], dataDir: string): Promise<DaemonUnderLoad> {
  const cfg = loadConfig({ listen: '127.0.0.1:0', data: dataDir }, { ...process.env, ...baseConfigEnv(opts) });
  // Warnings and errors only: an info line per call is the operator's, and would be the bench's own noise.
  const daemon: Daemon = await startDaemon(cfg, pino({ level: 'warn' }));
  const tokens = new Map<string, string>();
  for (const u of users) tokens.set(u, (await daemon.env.users.add(u)).token);
  return {
    url: daemon.url,
    pid: process.pid,
    tokens,
    chromiumPids: () => users.flatMap((u) => {
      const pid = daemon.env.pool.peek(u)?.pid;
      return pid ? processTree(pid) : [];
    }),
    audited: async () => daemon.env.audit.all(Number.MAX_SAFE_INTEGER).filter((e) => users.includes(e.user)).length,
    tabStarts: () => {
      const gate = daemon.env.pool.tabStarts;
      return { slots: gate.slots, started: gate.started, longestQueue: gate.longestQueue };
    },
    stop: () => daemon.stop(),
  };
}

async function daemonProcess(opts: LoadOptions, users: string[], dataDir: string): Promise<DaemonUnderLoad> {
  const serve = await startServeProcess({ dataDir, users, env: { ...process.env, ...baseConfigEnv(opts), BROWSERD_LOG_LEVEL: 'info' } });
  // At the default log level, as an operator runs it (its listening line is an info line); its log is read and dropped.
  const { child, url, tokens } = serve;
  return {
    url,
    pid: child.pid!,
    tokens,
    // Everything under the daemon but the daemon is a Chromium process (each user's, and Debian's wrapper script).
    chromiumPids: () => processTree(child.pid!).filter((p) => p !== child.pid && isBrowser(p)),
    audited: async () => {
      let n = 0;
      for (const token of tokens.values()) {
        for (let cursor: string | undefined, more = true; more; ) {
          const res = await fetch(`${url}/v1/audit?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { headers: { Authorization: `Bearer ${token}` } });
          const page = (await res.json()) as { entries?: { tool?: string }[]; cursor?: string };
          if (!res.ok || !page.entries) throw new Error(`GET /v1/audit answered ${res.status}`);
          n += page.entries.filter((e) => e.tool?.startsWith('browser_')).length;
          cursor = page.cursor;
          more = !!cursor;
        }
      }
      return n;
    },
    tabStarts: () => undefined,
    stop: serve.stop,
  };
}

// ------------------------------------------------------------------ one session's loop

interface Tally {
  latencies: Map<string, number[]>;
  errors: Map<string, number>;
  errorSamples: string[];
  unanswered: number;
  acknowledged: number;
}

async function connect(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'browserd-load', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

/** One call, timed and tallied; the text, or undefined when the answer was an error or never came. */
async function timedCall(client: Client, tally: Tally, tool: string, args: Record<string, unknown>): Promise<string | undefined> {
  const t0 = now();
  let r;
  try {
    r = await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 120_000 });
  } catch (e) {
    tally.unanswered++;
    if (tally.errorSamples.length < 10) tally.errorSamples.push(`${tool}: no answer: ${e instanceof Error ? e.message : e}`);
    return undefined;
  }
  const dt = now() - t0;
  tally.acknowledged++;
  const text = mcpText(r);
  if (r.isError) {
    const code = /^Error \[(\w+)\]/.exec(text)?.[1] ?? 'unparsed';
    tally.errors.set(code, (tally.errors.get(code) ?? 0) + 1);
    if (tally.errorSamples.length < 10) tally.errorSamples.push(`${tool}: ${text.split('\n')[0].slice(0, 200)}`);
    return undefined;
  }
  const xs = tally.latencies.get(tool) ?? [];
  xs.push(dt);
  tally.latencies.set(tool, xs);
  return text;
}

function pick(r: () => number) {
  let x = r() * 100;
  for (const [op, w] of MIX) {
    if (x < w) return op;
    x -= w;
  }
  return MIX[0][0];
}

/** A seeded generator, so every run draws the same sequence of operations per session. */
function seeded(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function session(client: Client, pageUrl: string, tally: Tally, deadline: number, seed: number): Promise<string | undefined> {
  const r = seeded(seed);
  let tab: string | undefined;
  let refs: { add?: string; note?: string } = {};
  const open = async () => {
    const text = await timedCall(client, tally, 'browser_open', { url: pageUrl, mode: 'act', live: 'none' });
    const id = text && /Opened tab (\S+)/.exec(text)?.[1];
    if (!id) return;
    // One tab per session: the old one goes, as an agent done with a page closes it.
    if (tab) await timedCall(client, tally, 'browser_close_tab', { tab });
    tab = id;
    refs = {};
  };
  const snapshot = async () => {
    const text = await timedCall(client, tally, 'browser_snapshot', { tab });
    if (!text) return;
    refs = {
      add: /button "Add one" \[ref=(e\d+)\]/.exec(text)?.[1],
      note: /textbox "Note" \[ref=(e\d+)\]/.exec(text)?.[1],
    };
  };
  while (now() < deadline) {
    if (!tab) {
      await open();
      if (!tab) continue;
    }
    const op = pick(r);
    // Acting needs a ref, and refs come from a snapshot of this tab (as for an agent).
    if ((op === 'click' && !refs.add) || (op === 'type' && !refs.note)) {
      await snapshot();
      continue;
    }
    switch (op) {
      case 'open':
        await open();
        break;
      case 'snapshot':
        await snapshot();
        break;
      case 'click':
        await timedCall(client, tally, 'browser_click', { tab, ref: refs.add });
        break;
      case 'type':
        await timedCall(client, tally, 'browser_type', { tab, ref: refs.note, text: `note ${Math.floor(r() * 1e6)}`, clear: true });
        break;
      case 'read':
        await timedCall(client, tally, 'browser_read_text', { tab });
        break;
      case 'query':
        await timedCall(client, tally, 'browser_query', { tab, css: 'li.item', limit: 20 });
        break;
    }
  }
  return tab;
}

// ------------------------------------------------------------------ a run

/** Starts a daemon and a bench site of its own, runs the load, checks the audit, stops both. */
export async function runLoad(opts: LoadOptions, site?: BenchSite): Promise<LoadResult> {
  const ownSite = !site;
  const bench = site ?? (await startBenchSite());
  bench.site.route('/load', loadPage());
  const dataDir = mkdtempSync(join(tmpdir(), 'browserd-load-'));
  const users = Array.from({ length: opts.users }, (_, i) => `load${i + 1}`);
  const daemon = await (opts.ownProcess ? daemonProcess : daemonInProcess)(opts, users, dataDir);
  const tally: Tally = { latencies: new Map(), errors: new Map(), errorSamples: [], unanswered: 0, acknowledged: 0 };
  const samples: Sample[] = [];
  const clients: Client[] = [];
  let stillServing = false;
  let tabStarts: LoadResult['tabStarts'];
  let audited = 0;
  const t0 = now();
  try {
    const tokens = daemon.tokens;
    const perUser = new Map<string, Client[]>();
    for (const u of users) {
      const cs: Client[] = [];
      for (let c = 0; c < opts.concurrency; c++) cs.push(await connect(daemon.url, tokens.get(u)!));
      perUser.set(u, cs);
      clients.push(...cs);
    }
    const every = opts.sampleEveryMs ?? 5000;
    samples.push(sample(daemon, t0));
    const timer = setInterval(() => {
      samples.push(sample(daemon, t0));
      // The fixture site logs every request for tests; a load run would grow that log without end.
      bench.site.requests.length = 0;
    }, every);
    const deadline = now() + opts.durationMs;
    let lastTabs: (string | undefined)[] = [];
    try {
      lastTabs = await Promise.all(users.flatMap((u, ui) => perUser.get(u)!.map((c, ci) => session(c, bench.url('/load'), tally, deadline, 1000 * ui + ci + 1))));
    } finally {
      clearInterval(timer);
    }
    samples.push(sample(daemon, t0));
    // Every answered call is on disk in the audit before its answer went out; count this run's entries.
    audited = await daemon.audited();
    // Still serving: each user lists its tabs and snapshots one (outside the tally: checks, not load).
    stillServing = true;
    for (const [ui, u] of users.entries()) {
      const c = perUser.get(u)![0];
      const tabs = await c.callTool({ name: 'browser_tabs', arguments: {} }).catch(() => undefined);
      const tab = lastTabs[ui * opts.concurrency];
      const snap = tab ? await c.callTool({ name: 'browser_snapshot', arguments: { tab } }).catch(() => undefined) : undefined;
      if (!tabs || tabs.isError || !snap || snap.isError || !/Add one/.test(mcpText(snap))) stillServing = false;
    }
  } finally {
    tabStarts = daemon.tabStarts();
    for (const c of clients) await c.close().catch(() => undefined);
    await daemon.stop();
    rmSync(dataDir, { recursive: true, force: true });
    if (ownSite) await bench.close();
  }
  return { opts, ...tally, audited, samples, stillServing, wallMs: now() - t0, tabStarts };
}

// ------------------------------------------------------------------ report

/** RSS growth over the last half: the mean of the last three samples against the three around the middle. */
export function lastHalfGrowth(samples: Sample[], key: 'daemonRssMb' | 'chromiumRssMb' | 'chromiumPssMb'): number {
  if (samples.length < 6) return NaN;
  const mid = Math.floor(samples.length / 2);
  const mean = (xs: Sample[]) => xs.reduce((s, x) => s + x[key], 0) / xs.length;
  const a = mean(samples.slice(mid - 1, mid + 2));
  const b = mean(samples.slice(-3));
  return (b - a) / a;
}

function pct(x: number): string {
  return Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : 'n/a';
}

export async function run(): Promise<void> {
  const users = numberOpt('--users', 'BENCH_LOAD_USERS', 4);
  const concurrency = numberOpt('--concurrency', 'BENCH_LOAD_CONCURRENCY', 4);
  const minutes = numberOpt('--minutes', 'BENCH_LOAD_MINUTES', 2);
  const site = await startBenchSite();
  let main: LoadResult;
  let alone: LoadResult;
  try {
    main = await runLoad({ users, concurrency, durationMs: minutes * 60_000, ownProcess: true }, site);
    // The one-user baseline: the same mix and the same concurrency per user, a quarter of the time (30 s at least).
    alone = await runLoad({ users: 1, concurrency, durationMs: Math.max(30_000, (minutes * 60_000) / 4), ownProcess: true }, site);
  } finally {
    await site.close();
  }

  const tools = [...new Set([...main.latencies.keys(), ...alone.latencies.keys()])].sort();
  const rows = tools.map((t) => {
    const xs = main.latencies.get(t) ?? [];
    const one = alone.latencies.get(t) ?? [];
    const ratio = quantile(xs, 0.95) / quantile(one, 0.95);
    return [t, xs.length, ms(quantile(xs, 0.5)), ms(quantile(xs, 0.95)), ms(quantile(xs, 0.99)), ms(quantile(one, 0.95)), NAVIGATING.has(t) ? `${ratio.toFixed(2)}x (navigates)` : `${ratio.toFixed(2)}x`];
  });
  const calls = main.acknowledged + main.unanswered;
  printTable(
    `Load: ${users} users x ${concurrency} concurrent calls for ${minutes} min (MCP, the daemon as its own process, loopback site)`,
    ['tool', 'calls', 'p50', 'p95', 'p99', 'one-user p95', 'p95 / one-user'],
    rows,
    [
      `${calls} calls in ${(main.wallMs / 1000).toFixed(0)} s (${(calls / (main.wallMs / 1000)).toFixed(1)} calls/s); one user alone: ${alone.acknowledged} calls in ${(alone.wallMs / 1000).toFixed(0)} s.`,
      `mix: ${MIX.map(([op, w]) => `${op} ${w}%`).join(', ')}; an open also closes the session's previous tab; click and type snapshot first when they have no ref.`,
      'goal: p95 of the non-navigating tools under 4x the one-user p95.',
      main.tabStarts && alone.tabStarts
        ? `tab builds at once over the host: ${main.tabStarts.slots} (BROWSERD_TAB_STARTS; default half the cores); ${main.tabStarts.started} built, at most ${main.tabStarts.longestQueue} waiting for a turn (one user alone: at most ${alone.tabStarts.longestQueue}).`
        : 'tab builds at once over the host: BROWSERD_TAB_STARTS (default half the cores); its counters are read when the daemon runs in this process.',
    ],
  );

  const errRows = [...main.errors].map(([code, n]) => ['load', code, n]).concat([...alone.errors].map(([code, n]) => ['one user', code, n]));
  if (main.unanswered) errRows.push(['load', '(no answer: transport failed)', main.unanswered]);
  if (alone.unanswered) errRows.push(['one user', '(no answer: transport failed)', alone.unanswered]);
  printTable('Load: errors by code', ['run', 'code', 'count'], errRows.length ? errRows : [['both', 'none', 0]], [
    'Every error here is unexpected: the mix only does what the page allows.',
    ...main.errorSamples.concat(alone.errorSamples).slice(0, 5).map((s) => `e.g. ${s}`),
  ]);

  const step = Math.max(1, Math.floor(main.samples.length / 12));
  const shown = main.samples.filter((_, i) => i % step === 0 || i === main.samples.length - 1);
  printTable(
    'Load: memory and descriptors over time',
    ['at', 'daemon RSS', 'daemon fds', 'Chromium RSS (all users)', 'Chromium PSS (all users)', 'Chromium fds', 'Chromium processes'],
    shown.map((s) => [`${s.atS.toFixed(0)} s`, `${s.daemonRssMb.toFixed(0)} MB`, s.daemonFds, `${s.chromiumRssMb.toFixed(0)} MB`, `${s.chromiumPssMb.toFixed(0)} MB`, s.chromiumFds, s.chromiumProcs]),
    [
      `RSS growth over the last half: daemon ${pct(lastHalfGrowth(main.samples, 'daemonRssMb'))}, Chromium ${pct(lastHalfGrowth(main.samples, 'chromiumRssMb'))} (PSS ${pct(lastHalfGrowth(main.samples, 'chromiumPssMb'))}); goal under 5%; the mean of the last 3 samples vs the 3 around the middle.`,
      "Daemon RSS is the `browserd serve` process alone (the bench site and the MCP clients run in the bench's process); it moves with V8's collections.",
      "Chromium RSS sums every process of every user's browser, shared pages counted in each; PSS counts them once.",
      ...[main, alone].map((r) => cpuLine(r === main ? 'load' : 'one user', r)),
    ],
  );

  const audit = (name: string, r: LoadResult) => [name, r.acknowledged, r.audited, r.acknowledged === r.audited ? 'equal' : 'MISMATCH', r.stillServing ? 'yes' : 'NO'];
  printTable('Load: audit entries vs acknowledged calls', ['run', 'acknowledged calls', 'audit entries', 'check', 'still serving after'], [audit('load', main), audit('one user', alone)]);
  for (const r of [main, alone]) {
    if (r.acknowledged !== r.audited) console.log(`\n  !!! MISMATCH: ${r.opts.users} user(s): ${r.acknowledged} calls acknowledged but ${r.audited} audit entries !!!`);
  }
}

/**
 * Where the time went: CPU seconds of the daemon's process and of every user's
 * Chromium between the first and last samples, per acknowledged call, and how busy that kept the machine's cores.
 */
function cpuLine(name: string, r: LoadResult): string {
  const first = r.samples[0];
  const last = r.samples.at(-1);
  if (!first || !last || last.atS <= first.atS) return `CPU (${name}): not sampled`;
  const proc = last.processCpuS - first.processCpuS;
  const chromium = last.chromiumCpuS - first.chromiumCpuS;
  const wall = last.atS - first.atS;
  const calls = Math.max(1, r.acknowledged);
  const busy = (100 * (proc + chromium)) / (wall * cpus().length);
  return `CPU (${name}): the daemon ${proc.toFixed(0)} s, Chromium ${chromium.toFixed(0)} s in ${wall.toFixed(0)} s on ${cpus().length} cores (${busy.toFixed(0)}% busy); per call ${((1000 * proc) / calls).toFixed(1)} ms + ${((1000 * chromium) / calls).toFixed(1)} ms.`;
}
