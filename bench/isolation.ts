/**
 * One user's stuck page must not slow another user: the speed half of what test/tools/tabs.test.ts checks by
 * order. Median latency of bob's browser_read_text (MCP), 10 runs each, alone and while alice's tab waits on a
 * page that never answers (the fixture holds the response until the end).
 */
import type { ServerResponse } from 'node:http';
import { startTestDaemon } from '../test/fixtures/daemon.js';
import { startBenchSite } from './pages.js';
import { median, ms, now, printTable, mcpText } from './lib.js';

const N = 10;

export async function run(): Promise<void> {
  const bench = await startBenchSite();
  const held: ServerResponse[] = [];
  bench.site.route('/hang', (_req, res) => void held.push(res));
  const d = await startTestDaemon();
  try {
    const a = await d.mcp(await d.addUser('alice'));
    const b = await d.mcp(await d.addUser('bob'));
    for (const c of [a, b]) {
      const r = await c.callTool({ name: 'browser_open', arguments: { url: bench.url('/counter') } });
      if (r.isError) throw new Error(`browser_open failed: ${mcpText(r)}`);
    }
    const readBob = async () => {
      const xs: number[] = [];
      for (let i = 0; i < N; i++) {
        const t0 = now();
        const r = await b.callTool({ name: 'browser_read_text', arguments: {} });
        xs.push(now() - t0);
        if (r.isError || !/Add one/.test(mcpText(r))) throw new Error(`bob's read failed: ${mcpText(r)}`);
      }
      return xs;
    };
    await readBob(); // warm-up
    const alone = await readBob();
    const stuck = a.callTool({ name: 'browser_navigate', arguments: { url: bench.url('/hang'), timeoutMs: 120000 } }, undefined, { timeout: 180000 });
    await bench.site.waitFor((r) => r.path === '/hang');
    const during = await readBob();
    const stillHanging = held.length > 0 && !held[0].writableEnded;
    for (const res of held) res.end('<!doctype html><title>late</title><p>late');
    await stuck;
    printTable(
      "Isolation: bob's browser_read_text while alice's page hangs (MCP, median)",
      ['bob alone', "while alice's page hangs", 'ratio'],
      [[ms(median(alone)), ms(median(during)), (median(during) / median(alone)).toFixed(2)]],
      [stillHanging ? "alice's navigation was still waiting on /hang for every one of bob's calls" : "note: alice's page answered before bob's runs ended"],
    );
  } finally {
    for (const res of held) if (!res.writableEnded) res.end();
    await d.stop();
    await bench.close();
  }
}
