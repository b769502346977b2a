/**
 * Memory per idle user, side by side, in one run: PSS (from /proc/<pid>/smaps_rollup: a page shared by n
 * processes counts 1/n in each, so summing over a set of processes counts shared pages once) of
 *   ours:       a `browserd serve` process (its own process, started as an operator starts it) with one user whose
 *               Chromium has one tab after one navigation, idle: the daemon's PSS + every process of that Chromium;
 *   Playwright: a Playwright MCP server (stdio, its own process, Debian's chromium, headless, isolated) after one
 *               browser_navigate to the same page, idle: the server's PSS + every process of its browser.
 * Both sides are measured at the same instants, Playwright MCP staying up while each browserd variant runs: on a
 * shared host other Chromiums map the same binary and split its pages, and measured together both sides see the
 * same neighbours (they split the binary's pages with each other alike). The variants are ours with a lever set
 * from outside (extra Chromium switches through BROWSERD_CHROME_ARGS, Node flags for the daemon, or environment
 * such as a short idle close), without changing the defaults.
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

/** How long a side sits idle after its navigation before it is measured, and the samples then taken. */
const IDLE_MS = 8000;
const SAMPLES = 3;
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
 * Both sides measured at the same instants, after the idle wait: the median of a few samples a second apart. Taken
 * together, other processes on the machine (a shared host runs other Chromiums mapping the same binary, which
 * splits its pages further) move both sides alike.
 */
async function idleMeasure(serverPids: number[]): Promise<Measure[]> {
  await new Promise((r) => setTimeout(r, IDLE_MS)); // idle is a duration: nothing to await but time
  const samples: Measure[][] = [];
  for (let i = 0; i < SAMPLES; i++) {
    samples.push(serverPids.map(measureTree));
    await new Promise((r) => setTimeout(r, 1000));
  }
  return serverPids.map((_, k) => {
    const ms = samples.map((s) => s[k]);
    const med = (f: (m: Measure) => number) => median(ms.map(f));
    return {
      server: { pssKb: med((m) => m.server.pssKb), ussKb: med((m) => m.server.ussKb) },
      browser: { pssKb: med((m) => m.browser.pssKb), ussKb: med((m) => m.browser.ussKb) },
      processes: ms[ms.length - 1].processes,
    };
  });
}

// ------------------------------------------------------------------ ours: `browserd serve` as its own process

/** `browserd serve` with one user whose tab has loaded url; stop() ends the daemon (and its Chromium). */
async function startOurs(url: string, v: Variant): Promise<{ pid: number; stop(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'browserd-bench-mem-'));
  const env = { ...process.env, BROWSERD_ALLOW_PRIVATE_NETWORK: '1', BROWSERD_CHROME_ARGS: (v.chromeArgs ?? []).join(' '), BROWSERD_LOG_LEVEL: 'info', ...v.env };
  let serve: ServeProcess | undefined;
  const stop = async () => {
    await serve?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    serve = await startServeProcess({ dataDir, users: ['idle'], env, nodeArgs: v.nodeArgs });
    const client = new Client({ name: 'browserd-bench-memory', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${serve.tokens.get('idle')}` } } }));
    const r = await client.callTool({ name: 'browser_open', arguments: { url } });
    if (r.isError) throw new Error(`browser_open failed: ${mcpText(r)}`);
    await client.close();
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
}

/**
 * Levers tried beside the default, each without changing the defaults: Chromium switches that leave a process
 * out (the network service already runs in the browser process: the egress guard needs it there, switches.ts),
 * the daemon's young generation capped, and the browser closed once idle.
 */
const LEVERS: Variant[] = [
  { name: 'no spare renderer', chromeArgs: ['--disable-features=SpareRendererForSitePerProcess'] },
  { name: 'renderer process limit 1', chromeArgs: ['--renderer-process-limit=1'] },
  { name: 'daemon young generation at most 4 MB a semi-space', nodeArgs: ['--max-semi-space-size=4'] },
  { name: `idle browser closed (BROWSERD_BROWSER_IDLE_S=${IDLE_CLOSE_S})`, env: { BROWSERD_BROWSER_IDLE_S: String(IDLE_CLOSE_S) }, afterIdleClose: true },
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
        const ours = await startOurs(url, v);
        let m: Measure, p: Measure;
        try {
          if (v.afterIdleClose) await browserGone(ours.pid);
          [m, p] = await idleMeasure([ours.pid, pw.pid]);
        } finally {
          await ours.stop();
        }
        if (i === 0) {
          rows.push(row('browserd (daemon + one idle user)', m, p), row('Playwright MCP (server + one idle browser)', p, p));
          notes.push(`ours / Playwright MCP, PSS: ${(total(m) / total(p)).toFixed(2)}x (goal at most 0.6x); USS: ${(totalUss(m) / totalUss(p)).toFixed(2)}x.`);
          // What one more user costs once the daemon is shared: its Chromium and a slice of the daemon.
          for (const n of [4, 10]) notes.push(`indicative, ${n} idle users: (daemon PSS / ${n} + one Chromium) / Playwright MCP = ${((m.server.pssKb / n + m.browser.pssKb) / total(p)).toFixed(2)}x (the daemon's own growth per user left out).`);
          notes.push(`browserd processes: ${processSummary(m)}.`, `Playwright processes: ${processSummary(p)}.`);
        } else {
          rows.push(row(`browserd + ${v.name}`, m, p));
          const how = [...(v.chromeArgs ?? []), ...(v.nodeArgs ?? []).map((a) => `node ${a}`), ...Object.entries(v.env ?? {}).map(([k, x]) => `${k}=${x}`)].join(' ');
          ratios.push(`with ${how}: ${processSummary(m) || 'no browser'}; Playwright at the same time ${mb(total(p))}.`);
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
    `Each side idle ${IDLE_MS / 1000} s after one navigation to the same page, then the median of ${SAMPLES} samples a second apart, both sides`,
    '  at the same instants (Playwright MCP stays up through every browserd variant; each ratio is against it at that time).',
    "The daemon's PSS is the whole daemon here (one user); with N users each carries 1/N of it, and the per-user cost tends to its Chromium alone.",
    'Levers, none of them a default: no spare renderer kept warm for the next tab, a renderer process limit (same-site tabs share a',
    '  renderer), a smaller young generation for the daemon, and closing idle browsers sooner (the next call relaunches and reopens the',
    '  tabs at their URLs). By default Chromium starts with no window, so no start-up page keeps a renderer. The daemon runs from',
    '  the bundle npm run build makes (no TypeScript loader), with the model SDKs, token counter, IMAP client, video muxer, GraphQL',
    '  parser, ad blocker and other feature packages loaded on first use; what is left of it is Node, the MCP SDK, LMDB and our code.',
    'Other processes on a shared machine move PSS (Chromium pages split with them too): compare within one run, and USS as a check.',
  );
  printTable('Memory per idle user: PSS, browserd vs Playwright MCP', ['side', 'server PSS', 'browser PSS', 'total PSS', 'total USS', 'vs Playwright', 'processes'], rows, notes);
}
