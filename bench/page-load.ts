/**
 * What a tab's rules cost a page load. The same pages are loaded
 *  - raw: a Chromium started with the daemon's launcher, driven over raw CDP, with no rules at all;
 *  - act: a daemon act tab (every request passes Fetch, every frame and worker adopted before it runs);
 *  - read: a daemon read tab (the same, plus the write guard in every realm and non-GET requests aborted).
 * The number is the page's own load time as the browser measured it (navigation timing, loadEventEnd), so CDP
 * round trips and the daemon's settle wait after the load are not in it. The raw side has no egress proxy; the
 * daemon sides have one, so act - raw is the proxy plus adoption, and read - act is the read tab's own rules.
 * The frames page has a frame from another site and workers in the page and in that frame: the targets a tab
 * adopts recursively.
 */
import { startTestDaemon } from '../test/fixtures/daemon.js';
import { startBenchSite } from './pages.js';
import { inProcessCaller, launchRawBrowser, median, printTable } from './lib.js';

const PAGES = ['/form', '/products', '/table', '/article', '/frames'];
const RUNS = 15;
const LOAD_TIME = `(() => { const n = performance.getEntriesByType('navigation')[0]; return n ? n.loadEventEnd : -1; })()`;

export async function run(): Promise<void> {
  const site = await startBenchSite();
  const times = new Map<string, { raw: number[]; act: number[]; read: number[] }>();
  for (const p of PAGES) times.set(p, { raw: [], act: [], read: [] });
  try {
    const raw = await launchRawBrowser();
    try {
      const page = await raw.newPage();
      for (const p of PAGES) {
        for (let i = 0; i <= RUNS; i++) {
          await raw.navigate(page, `${site.url(p)}?r=${i}`);
          const r = await raw.conn.send('Runtime.evaluate', { expression: LOAD_TIME, returnByValue: true }, page.sessionId);
          if (i > 0) times.get(p)!.raw.push(Number(r.result.value));
        }
      }
    } finally {
      await raw.close();
    }

    const d = await startTestDaemon();
    try {
      const tool = await inProcessCaller(d);
      for (const mode of ['act', 'read'] as const) {
        const opened = await tool('browser_open', { url: site.url('/form'), mode });
        const tab = String(opened.renderJson().tab);
        for (const p of PAGES) {
          for (let i = 0; i <= RUNS; i++) {
            await tool('browser_navigate', { tab, url: `${site.url(p)}?r=${i}` });
            const out = await tool('browser_evaluate', { tab, js: LOAD_TIME });
            const ms = Number(/(-?[\d.]+)\s*<<<end [0-9a-f]/.exec(String(out.renderJson().text))?.[1]);
            if (i > 0) times.get(p)![mode].push(ms);
          }
        }
        await tool('browser_close_tab', { tab });
      }
    } finally {
      await d.stop();
    }
  } finally {
    await site.close();
  }

  const rows = PAGES.map((p) => {
    const t = times.get(p)!;
    const [r, a, rd] = [median(t.raw), median(t.act), median(t.read)];
    return [p, `${r.toFixed(1)} ms`, `${a.toFixed(1)} ms`, `${rd.toFixed(1)} ms`, `${(rd / r).toFixed(2)}x`, `${(((rd - a) / a) * 100).toFixed(0)}%`];
  });
  printTable('Page load under the tab rules (in-page loadEventEnd, medians)', ['page', 'raw CDP', 'act tab', 'read tab', 'read / raw', 'read vs act'], rows, [
    `${RUNS} loads a page a side after one warm-up; the raw side has no egress proxy, the daemon sides do.`,
  ]);
}
