/**
 * browser_query (css `tr`, limit 500) and browser_extract (tables, limit 5000) on the 2,000-row table page,
 * through REST (POST /v1/tools/{name}): median latency of 20 runs each. Beside them, the same injected
 * functions (__browserd.query / __browserd.extract) called straight over CDP on a raw Chromium, so the
 * daemon's share can be read off.
 */
import { startTestDaemon } from '../test/fixtures/daemon.js';
import { startBenchSite } from './pages.js';
import { launchRawBrowser, median, p90, ms, now, printTable } from './lib.js';

const N = 20;
const WARMUP = 2;

const CALLS = [
  { label: 'browser_query {css: "tr", limit: 500}', tool: 'browser_query', args: { css: 'tr', limit: 500 }, inPage: `__browserd.query({ css: 'tr', limit: 500 }).value` },
  { label: 'browser_extract {kind: "tables", limit: 5000}', tool: 'browser_extract', args: { kind: 'tables', limit: 5000 }, inPage: `__browserd.extract({ kind: 'tables', limit: 5000 }).value` },
];

function check(tool: string, json: any): string {
  if (tool === 'browser_query') {
    if (json.matches?.length !== 500) throw new Error(`browser_query returned ${json.matches?.length} matches, not 500`);
    return `500 of ${json.total} rows`;
  }
  const rows = json.items?.[0]?.rows?.length;
  if (rows !== 2000) throw new Error(`browser_extract returned ${rows} rows, not 2000`);
  return `1 table, ${rows} rows`;
}

export async function run(): Promise<void> {
  const site = await startBenchSite();
  const url = site.url('/table');
  const rows: string[][] = [];
  try {
    const raw = await launchRawBrowser();
    const d = await startTestDaemon();
    try {
      const p = await raw.newPage();
      await raw.navigate(p, url);
      const token = await d.addUser('bench');
      const open = await d.rest(token, 'POST', '/v1/tabs', { url });
      if (open.status !== 201 && open.status !== 200) throw new Error(`POST /v1/tabs: ${open.status} ${JSON.stringify(open.json)}`);
      const tab = open.json.tab;
      for (const c of CALLS) {
        const xs: number[] = [];
        const r: number[] = [];
        let bytes = 0;
        let got = '';
        // Raw and REST calls alternate, so drift on this shared 2-core host hits both alike.
        for (let i = 0; i < WARMUP + N; i++) {
          let t0 = now();
          await raw.evalInWorld(p, c.inPage);
          if (i >= WARMUP) r.push(now() - t0);
          t0 = now();
          const res = await fetch(`${d.url}/v1/tools/${c.tool}`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
            body: JSON.stringify({ ...c.args, tab }),
          });
          const text = await res.text();
          const dt = now() - t0;
          if (res.status !== 200) throw new Error(`${c.tool}: ${res.status} ${text.slice(0, 300)}`);
          got = check(c.tool, JSON.parse(text));
          bytes = text.length;
          if (i >= WARMUP) xs.push(dt);
        }
        rows.push([c.label, ms(median(xs)), ms(p90(xs)), ms(median(r)), ms(median(xs) - median(r)), `${(bytes / 1024).toFixed(0)} KiB`, got]);
      }
    } finally {
      await d.stop();
      await raw.close();
    }
  } finally {
    await site.close();
  }
  printTable(
    'browser_query and browser_extract on a 2,000-row table (REST)',
    ['call', 'REST median', 'REST p90', 'in-page only (raw CDP)', 'daemon share', 'response', 'result'],
    rows,
    [`${N} runs each after ${WARMUP} warm-up calls, raw and REST alternating; REST time is request sent to body read (JSON, with the fenced text rendering).`, 'daemon share = REST median - in-page median (negative or small values are within the noise of this host).'],
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
