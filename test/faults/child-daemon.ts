/**
 * `browserd serve` as a child process on a data dir, for faults that must hit the real process: a kill -9 of the
 * daemon, a disk that fills under it. Its first user's token comes from the first-run credentials file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const bin = new URL('../../bin/browserd.js', import.meta.url).pathname;

export interface Running { child: ChildProcess; url: string; output(): string }

export function childDaemon(data: string, env: Record<string, string> = {}) {
  const token = () => /^token=(bd_\S+)$/m.exec(readFileSync(join(data, 'first-run-credentials.txt'), 'utf8'))![1]!;
  let current: Running | undefined;
  return {
    token,
    async serve(): Promise<Running> {
      const child = spawn(process.execPath, [bin, 'serve', '--listen', '127.0.0.1:0', '--data', data], {
        // Webhook receivers on loopback are the tests' own addresses (never called: no event fires).
        env: { ...process.env, BROWSERD_FIRST_USER: 'owner', BROWSERD_LOG_LEVEL: 'warn', BROWSERD_ALLOW_PRIVATE_NETWORK: '1', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout!.setEncoding('utf8');
      child.stderr!.setEncoding('utf8');
      child.stderr!.on('data', (c: string) => (out += c));
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout!.on('data', (c: string) => {
          out += c;
          const m = /(http:\/\/127\.0\.0\.1:\d+)\/mcp/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.once('exit', (code) => reject(new Error(`the daemon exited (${code}) before it listened: ${out}`)));
      });
      current = { child, url, output: () => out };
      return current;
    },
    async call(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
      let res: Response;
      try {
        res = await fetch(`${url}${path}`, { method, headers: { Authorization: `Bearer ${token()}`, ...(body ? { 'Content-Type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
      } catch (e) {
        // Say how the daemon ended, if it did, and what it said: a bare "fetch failed" explains nothing.
        const c = current?.child;
        const ended = c && (c.exitCode !== null || c.signalCode !== null) ? `the daemon exited (code ${c.exitCode}, signal ${c.signalCode})` : 'the daemon is still running';
        // Still a TypeError, as fetch's own: callers that kill the daemon on purpose tell "never acknowledged" by it.
        throw new TypeError(`${method} ${path}: ${(e as Error).message} (${(e as { cause?: Error }).cause?.message ?? ''}); ${ended}; its output: ${current?.output().slice(-3000)}`, { cause: e });
      }
      const text = await res.text();
      return { status: res.status, json: text ? JSON.parse(text) : undefined };
    },
  };
}
