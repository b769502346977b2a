/**
 * Memory per idle user, side by side, in one run: PSS (from /proc/<pid>/smaps_rollup: a page shared by n
 * processes counts 1/n in each, so summing over a set of processes counts shared pages once) of
 *   ours:       a `browserd serve` process (its own process, started as an operator starts it) with one user whose
 *               Chromium has one tab after one navigation, idle: the daemon's PSS + every process of that Chromium;
 *   Playwright: a Playwright MCP server (stdio, its own process, Debian's chromium, headless, isolated) after one
 *               browser_navigate to the same page, idle: the server's PSS + every process of its browser.
 * Both sides are measured at the same instants, Playwright MCP staying up while each browserd variant runs: on a
 * shared host other Chromiums map the same binary and split its pages, and measured together both sides see the
 * same neighbours (they split the binary's pages with each other alike). The default is measured 8, 30 and 60 s
 * after the navigation (IDLE_AT_S), the rest at 60 s. The variants are ours with a lever set from outside (extra
 * Chromium switches through BROWSERD_CHROME_ARGS, Node flags for the daemon, or environment such as a short idle
 * close), without changing the defaults; the last is the defaults with four users of one daemon against four
 * Playwright MCP servers, per user.
 * Prints numbers; asserts nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startBenchSite } from './pages.js';
import { startPlaywrightMcp, mcpText, median, printTable } from './lib.js';
import { argvOf, isBrowser, processTree, smapsRollup } from './load.js';
import { startServeProcess, type ServeProcess } from './serve-process.js';

/**
 * When both sides are measured, in seconds idle after their navigation, and the samples taken at each. Node and
 * Chromium give back what a burst of work grew (V8's young generation above all) some seconds after the work
 * stops, when V8's memory reducer runs (it starts 8 s after a collection that finds the heap no longer growing):
 * the first instant shows memory still holding the navigation's work, the last one what an idle user costs for as
 * long as it stays idle. The goal is read at the last; every variant is measured there.
 */
const IDLE_AT_S = [8, 30, 60];
const STEADY_S = IDLE_AT_S[IDLE_AT_S.length - 1]!;
const SAMPLES = 3;
/** Users of the shared-daemon row. */
const SHARED_USERS = 4;
/** The idle close the last lever sets (the default is 30 minutes). */
const IDLE_CLOSE_S = 5;

type Rollup = ReturnType<typeof smapsRollup>;

/** Chromium's kind of process (browser, zygote, renderer, gpu-process, utility:network...), or the program's name. */
function kindOf(pid: number): string {
  const argv = argvOf(pid);
  const type = argv.find((a) => a.startsWith('--type='))?.slice(7);
  const sub = argv.find((a) => a.startsWith('--utility-sub-type='))?.slice(19).split('.')[0];
  if (type) return sub ? `${type}:${sub}` : type;
  const prog = (argv[0] ?? '?').split('/').pop()!;
  return /^(chromium|chrome|headless_shell)$/.test(prog) ? 'browser' : prog;
}

interface Measure {
  /** The server process (daemon or Playwright MCP's node) and its helpers that are no browser (tsx's esbuild). */
  server: Rollup;
  /** Every process under the server: the browser and its children (and Debian's wrapper script). */
  browser: Rollup;
  processes: string[];
}

function measureTree(serverPid: number): Measure {
  const tree = processTree(serverPid);
  const server = { pssKb: 0, ussKb: 0 };
  const browser = { pssKb: 0, ussKb: 0 };
  for (const p of tree) {
    const r = smapsRollup(p);
    const into = p !== serverPid && isBrowser(p) ? browser : server;
    into.pssKb += r.pssKb;
    into.ussKb += r.ussKb;
  }
  return { server, browser, processes: tree.filter((p) => p !== serverPid).map(kindOf) };
}

/**
 * Both sides measured at the same instants, at each of `atS` seconds after `since`: the median of a few samples a
 * second apart. Taken together, other processes on the machine (a shared host runs other Chromiums mapping the
 * same binary, which splits its pages further) move both sides alike. One Measure per side, per instant.
 */
