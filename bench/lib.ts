/**
 * What every benchmark shares: statistics, tables, the machine, a raw Chromium started exactly as the daemon
 * starts its own (same launcher, same switches, same CDP connection class), and Playwright MCP on Debian's
 * chromium. Benchmarks print; they never assert a time.
 */
import { callTool } from '../daemon/tools/dispatch.js';
import type { TestDaemon } from '../test/fixtures/daemon.js';
import { mkdtempSync, rmSync, readFileSync } from 'node:fs';
import { cpus, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { launchChromium, chromePath, type LaunchedChromium } from '../daemon/browser/launcher.js';
import type { CdpConnection } from '../daemon/cdp/connection.js';
import { INJECTED_SOURCE } from '../injected/generated/source.js';

/** The same host mapping the test daemon gives its Chromium: loopback names only, every other name fails. */
const RAW_WORLD = 'browserd-bench';

export const RESOLVER_RULES = '--host-resolver-rules=MAP *.test 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1';

// ------------------------------------------------------------------ numbers

export function quantile(xs: number[], q: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}
export const median = (xs: number[]) => quantile(xs, 0.5);
export const p90 = (xs: number[]) => quantile(xs, 0.9);

export function ms(x: number, digits = 1): string {
  return Number.isFinite(x) ? `${x.toFixed(digits)} ms` : 'n/a';
}

export function now(): number {
  return performance.now();
}

/** Times an async function in milliseconds. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = now();
  const value = await fn();
  return { ms: now() - t0, value };
}

// ------------------------------------------------------------------ output

/** Prints a titled table with right-aligned numeric-looking cells. */
export function printTable(title: string, headers: string[], rows: (string | number)[][], notes: string[] = []): void {
  const cells = rows.map((r) => r.map((c) => String(c)));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)));
  const numeric = (s: string) => /^[-+~≈]?[\d.,]+( ?(ms|s|x|%|chars|pages\/s))?$/.test(s) || s === 'n/a';
  const fmt = (r: string[]) => r.map((c, i) => (numeric(c) && i > 0 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ');
  console.log(`\n## ${title}\n`);
  console.log(fmt(headers));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of cells) console.log(fmt(r));
  for (const n of notes) console.log(`  ${n}`);
}

