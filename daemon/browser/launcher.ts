import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { chromiumSwitches, type SwitchOptions } from './switches.js';

export const DEFAULT_CHROME = '/usr/bin/chromium';

export function chromePath(): string {
  return process.env.BROWSERD_CHROME || DEFAULT_CHROME;
}

export interface LaunchedChromium {
  process: ChildProcess;
  wsUrl: string;
  cdpPort: number;
  /** The last lines Chromium wrote to stderr: attached to errors when it dies. */
  recentStderr(): string;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  close(graceMs?: number): Promise<void>;
}

/** Starts Chromium and waits for its DevTools ws URL on stderr. */
export async function launchChromium(opts: SwitchOptions & { executable?: string; timeoutMs?: number }): Promise<LaunchedChromium> {
  const executable = opts.executable ?? chromePath();
  if (!existsSync(executable)) {
    throw new Error(`Chromium not found at ${executable}; install Debian's chromium (apt-get install chromium) or set BROWSERD_CHROME`);
  }
  mkdirSync(opts.userDataDir, { recursive: true });
  const child = spawn(executable, chromiumSwitches(opts), { stdio: ['ignore', 'ignore', 'pipe'], detached: false });
  const lines: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const wsUrl = await new Promise<string>((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`Chromium did not start within ${opts.timeoutMs ?? 30000} ms: ${lines.slice(-5).join(' | ')}`));
    }, opts.timeoutMs ?? 30000);
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      buf += chunk;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        lines.push(line);
        if (lines.length > 50) lines.shift();
        const m = /DevTools listening on (ws:\/\/\S+)/.exec(line);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`Chromium exited before it was ready (code ${code}, signal ${signal}): ${lines.slice(-5).join(' | ')}`));
    });
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
  const cdpPort = Number(new URL(wsUrl).port);
  let closing: Promise<void> | undefined;
  return {
    process: child,
    wsUrl,
    cdpPort,
    exited,
    recentStderr: () => lines.slice(-10).join('\n'),
    /**
     * Waits for an exit already under way (after Browser.close Chromium is still writing cookies and session
     * state), then asks with SIGTERM, then insists with SIGKILL: a profile must not be cut off mid-write.
     */
    close(graceMs = 5000) {
      if (closing) return closing;
      closing = (async () => {
        const done = () => child.exitCode !== null || child.signalCode !== null;
        if (done()) return;
        const timedOut = (ms: number) => new Promise<boolean>((r) => setTimeout(() => r(true), ms).unref());
        if (await Promise.race([exited.then(() => false), timedOut(graceMs)])) {
          child.kill('SIGTERM');
          if (await Promise.race([exited.then(() => false), timedOut(graceMs)])) child.kill('SIGKILL');
        }
        await exited;
      })();
      return closing;
    },
  };
}
