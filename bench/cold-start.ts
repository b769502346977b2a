/**
 * Cold start, 5 repetitions each, medians:
 *  - a new user's first tool call: browser_open on a fixture page, Chromium launch included (the MCP connect
 *    before it is timed on its own);
 *  - a daemon restart: stop the daemon, start a new one on the same data dir, then time until browser_tabs
 *    answers (no browser needed) and until browser_snapshot of the tab reopened from LMDB answers (Chromium
 *    launch + tab reopened at its last URL included).
 */
import { rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestDaemon, type TestDaemon } from '../test/fixtures/daemon.js';
import { startBenchSite } from './pages.js';
import { median, ms, now, printTable, mcpText } from './lib.js';

const REPS = 5;

export async function run(): Promise<void> {
  const site = await startBenchSite();
  const url = site.url('/article');
  const notes: string[] = [];
  const connect: number[] = [];
  const firstOpen: number[] = [];
  const secondOpen: number[] = [];
  const stopMs: number[] = [];
  const startMs: number[] = [];
  const tabsMs: number[] = [];
  const snapMs: number[] = [];
  try {
    // ------------------------------------------------------------ a new user's first call
    {
      const d = await startTestDaemon({ maxBrowsers: REPS + 1 });
      try {
        for (let i = 0; i < REPS; i++) {
          const name = `cold${i}`;
          const token = await d.addUser(name);
          let t0 = now();
          const client = await d.mcp(token);
          connect.push(now() - t0);
          t0 = now();
          const r = await client.callTool({ name: 'browser_open', arguments: { url } });
          firstOpen.push(now() - t0);
          if (r.isError) throw new Error(`browser_open failed: ${mcpText(r)}`);
          // The same call again, browser already up: what the launch adds is the difference.
          t0 = now();
          const r2 = await client.callTool({ name: 'browser_open', arguments: { url } });
          secondOpen.push(now() - t0);
          if (r2.isError) throw new Error(`browser_open failed: ${mcpText(r2)}`);
          // Free the cores for the next repetition: close this user's browser.
          await client.close();
          await d.daemon.env.pool.peek(name)?.close();
        }
      } finally {
        await d.stop();
      }
    }

    // ------------------------------------------------------------ daemon restart to first answer
    {
      const dataDir = mkdtempSync(join(tmpdir(), 'browserd-bench-restart-'));
      let d: TestDaemon | undefined = await startTestDaemon({}, { keepDataDir: dataDir });
      try {
        const token = await d.addUser('bench');
        const c = await d.mcp(token);
        const open = await c.callTool({ name: 'browser_open', arguments: { url } });
        if (open.isError) throw new Error(`browser_open failed: ${mcpText(open)}`);
        const tab = /Opened tab (\S+)/.exec(mcpText(open))?.[1] ?? 't1';
        for (let i = 0; i < REPS; i++) {
          let t0 = now();
          await d.stop();
          stopMs.push(now() - t0);
          d = undefined;
          t0 = now();
          d = await startTestDaemon({}, { keepDataDir: dataDir });
          startMs.push(now() - t0);
          const client = await d.mcp(token);
          const tabs = await client.callTool({ name: 'browser_tabs', arguments: {} });
          tabsMs.push(now() - t0);
          if (tabs.isError || !mcpText(tabs).includes(tab)) throw new Error(`browser_tabs after restart does not list ${tab}: ${mcpText(tabs)}`);
          const snap = await client.callTool({ name: 'browser_snapshot', arguments: { tab } });
          snapMs.push(now() - t0);
          if (snap.isError || !mcpText(snap).includes('A long article')) throw new Error(`browser_snapshot of reopened ${tab} failed: ${mcpText(snap).slice(0, 300)}`);
        }
      } finally {
        await d?.stop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  } finally {
    await site.close();
  }
  const row = (what: string, xs: number[]) => [what, ms(median(xs)), ms(Math.min(...xs)), ms(Math.max(...xs))];
  notes.push(`${REPS} repetitions each; page: the ~5,000-word article on the loopback fixture site.`);
  notes.push(
    `Chromium launch + CDP connect add about ${(median(firstOpen) - median(secondOpen)).toFixed(0)} ms (first minus second browser_open). Every browser_open also waits,`,
    '  after the load event, until the tab has had no request in flight for 80 ms (Tab.settle).',
  );
  notes.push('restart rows are measured from the call that starts the new daemon (after the old one has stopped); the MCP connect (initialize) is inside them.');
  printTable(
    'Cold start',
    ['what', 'median', 'min', 'max'],
    [
      row('new user: MCP connect (initialize)', connect),
      row('new user: first browser_open (Chromium launch included)', firstOpen),
      row('same user: second browser_open (browser already up)', secondOpen),
      row('restart: daemon stop (browsers closed gracefully)', stopMs),
      row('restart: new daemon started (listening)', startMs),
      row('restart: until browser_tabs answers', tabsMs),
      row('restart: until browser_snapshot of the reopened tab answers', snapMs),
    ],
    notes,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
