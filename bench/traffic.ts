/**
 * What recording a tab's traffic costs. 20 loopback pages, each making 30 API calls (bench/traffic-site.ts),
 * loaded on the same Debian Chromium, in two pairs of like with like:
 *  - a profile kept on disk. off / on: a daemon act tab in the user's own profile, recording off, then with
 *    browser_har recording (bodies text, default limits) started before a round's pages and stopped (then
 *    deleted) after them; against Playwright on a profile kept on disk (launchPersistentContext), with
 *    recordHar { content: 'embed' } (bodies inline, as our bodies text keeps them) and without. Each
 *    Playwright side is one browser, open from the warm-up round to the end, as the daemon's tab is; its HAR
 *    is written when it closes.
 *  - an in-memory context. A daemon act tab in an isolated context (browser_open{context}), recording off and
 *    on; against a throwaway Playwright context with and without recordHar, one context per round (closed
 *    after the round's pages, which is when Playwright writes its HAR).
 * Chromium loads these pages measurably slower in a profile on disk than in an in-memory context, whoever
 * drives it, which is why each kind is compared with its own.
 * Each over plain http (SOCKS5 tunnels through the daemon's egress proxy) and over https with a throwaway
 * loopback certificate (CONNECT tunnels, as on nearly every site); the browser keeps both kinds open.
 * The number is the page's own time from navigation start to its last API answer read (a performance.now()
 * stamp the page stores), so no CDP round trip is in it. Rounds alternate the order of the sides to spread
 * drift; every side loads a warm-up page first in each round. Medians over all loads of a side.
 *
 * Then the daemon's memory for a 5,000-entry recording (the daemon runs in this process, so this process's RSS
 * and heap), the recording's file and exported HAR sizes, and the time buildApiMap takes on that HAR.
 * Benchmarks print; they never assert a time.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { runInNewContext } from 'node:vm';
import { startTestDaemon } from '../test/fixtures/daemon.js';
import { chromiumSwitches } from '../daemon/browser/switches.js';
import { harRecordings } from '../daemon/traffic/har-recordings.js';
import { harDocument } from '../daemon/traffic/har-document.js';
import { trafficRedactor } from '../daemon/traffic/redact.js';
import { userSecretForms } from '../daemon/secrets/user-secrets.js';
import { buildApiMap } from '../daemon/traffic/api-map/index.js';
import { startTrafficSite, PAGE_COUNT, CALLS_PER_PAGE, PAGE_STAMP, type TrafficSite } from './traffic-site.js';
import { inProcessCaller, median, now, p90, packageVersion, printTable, RESOLVER_RULES } from './lib.js';
import { loopbackCert } from './loopback-cert.js';

const ROUNDS = Number(process.env.BENCH_TRAFFIC_ROUNDS ?? 5);
const MEMORY_ENTRIES = 5000;
const CHROMIUM = process.env.BROWSERD_CHROME ?? '/usr/bin/chromium';

type Side = 'off' | 'on' | 'ctxOff' | 'ctxOn' | 'pwHar' | 'pwPlain' | 'pwKeptHar' | 'pwKeptPlain';
const SIDES: Side[] = ['off', 'on', 'ctxOff', 'ctxOn', 'pwHar', 'pwPlain', 'pwKeptHar', 'pwKeptPlain'];
/** The daemon's sides: its act tab in the user's profile, and an act tab in an isolated context of its own. */
const DAEMON_SIDES = new Set<Side>(['off', 'on', 'ctxOff', 'ctxOn']);
const CONTEXT_SIDES = new Set<Side>(['ctxOff', 'ctxOn']);
/** Sides on a Playwright context of its own profile on disk (launchPersistentContext), as the daemon's tabs are. */
const KEPT_PROFILE_SIDES = new Set<Side>(['pwKeptHar', 'pwKeptPlain']);
const RECORDING_SIDES = new Set<Side>(['on', 'ctxOn', 'pwHar', 'pwKeptHar']);

