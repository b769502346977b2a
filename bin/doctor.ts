/** `browserd doctor`: each check with what it found and, when it fails, the fix. */
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../daemon/config.js';
import { launchChromium } from '../daemon/browser/launcher.js';
import { openDb } from '../storage/db.js';
import { peekVaultKey, vaultKeyPath } from '../storage/vault-key.js';
import { clientSocketInode, holdsSocket } from '../daemon/net/peer-process.js';

interface Check { name: string; ok: boolean; detail: string; fix?: string }

async function check(name: string, fn: () => Promise<{ ok: boolean; detail: string; fix?: string }>): Promise<Check> {
  try {
    return { name, ...(await fn()) };
  } catch (e) {
    return { name, ok: false, detail: (e as Error).message };
  }
}

export async function runDoctor(cfg: Config): Promise<boolean> {
  const checks: Check[] = [];
  checks.push(
    await check('chromium found', async () => {
      if (!existsSync(cfg.chrome)) return { ok: false, detail: `${cfg.chrome} is missing`, fix: "apt-get install chromium (Debian's package), or set BROWSERD_CHROME" };
      const v = execFileSync(cfg.chrome, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
      return { ok: true, detail: `${cfg.chrome}: ${v}` };
    }),
  );
  checks.push(
    await check('chromium starts headless', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'browserd-doctor-'));
      try {
        const c = await launchChromium({ executable: cfg.chrome, userDataDir: dir, headless: true, timeoutMs: 20000 });
        await c.close();
        return { ok: true, detail: 'started and closed cleanly' };
      } catch (e) {
        return { ok: false, detail: (e as Error).message, fix: 'Install missing libraries (apt-get install chromium pulls them in); on a container give it --shm-size or keep --disable-dev-shm-usage.' };
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }),
  );
  checks.push(
    await check('egress guard knows its browsers', async () => {
      // The proxy admits a connection only when /proc shows who holds its client socket: try that here.
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as AddressInfo).port;
      const client = connect(port, '127.0.0.1');
      try {
        await new Promise<void>((resolve, reject) => client.once('connect', resolve).once('error', reject));
        const inode = clientSocketInode(client.localPort!, port);
        const ok = !!inode && holdsSocket(process.pid, inode);
        return ok
          ? { ok: true, detail: 'loopback connections can be traced to their process through /proc' }
          : { ok: false, detail: 'could not trace a loopback connection to its process; the egress proxy would refuse every browser', fix: 'Run on Linux with /proc mounted (not hidepid for the daemon\'s own user).' };
      } finally {
        client.destroy();
        server.close();
      }
    }),
  );
  checks.push(
    await check('data dir writable', async () => {
      mkdirSync(cfg.dataDir, { recursive: true });
      accessSync(cfg.dataDir, constants.W_OK);
      return { ok: true, detail: cfg.dataDir };
    }),
  );
  checks.push(
    await check('LMDB opens', async () => {
      const db = openDb(cfg.dataDir);
      const users = [...db.users.getKeys({})].length;
      await db.close();
      return { ok: true, detail: `${users} user(s)` };
    }),
  );
  checks.push(
    await check('vault key', async () => {
      const db = openDb(cfg.dataDir);
      try {
        const state = peekVaultKey(db, cfg.dataDir);
        if (state.ok === 'empty') return { ok: true, detail: `no vault yet; the first start creates ${vaultKeyPath(cfg.dataDir)}` };
        if (state.ok) return { ok: true, detail: `opens the vault (key from ${state.source})` };
        return { ok: false, detail: state.message, fix: state.next };
      } finally {
        await db.close();
      }
    }),
  );
  const health = await fetch(`http://${cfg.host.includes(':') ? `[${cfg.host}]` : cfg.host}:${cfg.port}/health`, { signal: AbortSignal.timeout(2000) })
    .then(async (r) => ({ status: r.status, body: (await r.json()) as { ok?: boolean; version?: string } }))
    .catch(() => undefined);
  checks.push(
    await check('port', async () => {
      if (health) return { ok: true, detail: `${cfg.host}:${cfg.port} is served by a running browserd` };
      const free = await new Promise<boolean>((resolve) => {
        const s = createServer();
        s.once('error', () => resolve(false));
        s.listen(cfg.port, cfg.host, () => s.close(() => resolve(true)));
      });
      return free
        ? { ok: true, detail: `${cfg.host}:${cfg.port} is free` }
        : { ok: false, detail: `${cfg.host}:${cfg.port} is taken by another program`, fix: 'Stop it, or start browserd with --listen HOST:OTHERPORT.' };
    }),
  );
  checks.push({
    name: 'running daemon',
    ok: true,
    detail: health ? `/health answered ${health.status} ok=${health.body.ok} version ${health.body.version}` : 'none running (start it with `browserd serve`)',
  });
  for (const c of checks) {
    console.log(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}`);
    if (!c.ok && c.fix) console.log(`     fix: ${c.fix}`);
  }
  return checks.every((c) => c.ok);
}
