/**
 * `browserd serve` as a process of its own, started as an operator starts it (bin/browserd.js, which runs the
 * bundle `npm run build` made), so what is measured of it (RSS, PSS, descriptors, CPU) is the daemon's alone.
 * Users are added with `browserd user add` before it starts; their tokens come back with its URL.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

const CLI = join(fileURLToPath(new URL('..', import.meta.url)), 'bin', 'browserd.js');

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  tokens: Map<string, string>;
  /** SIGTERM, then the process's exit (it closes its browsers first). */
  stop(): Promise<void>;
}

export async function startServeProcess(o: { dataDir: string; users: string[]; env: NodeJS.ProcessEnv; nodeArgs?: string[] }): Promise<ServeProcess> {
  const tokens = new Map<string, string>();
  for (const u of o.users) tokens.set(u, execFileSync(process.execPath, [CLI, 'user', 'add', u, '--data', o.dataDir], { env: o.env, encoding: 'utf8' }).trim().split('\n').pop()!.trim());
  const child = spawn(process.execPath, [...(o.nodeArgs ?? []), CLI, 'serve', '--data', o.dataDir, '--listen', '127.0.0.1:0'], { env: o.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((r) => child.once('exit', r));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => void (stderr = (stderr + d.toString()).slice(-2000)));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        if (!line.includes('browserd listening')) return;
        try {
          resolve(JSON.parse(line).url);
        } catch (e) {
          reject(e);
        }
      });
      child.once('exit', (code) => reject(new Error(`browserd serve exited (${code}) before listening: ${stderr}`)));
    });
    return { child, url, tokens, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