/** A collectable heap: `npm run bench` runs node without --expose-gc, so the flag is set now and gc taken from a fresh context. */
function gcFunction(): () => void {
  if (typeof global.gc === 'function') return global.gc;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

function stampOf(v: unknown, where: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${where}: the page did not finish its API calls (stamp ${String(v)})`);
  return n;
}

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

export async function run(): Promise<void> {
  const gc = gcFunction();
  // The same site over plain http and over https (as nearly every site today is served): the egress proxy carries
  // the first in SOCKS5 tunnels and the second in CONNECT tunnels.
  const cert = loopbackCert();
  const site = await startTrafficSite();
  const tlsSite = await startTrafficSite(cert);
  const harDir = mkdtempSync(join(tmpdir(), 'browserd-bench-har-'));
  const pwProfile = mkdtempSync(join(tmpdir(), 'browserd-bench-pw-'));
  // Two kept profiles: each kept-profile side holds its browser open for the whole comparison.
  const pwKeptProfiles = { pwKeptHar: mkdtempSync(join(tmpdir(), 'browserd-bench-pw-kept-')), pwKeptPlain: mkdtempSync(join(tmpdir(), 'browserd-bench-pw-kept-')) };
  const d = await startTestDaemon({ chromeArgs: [RESOLVER_RULES, cert.chromiumSwitch] });
  let pwBrowser: import('playwright-core').Browser | undefined;
  try {
    const tool = await inProcessCaller(d);
    const user = d.daemon.env.users.get('bench')!;
    const opened = await tool('browser_open', { url: site.pageUrl(0, 'open'), mode: 'act' });
    const profileTab = String(opened.renderJson().tab);
    // The same kind of tab in an isolated context (cookies, storage and cache in memory, like a private window):
    // what a throwaway Playwright context is to Playwright.
    const contextTab = String((await tool('browser_open', { url: site.pageUrl(0, 'open'), mode: 'act', context: 'bench' })).renderJson().tab);
    const daemonLoad = async (page: number, runId: string, from: TrafficSite = site, tab = profileTab) => {
      await tool('browser_navigate', { tab, url: from.pageUrl(page, runId) });
      const out = await tool('browser_evaluate', { tab, js: PAGE_STAMP, timeoutMs: 25000 });
      return stampOf(/(-?[\d.]+)\s*<<<end [0-9a-f]/.exec(String(out.renderJson().text))?.[1], `daemon ${from.pageUrl(page, runId)}`);
    };

    /**
     * A 5,000-entry recording's memory, measured before Playwright runs in this process (playwright-core's
     * driver and its in-memory HAR would be in the same RSS) and after one warm-up load of each page.
     */
    const memory = async () => {
      for (let p = 0; p < PAGE_COUNT; p++) await daemonLoad(p, 'memwarm');
      await tool('browser_har', { action: 'start', tab: profileTab, maxEntries: MEMORY_ENTRIES });
      const rec = harRecordings(d.daemon.env).get(user.id, profileTab)!;
      gc();
      const before = process.memoryUsage();
      let peakRss = before.rss;
      let peakHeap = before.heapUsed;
      const sampler = setInterval(() => {
        const u = process.memoryUsage();
        peakRss = Math.max(peakRss, u.rss);
        peakHeap = Math.max(peakHeap, u.heapUsed);
      }, 100);
      const t0 = now();
      let loads = 0;
      try {
        while (rec.counts.entries < MEMORY_ENTRIES) {
          await daemonLoad(loads % PAGE_COUNT, `mem${loads}`);
          loads++;
        }
      } finally {
        clearInterval(sampler);
      }
      const recordSeconds = (now() - t0) / 1000;
      await tool('browser_har', { action: 'stop', tab: profileTab });
      gc();
      const after = process.memoryUsage();
      const fileBytes = statSync(rec.file).size;
      const exported = await tool('browser_har', { action: 'export', tab: profileTab });
      const exportBytes = Number(exported.renderJson().size);

      // The HAR as browser_api_map reads it: one document in memory, the user's secrets in the redactor.
      let text = '';
      for await (const piece of harDocument(rec)) text += piece;
      const har = JSON.parse(text) as { log: { entries: unknown[] } };
      const redactor = trafficRedactor(userSecretForms(d.daemon.env, user.id));
      const runs: number[] = [];
      let endpoints = 0;
      for (let i = 0; i < 3; i++) {
        const s = now();
        endpoints = buildApiMap(har, { redactor, name: 'bench' }).endpoints.length;
        runs.push(now() - s);
      }
      const toolRun = now();
      await tool('browser_api_map', { action: 'build', tab: profileTab, name: 'bench-tool' });
      const toolMs = now() - toolRun;
      await tool('browser_har', { action: 'delete', tab: profileTab });

      printTable(
        `Daemon memory for a ${MEMORY_ENTRIES}-entry HAR recording (this process: the daemon runs in it)`,
        ['measure', 'before', 'peak', 'after', 'after - before'],
        [
          ['RSS', mb(before.rss), mb(peakRss), mb(after.rss), mb(after.rss - before.rss)],
          ['heap used', mb(before.heapUsed), mb(peakHeap), mb(after.heapUsed), mb(after.heapUsed - before.heapUsed)],
        ],
        [
          `${rec.counts.entries} entries (${rec.counts.dropped} more not kept) from ${loads} page loads in ${recordSeconds.toFixed(1)} s; before and after measured after a full GC, peak sampled every 100 ms.`,
          `recording file (JSON lines, in the data dir): ${mb(fileBytes)}; exported HAR: ${mb(exportBytes)}.`,
          `api_map build on the ${har.log.entries.length}-entry HAR: buildApiMap ${median(runs).toFixed(0)} ms (median of 3, ${endpoints} endpoints); browser_api_map {build} from the tab's recording, end to end ${toolMs.toFixed(0)} ms.`,
        ],
      );
    };

    await memory();

    const { chromium } = await import('playwright-core');
    // Our launcher's quiet switches (no calls home, no first-run work), minus what Playwright sets itself.
    const args = [...chromiumSwitches({ userDataDir: pwProfile, headless: true }).filter((a) => a.startsWith('--') && !/^--(user-data-dir|remote-debugging|headless)/.test(a)), cert.chromiumSwitch];
    pwBrowser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args });
    // Playwright's kept-profile context starts with the browser's first window: it waits for that page.
    const keptArgs = args.filter((a) => a !== '--no-startup-window');
    const browser = pwBrowser;

    /** Every side over one site: rounds of page loads, then the table. */
    const compare = async (site: TrafficSite, protocol: string) => {
      const bySide = <T>(make: () => T) => Object.fromEntries(SIDES.map((side) => [side, make()])) as Record<Side, T>;
      const times = bySide<number[]>(() => []);
      const callsBySide = bySide(() => 0);
      // Where the time goes: this process's CPU (the daemon, its proxy and write gate, or Playwright's driver, all
      // in-process) and its event loop's delay while each side loads. A daemon request paused by the write gate
      // waits for this loop, so loop delay is page latency on the daemon sides and not on Playwright's.
      const cpuBySide = bySide(() => 0);
      const loopBySide = bySide<IntervalHistogram>(() => monitorEventLoopDelay({ resolution: 1 }));
      const notes: string[] = [];
      let harBytes = 0;
      /**
       * A kept profile's context is a browser of its own, launched in the warm-up round and open until the
       * comparison ends, as warm as the daemon's tab: its HAR (every round's pages) is written when it closes.
       */
      const kept = new Map<Side, import('playwright-core').BrowserContext>();
      const keptHar = join(harDir, `kept-${protocol.split(' ')[0]}.har`);

      /** One round of one side: a warm-up load, then every page once; the samples go to times[side]. */
      const round = async (side: Side, r: number) => {
        const before = site.apiCalls();
        // CPU and loop delay from the side's first load: a kept-profile side launches its browser first.
        let cpu = process.cpuUsage();
        const measure = () => {
          cpu = process.cpuUsage();
          loopBySide[side].enable();
        };
        if (DAEMON_SIDES.has(side)) {
          const tab = CONTEXT_SIDES.has(side) ? contextTab : profileTab;
          const recording = RECORDING_SIDES.has(side);
          if (recording) await tool('browser_har', { action: 'start', tab });
          measure();
          await daemonLoad(0, `w${r}`, site, tab);
          for (let p = 0; p < PAGE_COUNT; p++) times[side].push(await daemonLoad(p, `${side}${r}`, site, tab));
          if (recording) {
            const stopped = await tool('browser_har', { action: 'stop', tab });
            const entries = Number((stopped.renderJson().har as { entries?: number } | undefined)?.entries);
            const want = (PAGE_COUNT + 1) * (CALLS_PER_PAGE + 1);
            if (entries !== want) notes.push(`round ${r}: the recording held ${entries} entries, ${want} expected`);
            await tool('browser_har', { action: 'delete', tab });
          }
        } else {
          const keptSide = KEPT_PROFILE_SIDES.has(side);
          const path = keptSide ? keptHar : join(harDir, `${side}-${r}.har`);
          const recordHar = RECORDING_SIDES.has(side) ? { recordHar: { path, content: 'embed' as const } } : {};
          let context = keptSide ? kept.get(side) : undefined;
          if (!context) {
            context = keptSide
              ? await chromium.launchPersistentContext(pwKeptProfiles[side as keyof typeof pwKeptProfiles], { executablePath: CHROMIUM, headless: true, args: keptArgs, ...recordHar })
              : await browser.newContext(recordHar);
            if (keptSide) kept.set(side, context);
          }
          const page = context.pages()[0] ?? (await context.newPage());
          measure();
          const pwLoad = async (p: number, runId: string) => {
            await page.goto(site.pageUrl(p, runId), { waitUntil: 'load' });
            return stampOf(await page.evaluate(PAGE_STAMP), `playwright ${site.pageUrl(p, runId)}`);
          };
          await pwLoad(0, `w${r}`);
          for (let p = 0; p < PAGE_COUNT; p++) times[side].push(await pwLoad(p, `${side}${r}`));
          if (!keptSide) {
            await context.close();
            if (side === 'pwHar') harBytes = Math.max(harBytes, statSync(path).size);
          }
        }
        loopBySide[side].disable();
        const used = process.cpuUsage(cpu);
        cpuBySide[side] += (used.user + used.system) / 1000;
        callsBySide[side] += site.apiCalls() - before;
      };

      // One round of every side first, not counted: JIT, Chromium's caches, connections.
      for (const side of SIDES) await round(side, -1);
      for (const side of SIDES) {
        times[side].length = 0;
        callsBySide[side] = 0;
        cpuBySide[side] = 0;
        loopBySide[side].reset();
      }
      for (let r = 0; r < ROUNDS; r++) {
        const rotated = SIDES.map((_, i) => SIDES[(i + r) % SIDES.length]!);
        for (const side of r % 2 ? rotated.reverse() : rotated) await round(side, r);
      }

      for (const context of kept.values()) await context.close();
      const keptHarBytes = statSync(keptHar).size;
      const m = Object.fromEntries(SIDES.map((s) => [s, median(times[s])])) as Record<Side, number>;
      // CPU per load counts the warm-up load of each round too: every load of the side while it ran.
      const cpuPerLoad = (s: Side) => cpuBySide[s] / (ROUNDS * (PAGE_COUNT + 1));
      const loop = (s: Side) => `${(loopBySide[s].mean / 1e6).toFixed(1)} / ${(loopBySide[s].percentile(99) / 1e6).toFixed(1)} ms`;
      const row = (name: string, s: Side, ratio: number, what: string) => [name, times[s].length, `${m[s].toFixed(1)} ms`, `${p90(times[s]).toFixed(1)} ms`, `${ratio.toFixed(2)}x`, what, `${cpuPerLoad(s).toFixed(1)} ms`, loop(s)];
      printTable(
        `Page load with traffic recording over ${protocol} (${PAGE_COUNT} pages x ${CALLS_PER_PAGE} API calls, page's own time to its last answer, medians)`,
        ['side', 'loads', 'median', 'p90', 'ratio', 'ratio of', 'node CPU/load', 'loop delay mean/p99'],
        [
          row('daemon act tab, user profile (kept on disk), recording off', 'off', 1, ''),
          row('daemon act tab, user profile, browser_har on (bodies text)', 'on', m.on / m.off, 'on / off (goal <= 1.15x)'),
          row(`Playwright ${packageVersion('playwright-core')} recordHar embed, profile kept on disk`, 'pwKeptHar', m.on / m.pwKeptHar, 'on / this: same kind of profile (goal <= 1.0x)'),
          row('Playwright, profile kept on disk, no recordHar', 'pwKeptPlain', m.pwKeptHar / m.pwKeptPlain, 'this recordHar / this plain'),
          row('daemon act tab, isolated context, recording off', 'ctxOff', m.ctxOff / m.off, 'context off / profile off'),
          row('daemon act tab, isolated context, browser_har on', 'ctxOn', m.ctxOn / m.ctxOff, 'context on / context off (goal <= 1.15x)'),
          row(`Playwright ${packageVersion('playwright-core')} recordHar embed, throwaway context`, 'pwHar', m.ctxOn / m.pwHar, 'context on / this: same kind (goal <= 1.0x)'),
          row('Playwright, throwaway context, no recordHar', 'pwPlain', m.pwHar / m.pwPlain, 'this recordHar / this plain'),
        ],
        [
          'node CPU/load and loop delay: this process (daemon, or Playwright\'s driver) while the side ran; not in the page\'s time by themselves.',
          `${ROUNDS} rounds, each side's order rotated and reversed every other round; a warm-up round of every side first, not counted.`,
          `API calls the site answered per side (each should be ${ROUNDS * (PAGE_COUNT + 1) * CALLS_PER_PAGE}): ${SIDES.map((s) => `${s} ${callsBySide[s]}`).join(', ')}.`,
          `Our HAR records document, xhr and fetch (the defaults) with text bodies inline; Playwright's records every type with every body embedded (these pages load nothing else). Largest Playwright HAR of a round: ${mb(harBytes)}; the kept profile's, of every round: ${mb(keptHarBytes)}.`,
          `A profile kept on disk vs an in-memory context, the same pages with no recording: Playwright ${(m.pwKeptPlain / m.pwPlain).toFixed(2)}x, the daemon ${(m.off / m.ctxOff).toFixed(2)}x. Across kinds, the daemon's profile tab recording vs Playwright's throwaway context recording: ${(m.on / m.pwHar).toFixed(2)}x.`,
          'The daemon sides go through the daemon\'s egress proxy, which holds none of their requests for a verdict (the bench user has no rule that could refuse or change one, so Fetch is off); Playwright\'s go straight to the site.',
          ...notes,
        ],
      );
    };

    await compare(site, 'plain http (SOCKS5 tunnels through the egress proxy, kept open)');
    await compare(tlsSite, 'https (CONNECT tunnels through the egress proxy, kept open)');
    await browser.close();
    pwBrowser = undefined;
    await tool('browser_close_tab', { tab: profileTab });
    await tool('browser_close_tab', { tab: contextTab });
  } finally {
    await pwBrowser?.close().catch(() => undefined);
    await d.stop();
    await site.close();
    await tlsSite.close();
    rmSync(harDir, { recursive: true, force: true });
    rmSync(pwProfile, { recursive: true, force: true });
    for (const dir of Object.values(pwKeptProfiles)) rmSync(dir, { recursive: true, force: true });
  }
}
