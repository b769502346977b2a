/** `browserd doctor`: each check with what it found and, when it fails, the fix. */
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Config } from '../daemon/config.js';
import { launchChromium } from '../daemon/browser/launcher.js';
import { peekDb } from '../storage/db.js';
import { peekVaultKey, vaultKeyPath } from '../storage/vault-key.js';
import { clientSocketInode, holdsSocket } from '../daemon/net/peer-process.js';
import { httpServerFor } from '../daemon/http/transport/choose.js';

interface Check { name: string; ok: boolean; detail: string; fix?: string }

async function check(name: string, fn: () => Promise<{ ok: boolean; detail: string; fix?: string }>): Promise<Check> {
  try {
    return { name, ...(await fn()) };
  } catch (e) {
    return { name, ok: false, detail: (e as Error).message };
  }
}

/** The oldest Node this runs on (package.json engines). */
const NODE_MAJOR = 20;

export async function runDoctor(cfg: Config): Promise<boolean> {
  const checks: Check[] = [];
  checks.push(
    await check('node', async () => {
      const major = Number(process.versions.node.split('.')[0]);
      return major >= NODE_MAJOR
        ? { ok: true, detail: `Node ${process.versions.node}` }
        : { ok: false, detail: `Node ${process.versions.node} is older than ${NODE_MAJOR}`, fix: `Install Node ${NODE_MAJOR} or later (Debian: apt-get install nodejs from a current source).` };
    }),
  );
  checks.push(
    await check('http server', async () => {
      const { kind, why } = httpServerFor(cfg.http);
      if (cfg.http === 'uws' && kind !== 'uws') return { ok: false, detail: why, fix: 'Use --http auto (or node): node:http serves on any Node.' };
      return { ok: true, detail: `${kind === 'uws' ? 'uWebSockets.js' : 'node:http + ws'} (${why})` };
    }),
  );
  const chromiumFound = await check('chromium found', async () => {
    if (!existsSync(cfg.chrome)) return { ok: false, detail: `${cfg.chrome} is missing`, fix: "apt-get install chromium (Debian's package), or set BROWSERD_CHROME" };
    const v = execFileSync(cfg.chrome, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return { ok: true, detail: `${cfg.chrome}: ${v}` };
  });
  checks.push(chromiumFound);
  // Without Chromium the checks that start it would only repeat the one fix above.
  if (chromiumFound.ok) {
    checks.push(await check('chromium sandbox', async () => sandboxCheck()));
    checks.push(
      await check('chromium starts headless', async () => {
        const dir = mkdtempSync(join(tmpdir(), 'browserd-doctor-'));
        try {
          const c = await launchChromium({ executable: cfg.chrome, userDataDir: dir, headless: true, timeoutMs: 20000 });
          // Asked to close, Chromium ends its helpers and finishes writing the new profile before it exits;
          // without the ask, close() waits out its grace and signals it, and helpers went on writing after.
          await c.conn.sendMayFail('Browser.close', {}, undefined, 5000);
          await c.close();
          return { ok: true, detail: 'started and closed cleanly' };
        } catch (e) {
          return { ok: false, detail: (e as Error).message, fix: 'Install missing libraries (apt-get install chromium pulls them in); on a container give it --shm-size or keep --disable-dev-shm-usage.' };
        } finally {
          // Chromium's helper processes can still be writing into the profile for a moment after the main
          // process exits, so a single rmdir may meet a directory that just gained a file: retry it. A profile
          // that still will not go is left in the temp dir: it says nothing about whether Chromium starts.
          try {
            rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
          } catch {
            // left for the system's temp cleaning
          }
        }
      }),
    );
  }
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
      if (existsSync(cfg.dataDir)) {
        accessSync(cfg.dataDir, constants.W_OK);
        return { ok: true, detail: cfg.dataDir };
      }
      // Nothing is made here: the first start creates it, so the nearest existing parent must be writable.
      let parent = dirname(cfg.dataDir);
      while (!existsSync(parent) && parent !== dirname(parent)) parent = dirname(parent);
      try {
        accessSync(parent, constants.W_OK);
        return { ok: true, detail: `${cfg.dataDir} does not exist yet; the first start creates it (in ${parent}, which is writable)` };
      } catch {
        return { ok: false, detail: `${cfg.dataDir} does not exist and ${parent} is not writable`, fix: `Create ${cfg.dataDir} for this user, or pass --data DIR.` };
      }
    }),
  );
  // Read in the same read-only look as the store: the key is checked against what the store holds.
  let vaultState: Omit<Check, 'name'> = { ok: true, detail: `no vault yet; the first start creates ${vaultKeyPath(cfg.dataDir)}` };
  const db = await check('LMDB opens', async () => {
    const peek = peekDb(cfg.dataDir);
    if (!peek) return { ok: true, detail: 'no store yet; the first start creates it' };
    try {
      const users = [...peek.users.getKeys({})].length;
      const vault = peekVaultKey(peek, cfg.dataDir);
      vaultState = vault.ok === 'empty' ? { ok: true, detail: `no vault yet; the first start creates ${vaultKeyPath(cfg.dataDir)}` } : vault.ok ? { ok: true, detail: `opens the vault (key from ${vault.source})` } : { ok: false, detail: vault.message, fix: vault.next };
      return { ok: true, detail: `${users} user(s), opened read-only` };
    } finally {
      await peek.close();
    }
  });
  checks.push(db, { name: 'vault key', ...vaultState });
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

/** A kernel setting under /proc/sys, or undefined where this kernel has none. */
function sysctl(path: string): string | undefined {
  try {
    return readFileSync(`/proc/sys/${path}`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/**
 * Whether Chromium can sandbox its renderers here. As root it cannot (browserd then passes --no-sandbox);
 * otherwise its sandbox needs unprivileged user namespaces, which a kernel setting or AppArmor can forbid.
 */
function sandboxCheck(): { ok: boolean; detail: string; fix?: string } {
  if (process.getuid?.() === 0) {
    return { ok: false, detail: "running as root: Chromium cannot use its sandbox here, so browserd runs it with --no-sandbox and every user's pages run unsandboxed", fix: 'Run browserd as a user of its own (systemd/browserd.service does).' };
  }
  const reasons: string[] = [];
  if (sysctl('kernel/unprivileged_userns_clone') === '0') reasons.push('kernel.unprivileged_userns_clone is 0');
  if (sysctl('user/max_user_namespaces') === '0') reasons.push('user.max_user_namespaces is 0');
  if (sysctl('kernel/apparmor_restrict_unprivileged_userns') === '1') reasons.push('AppArmor restricts unprivileged user namespaces');
  // The kernel's own answer, where unshare is installed: make a user namespace as this user.
  const tried = spawnSync('unshare', ['--user', 'true'], { stdio: 'ignore' });
  if (tried.error === undefined && tried.status !== 0 && !reasons.length) reasons.push('this user cannot create a user namespace (unshare --user failed)');
  if (reasons.length) return { ok: false, detail: `Chromium's sandbox cannot start: ${reasons.join('; ')}`, fix: 'Allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0, or an AppArmor profile for chromium).' };
  return { ok: true, detail: 'user namespaces are available: renderers run sandboxed' };
}
