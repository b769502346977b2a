/**
 * The two HTTP servers side by side in one run: uWebSockets.js (where its native build loads) and node:http + ws
 * (everywhere else), each carrying the same daemon. Three workloads, each warmed up first:
 *   MCP no-op: browser_tabs through /mcp with the MCP SDK client (transport, dispatch, audit; no page work);
 *   click:     browser_click on a counter button through /mcp (the counter is read back to check the clicks);
 *   REST x50:  50 parallel POST /v1/tools/browser_tabs calls, the time until all have answered.
 */
import { startTestDaemon, type TestDaemon } from '../test/fixtures/daemon.js';
import { loadNativeUws } from '../daemon/http/transport/uws.js';
import { startBenchSite } from './pages.js';
import { median, p90, ms, now, printTable, mcpText } from './lib.js';

const WARMUP = 200;
const N = 200;
const PARALLEL = 50;
const ROUNDS = 40;

interface Figures {
  noop: number[];
  click: number[];
  rest50: number[];
  clicksLanded: boolean;
}

async function measure(d: TestDaemon, url: string): Promise<Figures> {
  const token = await d.addUser('bench');
  const client = await d.mcp(token);
  const open = await client.callTool({ name: 'browser_open', arguments: { url, mode: 'act' } });
  if (open.isError) throw new Error(`browser_open failed: ${mcpText(open)}`);
  const tab = /Opened tab (\S+)/.exec(mcpText(open))?.[1] ?? 't1';
  const snap = mcpText(await client.callTool({ name: 'browser_snapshot', arguments: { tab } }));
  const ref = /button "Add one" \[ref=(e\d+)\]/.exec(snap)?.[1];
  if (!ref) throw new Error('no ref for the counter button');
  const noop: number[] = [];
  for (let i = 0; i < WARMUP + N; i++) {
    const t0 = now();
    const r = await client.callTool({ name: 'browser_tabs', arguments: {} });
    if (r.isError) throw new Error(`browser_tabs failed: ${mcpText(r)}`);
    if (i >= WARMUP) noop.push(now() - t0);
  }
  const click: number[] = [];
  for (let i = 0; i < WARMUP + N; i++) {
    const t0 = now();
    const r = await client.callTool({ name: 'browser_click', arguments: { tab, ref } });
    if (r.isError) throw new Error(`browser_click failed: ${mcpText(r)}`);
    if (i >= WARMUP) click.push(now() - t0);
  }
  const count = Number(/count (\d+)/.exec(mcpText(await client.callTool({ name: 'browser_snapshot', arguments: { tab } })))?.[1] ?? -1);
  const rest50: number[] = [];
  for (let i = 0; i < ROUNDS + 5; i++) {
    const t0 = now();
    const answers = await Promise.all(Array.from({ length: PARALLEL }, () => d.rest(token, 'POST', '/v1/tools/browser_tabs', {})));
    if (answers.some((a) => a.status !== 200)) throw new Error(`a REST call failed: ${answers.find((a) => a.status !== 200)?.status}`);
    if (i >= 5) rest50.push(now() - t0);
  }
  return { noop, click, rest50, clicksLanded: count === WARMUP + N };
}

export async function run(): Promise<void> {
  const site = await startBenchSite();
  const url = site.url('/counter');
  const native = loadNativeUws();
  const rows: string[][] = [];
  const notes: string[] = [];
  try {
    for (const http of ['uws', 'node'] as const) {
      if (http === 'uws' && !('uws' in native)) {
        notes.push(`uWebSockets.js not measured: ${native.why}.`);
        continue;
      }
      const d = await startTestDaemon({ http });
      try {
        const f = await measure(d, url);
        if (!f.clicksLanded) notes.push(`${http}: not every click landed on the counter.`);
        rows.push([
          http === 'uws' ? 'uWebSockets.js' : 'node:http + ws',
          `${ms(median(f.noop), 2)} / ${ms(p90(f.noop), 2)}`,
          `${ms(median(f.click), 2)} / ${ms(p90(f.click), 2)}`,
          `${ms(median(f.rest50), 1)} / ${ms(p90(f.rest50), 1)}`,
        ]);
      } finally {
        await d.stop();
      }
    }
  } finally {
    await site.close();
  }
  printTable(
    'HTTP servers: the same daemon on uWebSockets.js and on node:http + ws (median / p90, ms)',
    ['server', `MCP no-op (n=${N})`, `MCP click (n=${N})`, `${PARALLEL} parallel REST calls (n=${ROUNDS})`],
    rows,
    [...notes, `Node ${process.versions.node}; each side warmed up with ${WARMUP} calls first.`],
  );
}