async function idleMeasure(serverPids: number[], since: number, atS: number[]): Promise<Measure[][]> {
  const out: Measure[][] = [];
  for (const s of atS) {
    // Idle is a duration: nothing to await but time.
    await new Promise((r) => setTimeout(r, Math.max(0, since + s * 1000 - Date.now())));
    const samples: Measure[][] = [];
    for (let i = 0; i < SAMPLES; i++) {
      samples.push(serverPids.map(measureTree));
      await new Promise((r) => setTimeout(r, 1000));
    }
    out.push(serverPids.map((_, k) => {
      const ms = samples.map((x) => x[k]);
      const med = (f: (m: Measure) => number) => median(ms.map(f));
      return {
        server: { pssKb: med((m) => m.server.pssKb), ussKb: med((m) => m.server.ussKb) },
        browser: { pssKb: med((m) => m.browser.pssKb), ussKb: med((m) => m.browser.ussKb) },
        processes: ms[ms.length - 1].processes,
      };
    }));
  }
  return out;
}

// ------------------------------------------------------------------ ours: `browserd serve` as its own process

/** `browserd serve` with `v.users` users (1 by default), each with one tab that has loaded url; stop() ends the daemon (and its Chromiums). */
async function startOurs(url: string, v: Variant): Promise<{ pid: number; stop(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'browserd-bench-mem-'));
  const env = { ...process.env, BROWSERD_ALLOW_PRIVATE_NETWORK: '1', BROWSERD_CHROME_ARGS: JSON.stringify(v.chromeArgs ?? []), BROWSERD_LOG_LEVEL: 'info', ...v.env };
  const users = Array.from({ length: v.users ?? 1 }, (_, i) => `idle${i + 1}`);
  let serve: ServeProcess | undefined;
  const stop = async () => {
    await serve?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    serve = await startServeProcess({ dataDir, users, env, nodeArgs: v.nodeArgs });
    for (const user of users) {
      const client = new Client({ name: 'browserd-bench-memory', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${serve.tokens.get(user)}` } } }));
      const r = await client.callTool({ name: 'browser_open', arguments: { url } });
      if (r.isError) throw new Error(`browser_open failed: ${mcpText(r)}`);
      await client.close();
    }
  } catch (e) {
    await stop();
    throw e;
  }
  return { pid: serve.child.pid!, stop };
}

/** Waits for the daemon to close its idle browser: no process of it is left under the daemon. */
async function browserGone(daemonPid: number): Promise<void> {
  const t0 = Date.now();
  // Another process's exit, with no event of it to await here: look every quarter second.
  while (processTree(daemonPid).some((p) => p !== daemonPid && isBrowser(p))) {
    if (Date.now() - t0 > (IDLE_CLOSE_S + 60) * 1000) throw new Error('the idle browser was not closed');
    await new Promise((r) => setTimeout(r, 250));
  }
}

// ------------------------------------------------------------------ Playwright MCP

/** The Playwright MCP server started by startPlaywrightMcp: this process's child running its cli.js. */
function playwrightServerPid(): number {
  for (const p of processTree(process.pid)) {
    if (p !== process.pid && argvOf(p).some((a) => a.includes('@playwright/mcp'))) return p;
  }
  throw new Error('Playwright MCP server process not found under this process');
}

/** A Playwright MCP server whose browser has loaded url. */
async function startPlaywright(url: string): Promise<{ pid: number; stop(): Promise<void> }> {
  const pw = await startPlaywrightMcp();
  try {
    const r = await pw.client.callTool({ name: 'browser_navigate', arguments: { url } });
    if (r.isError) throw new Error(`Playwright browser_navigate failed: ${mcpText(r)}`);
    return { pid: playwrightServerPid(), stop: () => pw.close() };
  } catch (e) {
    await pw.close();
    throw e;
  }
}

// ------------------------------------------------------------------ report

const scale = (r: Rollup, f: number): Rollup => ({ pssKb: r.pssKb * f, ussKb: r.ussKb * f });
const add = (a: Rollup, b: Rollup): Rollup => ({ pssKb: a.pssKb + b.pssKb, ussKb: a.ussKb + b.ussKb });
/** Several servers with their browsers as one side. */
const sumOf = (ms: Measure[]): Measure => ms.reduce((a, b) => ({ server: add(a.server, b.server), browser: add(a.browser, b.browser), processes: [...a.processes, ...b.processes] }));
const perUser = (m: Measure, users: number): Measure => ({ ...m, server: scale(m.server, 1 / users), browser: scale(m.browser, 1 / users) });
const mb = (kb: number) => `${(kb / 1024).toFixed(1)} MB`;
const total = (m: Measure) => m.server.pssKb + m.browser.pssKb;
const totalUss = (m: Measure) => m.server.ussKb + m.browser.ussKb;

function processSummary(m: Measure): string {
  const counts = new Map<string, number>();
  for (const k of m.processes) counts.set(k, (counts.get(k) ?? 0) + 1);
  return [...counts].map(([k, n]) => (n > 1 ? `${k} x${n}` : k)).join(', ');
}

/** A way of running ours: extra Chromium switches, Node flags for the daemon, environment. */
interface Variant {
  name: string;
  chromeArgs?: string[];
  nodeArgs?: string[];
  env?: Record<string, string>;
  /** Measured once the daemon has closed its idle browser (BROWSERD_BROWSER_IDLE_S in env). */
  afterIdleClose?: boolean;
  /** Idle users of one daemon, each with a browser of its own; their figures are divided by this (default 1). */
  users?: number;
}

/**
 * Levers tried beside the default, each without changing the defaults: Chromium switches that leave a process
 * out (the network service already runs in the browser process: the egress guard needs it there, switches.ts),
 * the daemon's young generation capped, and the browser closed once idle.
 */
const LEVERS: Variant[] = [
  { name: 'no spare renderer', chromeArgs: ['--disable-features=SpareRendererForSitePerProcess'] },
  { name: 'renderer process limit 1', chromeArgs: ['--renderer-process-limit=1'] },
  // WebGL gone with it: pages that draw with it break, and the identity's WebGL strings mean nothing.
  { name: 'no software GPU (no WebGL)', chromeArgs: ['--disable-gpu', '--disable-software-rasterizer'] },
  { name: 'daemon young generation at most 4 MB a semi-space', nodeArgs: ['--max-semi-space-size=4'] },
  { name: `idle browser closed (BROWSERD_BROWSER_IDLE_S=${IDLE_CLOSE_S})`, env: { BROWSERD_BROWSER_IDLE_S: String(IDLE_CLOSE_S) }, afterIdleClose: true },
  // Not a lever: the defaults, with the daemon shared as it is on a service, against as many Playwright MCP servers
  // (it serves one user per server), each side's total divided by the users.
  { name: `${SHARED_USERS} idle users of one daemon, per user`, users: SHARED_USERS },
];

export async function run(): Promise<void> {
  const site = await startBenchSite();
  const url = site.url('/article');
  const rows: (string | number)[][] = [];
  const notes: string[] = [];
  const ratios: string[] = [];
  const row = (name: string, m: Measure, pw: Measure) => [name, mb(m.server.pssKb), mb(m.browser.pssKb), mb(total(m)), mb(totalUss(m)), `${(total(m) / total(pw)).toFixed(2)}x`, m.processes.length];
  try {
    // Playwright MCP stays up, idle, for the whole run; each browserd variant is measured at the same instants.
    const pw = await startPlaywright(url);
    try {
      for (const [i, v] of [{ name: '' }, ...LEVERS].entries()) {
        // Several users: as many Playwright MCP servers (one per user, as it serves), so that both sides' browsers
        // share Chromium's pages among as many of their own.
        const morePw: { pid: number; stop(): Promise<void> }[] = [];
        // The default is read at every instant, each lever at the steady one.
        const instants = i === 0 ? IDLE_AT_S : [STEADY_S];
        let at: Measure[][];
        try {
          for (let u = 1; u < (v.users ?? 1); u++) morePw.push(await startPlaywright(url));
          const ours = await startOurs(url, v);
          const since = Date.now();
          try {
            if (v.afterIdleClose) await browserGone(ours.pid);
            at = (await idleMeasure([ours.pid, pw.pid, ...morePw.map((x) => x.pid)], since, instants)).map(([o, ...pws]) => [o!, sumOf(pws)]);
          } finally {
            await ours.stop();
          }
        } finally {
          for (const x of morePw) await x.stop();
        }
        // Per user: each side's servers and browsers, divided among the users they serve.
        at = at.map((sides) => sides.map((x) => perUser(x, v.users ?? 1)));
        const [m, p] = at[at.length - 1]!;
        if (i === 0) {
          for (const [k, [mk, pk]] of at.entries()) {
            rows.push(row(`browserd (daemon + one idle user), idle ${instants[k]} s`, mk!, pk!), row(`Playwright MCP (server + one idle browser), idle ${instants[k]} s`, pk!, pk!));
            notes.push(`idle ${instants[k]} s: ours / Playwright MCP, PSS ${(total(mk!) / total(pk!)).toFixed(2)}x; USS ${(totalUss(mk!) / totalUss(pk!)).toFixed(2)}x.`);
          }
          notes.push(`Against the goal (at most 0.6x PSS), idle ${STEADY_S} s, one user alone on the daemon: ${(total(m) / total(p!)).toFixed(2)}x.`);
          notes.push(`browserd processes: ${processSummary(m!)}.`, `Playwright processes: ${processSummary(p!)}.`);
        } else {
          rows.push(row(`browserd + ${v.name}, idle ${STEADY_S} s`, m, p!));
          if (v.users) {
            notes.push(`Against the goal, idle ${STEADY_S} s, per user with ${v.users} users (one daemon against ${v.users} Playwright MCP servers): ${(total(m) / total(p!)).toFixed(2)}x; Playwright per user ${mb(total(p!))}.`);
            continue;
          }
          const how = [...(v.chromeArgs ?? []), ...(v.nodeArgs ?? []).map((a) => `node ${a}`), ...Object.entries(v.env ?? {}).map(([k, x]) => `${k}=${x}`)].join(' ');
          ratios.push(`with ${how}: ${processSummary(m) || 'no browser'}; Playwright at the same time ${mb(total(p!))}.`);
        }
      }
    } finally {
      await pw.stop();
    }
  } finally {
    await site.close();
  }
  notes.push(
    ...ratios,
    `Each side idle ${IDLE_AT_S.join(', ')} s after one navigation to the same page, then the median of ${SAMPLES} samples a second apart, both sides`,
    '  at the same instants (Playwright MCP stays up through every browserd variant; each ratio is against it at that time).',
    `The daemon's PSS is the whole daemon in every row but the last. There ${SHARED_USERS} users of one daemon each open a tab, against ${SHARED_USERS} Playwright MCP`,
    '  servers (one per user, as it serves), each with its browser on the page; each side\'s total is divided by the users.',
    'Levers, none of them a default: no spare renderer kept warm for the next tab, a renderer process limit (same-site tabs share a',
    '  renderer), a smaller young generation for the daemon, and closing idle browsers sooner (the next call relaunches and reopens the',
    '  tabs at their URLs). By default Chromium starts with no window, so no start-up page keeps a renderer. The daemon runs from',
    '  the bundle npm run build makes (no TypeScript loader), with the model SDKs, token counter, IMAP client, video muxer, GraphQL',
    '  parser, ad blocker and other feature packages loaded on first use; what is left of it is Node, the MCP SDK, LMDB and our code.',
    'Other processes on a shared machine move PSS (Chromium pages split with them too): compare within one run, and USS as a check.',
  );
  printTable('Memory per idle user: PSS, browserd vs Playwright MCP', ['side', 'server PSS', 'browser PSS', 'total PSS', 'total USS', 'vs Playwright', 'processes'], rows, notes);
}