export function chromiumVersion(): string {
  try {
    // Debian's wrapper script prints a shell warning on stderr on some hosts; only stdout matters.
    return execFileSync(chromePath(), ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch (e) {
    return `unknown (${e instanceof Error ? e.message : e})`;
  }
}

export function packageVersion(name: string): string {
  try {
    const require = createRequire(import.meta.url);
    return JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')).version;
  } catch {
    return 'not installed';
  }
}

export function machineLines(): string[] {
  const c = cpus();
  return [
    `cpu: ${c[0]?.model ?? 'unknown'} (${c.length} cores)`,
    `memory: ${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
    `node: ${process.version}`,
    `chromium: ${chromiumVersion()}`,
    `@playwright/mcp: ${packageVersion('@playwright/mcp')}, @crawlee/cheerio: ${packageVersion('@crawlee/cheerio')}`,
  ];
}

// ------------------------------------------------------------------ raw Chromium over CDP

export interface RawPage {
  targetId: string;
  sessionId: string;
  mainFrameId?: string;
  /** The isolated world holding __browserd in the current document. */
  worldId?: number;
}

export interface RawBrowser {
  chromium: LaunchedChromium;
  conn: CdpConnection;
  userDataDir: string;
  /** A new page target, attached with a flattened session, Page and Runtime enabled. */
  newPage(): Promise<RawPage>;
  /** Navigates and waits for the main frame's load event. */
  navigate(p: RawPage, url: string): Promise<void>;
  /** Makes an isolated world in the main frame and evaluates the injected source there (a fallback). */
  installInjected(p: RawPage): Promise<number>;
  /** Evaluates an expression in the page's isolated world, returning the value. */
  evalInWorld<T = unknown>(p: RawPage, expression: string): Promise<T>;
  close(): Promise<void>;
}

/**
 * Starts Chromium with the daemon's own launcher and switches (daemon/browser/switches.ts) and the test daemon's
 * resolver rules. No egress proxy: the raw side has no daemon, so nothing to route through.
 */
export async function launchRawBrowser(): Promise<RawBrowser> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'browserd-bench-raw-'));
  const chromium = await launchChromium({ userDataDir, headless: true, extra: [RESOLVER_RULES] });
  const conn = chromium.conn;
  const rb: RawBrowser = {
    chromium,
    conn,
    userDataDir,
    async newPage() {
      const { targetId } = await conn.send('Target.createTarget', { url: 'about:blank' });
      // In front, as the daemon's materialise() leaves a visible tab.
      await conn.sendMayFail('Target.activateTarget', { targetId });
      const { sessionId } = await conn.send('Target.attachToTarget', { targetId, flatten: true });
      const page: RawPage = { targetId, sessionId };
      // The injected script in its own world in every new document, as the daemon's Tab.setup installs it;
      // the world's context id is picked up from Runtime.executionContextCreated.
      conn.on('Runtime.executionContextCreated', sessionId, ({ context }) => {
        if (context.name === RAW_WORLD && context.auxData?.frameId === page.mainFrameId) page.worldId = context.id;
      });
      conn.on('Page.frameNavigated', sessionId, ({ frame }) => {
        if (!frame.parentId) page.mainFrameId = frame.id;
      });
      await Promise.all([
        conn.send('Page.enable', {}, sessionId),
        conn.send('Page.setLifecycleEventsEnabled', { enabled: true }, sessionId),
        conn.send('Runtime.enable', {}, sessionId),
        conn.send('Page.addScriptToEvaluateOnNewDocument', { source: INJECTED_SOURCE, worldName: RAW_WORLD, runImmediately: true }, sessionId),
      ]);
      page.mainFrameId = (await conn.send('Page.getFrameTree', {}, sessionId)).frameTree.frame.id;
      return page;
    },
    async navigate(p, url) {
      const loaded = conn.waitFor('Page.loadEventFired', p.sessionId, () => true, 30000);
      p.worldId = undefined;
      const r = await conn.send('Page.navigate', { url }, p.sessionId);
      if (r.errorText) {
        loaded.catch(() => undefined);
        throw new Error(`${url}: ${r.errorText}`);
      }
      await loaded;
    },
    async installInjected(p) {
      const tree = await conn.send('Page.getFrameTree', {}, p.sessionId);
      const { executionContextId } = await conn.send('Page.createIsolatedWorld', { frameId: tree.frameTree.frame.id, worldName: RAW_WORLD, grantUniveralAccess: false }, p.sessionId);
      const r = await conn.send('Runtime.evaluate', { expression: INJECTED_SOURCE, contextId: executionContextId }, p.sessionId);
      if (r.exceptionDetails) throw new Error(`injected source failed: ${r.exceptionDetails.text}`);
      p.worldId = executionContextId;
      return executionContextId;
    },
    async evalInWorld<T>(p: RawPage, expression: string) {
      const contextId = p.worldId ?? (await rb.installInjected(p));
      const r = await conn.send('Runtime.evaluate', { expression, contextId, returnByValue: true, awaitPromise: true }, p.sessionId);
      if (r.exceptionDetails) throw new Error(`evaluate failed: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
      return r.result.value as T;
    },
    async close() {
      const answered = await conn.sendMayFail('Browser.close', {}, undefined, 5000);
      await conn.close();
      await chromium.close(answered ? 5000 : 500);
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
  return rb;
}

// ------------------------------------------------------------------ Playwright MCP

// The tests compare against it too (test/integration/snapshot-size.test.ts), so it lives with the fixtures.
export { startPlaywrightMcp, type PlaywrightMcp } from '../test/fixtures/playwright-mcp.js';

/** The text of an MCP tool result (all text parts joined). */
export function mcpText(r: any): string {
  return (r?.content ?? []).filter((c: any) => c.type === 'text').map((c: any) => c.text).join('\n');
}

/**
 * A user of an in-process test daemon and a way to call its tools straight through the dispatch (no HTTP), as
 * benchmarks that time the page, not the transport, do. A refused call throws with its code.
 */
export async function inProcessCaller(d: TestDaemon, name = 'bench') {
  await d.addUser(name);
  const user = d.daemon.env.users.get(name)!;
  return async (tool: string, args: Record<string, unknown>) => {
    const r = await callTool(d.daemon.pipeline, user, tool, args, { via: 'internal' });
    if (!r.ok) throw new Error(`${tool}: ${r.error.code} ${r.error.message}`);
    return r.out;
  };
}
