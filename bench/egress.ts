/**
 * What the private-network guard costs a page: one Chromium (the daemon's launcher and switches), two in-memory
 * browser contexts, one going straight to the site (the raw limit) and one through the daemon's egress proxy
 * with the very proxy rules the daemon gives its browsers (plain http in SOCKS5 tunnels, https in CONNECT
 * tunnels). The pages are the traffic benchmark's: 30 API calls each, timed by the page itself, over plain
 * http and over https. The proxy runs in this process, so this process's CPU per load is the guard's.
 *
 * Loopback only: the proxy here allows private addresses (the site is on 127.0.0.1) and admits any client,
 * since this Chromium is not one of a daemon's browsers; the checks it makes per connection are the same.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium } from '../daemon/browser/launcher.js';
import { startEgressProxy, egressProxyRules } from '../daemon/net/egress-proxy.js';
import { startTrafficSite, PAGE_COUNT, CALLS_PER_PAGE, PAGE_STAMP, type TrafficSite } from './traffic-site.js';
import { loopbackCert } from './loopback-cert.js';
import { median, p90, printTable, RESOLVER_RULES } from './lib.js';

const ROUNDS = Number(process.env.BENCH_EGRESS_ROUNDS ?? 5);

type Side = 'direct' | 'guarded';
const SIDES: Side[] = ['direct', 'guarded'];

export async function run(): Promise<void> {
  const cert = loopbackCert();
  const site = await startTrafficSite();
  const tlsSite = await startTrafficSite(cert);
  const proxy = await startEgressProxy({ allowPrivateNetwork: true, deniedPorts: () => new Set() });
  const userDataDir = mkdtempSync(join(tmpdir(), 'browserd-bench-egress-'));
  const chromium = await launchChromium({ userDataDir, headless: true, extra: [RESOLVER_RULES, cert.chromiumSwitch] });
  const conn = chromium.conn;
  try {
    /** A page in a context of its own: straight to the network, or through the guard as the daemon's browsers go. */
    const pageIn = async (side: Side) => {
      const { browserContextId } = await conn.send('Target.createBrowserContext', side === 'guarded' ? { proxyServer: egressProxyRules(proxy.port), proxyBypassList: '<-loopback>' } : {});
      const { targetId } = await conn.send('Target.createTarget', { url: 'about:blank', browserContextId });
      const { sessionId } = await conn.send('Target.attachToTarget', { targetId, flatten: true });
      await conn.send('Page.enable', {}, sessionId);
      return sessionId;
    };
    const sessions = { direct: await pageIn('direct'), guarded: await pageIn('guarded') };
    const load = async (side: Side, url: string) => {
      const sessionId = sessions[side];
      const loaded = conn.waitFor('Page.loadEventFired', sessionId, () => true, 30000);
      const r = await conn.send('Page.navigate', { url }, sessionId);
      if (r.errorText) throw new Error(`${side} ${url}: ${r.errorText}`);
      await loaded;
      const out = await conn.send('Runtime.evaluate', { expression: PAGE_STAMP, awaitPromise: true, returnByValue: true }, sessionId);
      const stamp = Number(out.result.value);
      if (!(stamp > 0)) throw new Error(`${side} ${url}: the page did not finish its calls (${stamp})`);
      return stamp;
    };

    const compare = async (from: TrafficSite, protocol: string) => {
      const times: Record<Side, number[]> = { direct: [], guarded: [] };
      const cpu: Record<Side, number> = { direct: 0, guarded: 0 };
      const calls: Record<Side, number> = { direct: 0, guarded: 0 };
      for (let r = -1; r < ROUNDS; r++) {
        for (const side of r % 2 ? [...SIDES].reverse() : SIDES) {
          const before = from.apiCalls();
          const c0 = process.cpuUsage();
          await load(side, from.pageUrl(0, `w${side}${r}`));
          for (let p = 0; p < PAGE_COUNT; p++) {
            const t = await load(side, from.pageUrl(p, `${side}${r}`));
            if (r >= 0) times[side].push(t);
          }
          if (r < 0) continue;
          const used = process.cpuUsage(c0);
          cpu[side] += (used.user + used.system) / 1000;
          calls[side] += from.apiCalls() - before;
        }
      }
      const loads = ROUNDS * (PAGE_COUNT + 1);
      const m = { direct: median(times.direct), guarded: median(times.guarded) };
      printTable(
        `The egress guard's cost over ${protocol} (${PAGE_COUNT} pages x ${CALLS_PER_PAGE} API calls, page's own time to its last answer)`,
        ['side', 'loads', 'median', 'p90', 'ratio', 'node CPU/load'],
        [
          ['straight to the site (raw limit)', times.direct.length, `${m.direct.toFixed(1)} ms`, `${p90(times.direct).toFixed(1)} ms`, '1.00x', `${(cpu.direct / loads).toFixed(1)} ms`],
          ['through the egress guard', times.guarded.length, `${m.guarded.toFixed(1)} ms`, `${p90(times.guarded).toFixed(1)} ms`, `${(m.guarded / m.direct).toFixed(2)}x`, `${(cpu.guarded / loads).toFixed(1)} ms`],
        ],
        [
          `One Chromium, an in-memory context per side; ${ROUNDS} rounds after a warm-up round, the order reversed every other round.`,
          `API calls answered (each should be ${loads * CALLS_PER_PAGE}): direct ${calls.direct}, guarded ${calls.guarded}.`,
          'node CPU/load: this process, which runs the proxy (and the CDP driving both sides).',
        ],
      );
    };
    await compare(site, 'plain http (SOCKS5 tunnels)');
    await compare(tlsSite, 'https (CONNECT tunnels)');
  } finally {
    await conn.sendMayFail('Browser.close', {}, undefined, 5000);
    await conn.close();
    await chromium.close(5000);
    await proxy.close();
    await site.close();
    await tlsSite.close();
    rmSync(userDataDir, { recursive: true, force: true });
  }
}
