import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { chromiumSwitches, type SwitchOptions } from './switches.js';
import { writeProfilePreferences } from './preferences.js';
import { endLeftoverChromium } from './leftover-chromium.js';
import { CdpConnection } from '../cdp/connection.js';
import { PipeTransport } from '../cdp/pipe-transport.js';
import { BrowserdError } from '../../protocol/errors.js';

export const DEFAULT_CHROME = '/usr/bin/chromium';

export function chromePath(): string {
  return process.env.BROWSERD_CHROME || DEFAULT_CHROME;
}

export interface LaunchedChromium {
  process: ChildProcess;
  /** CDP over the launch pipe; the only way into this browser. */
  conn: CdpConnection;
  /** Browser.getVersion's product, asked once to know the browser is ready. */
  version: string;
  /** The last lines Chromium wrote to stderr: attached to errors when it dies. */
  recentStderr(): string;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  close(graceMs?: number): Promise<void>;
}

/**
 * Starts Chromium with CDP on file descriptors 3 and 4 (no TCP port) and waits until it answers
 * Browser.getVersion there.
 */
export async function launchChromium(opts: SwitchOptions & { executable?: string; timeoutMs?: number }): Promise<LaunchedChromium> {
  const executable = opts.executable ?? chromePath();
  if (!existsSync(executable)) {
    // Not the caller's mistake nor a daemon bug: the host lacks its browser, and only its admin can add it.
    throw new BrowserdError('browser_unavailable', `this host has no Chromium at ${executable}`, {
      next: "Ask the admin of this host to install Debian's chromium (apt-get install chromium) or point BROWSERD_CHROME at a Chromium; `browserd doctor` checks it.",
    });
  }
  mkdirSync(opts.userDataDir, { recursive: true });
  // A browser a killed daemon left on this profile would make ours hand itself over to it and exit.
  await endLeftoverChromium(opts.userDataDir);
  writeProfilePreferences(opts.userDataDir);
  // fd 3: Chromium reads our commands; fd 4: Chromium writes replies and events.
  const child = spawn(executable, chromiumSwitches(opts), { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'], detached: false });
  const lines: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  let buf = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    buf += chunk;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      lines.push(buf.slice(0, i));
      buf = buf.slice(i + 1);
      if (lines.length > 50) lines.shift();
    }
  });
  const recentStderr = () => lines.slice(-10).join('\n');
  const conn = CdpConnection.connect(new PipeTransport(child.stdio[3] as Writable, child.stdio[4] as Readable), recentStderr);
  const timeoutMs = opts.timeoutMs ?? 30000;
  let version: string;
  try {
    version = await new Promise<string>((resolve, reject) => {
      child.once('exit', (code, signal) => reject(new Error(`Chromium exited before it was ready (code ${code}, signal ${signal}): ${lines.slice(-5).join(' | ')}`)));
      child.once('error', reject);
      conn.send('Browser.getVersion', {}, undefined, timeoutMs).then(
        (v) => resolve(v.product),
        (e) => reject(new Error(`Chromium did not start within ${timeoutMs} ms (${(e as Error).message}): ${lines.slice(-5).join(' | ')}`)),
      );
    });
  } catch (e) {
    child.kill('SIGKILL');
    await conn.close();
    throw e;
  }
  let closing: Promise<void> | undefined;
  return {
    process: child,
    conn,
    version,
    exited,
    recentStderr,
    /**
     * Waits for an exit already under way (after Browser.close Chromium is still writing cookies and session
     * state), then asks with SIGTERM, then insists with SIGKILL: a profile must not be cut off mid-write.
     */
    close(graceMs = 5000) {
      if (closing) return closing;
      closing = (async () => {
        const done = () => child.exitCode !== null || child.signalCode !== null;
        if (!done()) {
          const timedOut = (ms: number) => new Promise<boolean>((r) => setTimeout(() => r(true), ms).unref());
          if (await Promise.race([exited.then(() => false), timedOut(graceMs)])) {
            child.kill('SIGTERM');
            if (await Promise.race([exited.then(() => false), timedOut(graceMs)])) child.kill('SIGKILL');
          }
          await exited;
        }
        await conn.close();
      })();
      return closing;
    },
  };
}
