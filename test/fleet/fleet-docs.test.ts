/**
 * docs/fleet.md's setup, run as written by bash on two real hosts and Debian's HAProxy. Only what a reader
 * would fill in changes: the hosts' addresses and admin keys, the fleet's directory, and loopback ports of our
 * own instead of 0.0.0.0:8787 and the desk's default (tests listen and call on loopback only).
 */
import t from 'tap';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childDaemon, freePort, type Running } from '../fixtures/child-daemon.js';
import { HAPROXY } from '../fixtures/fleet.js';
import { browserdOnPath, namedExample } from '../fixtures/doc-blocks.js';

if (!HAPROXY) {
  t.test("Debian's haproxy is needed (apt-get install haproxy)", { skip: 'haproxy is not installed on this host' }, () => {});
} else {
  t.test("docs/fleet.md's setup makes a fleet that routes the user it adds", async (t) => {
    const root = mkdtempSync(join(tmpdir(), 'browserd-fleet-docs-'));
    const dir = join(root, 'fleet');
    const vaultKey = randomBytes(32).toString('hex');
    const hosts: { d: ReturnType<typeof childDaemon>; run: Running }[] = [];
    let bash: ReturnType<typeof spawn> | undefined;
    t.teardown(async () => {
      const pid = existsSync(join(dir, 'haproxy.pid')) ? Number(readFileSync(join(dir, 'haproxy.pid'), 'utf8').trim()) : 0;
      if (pid) process.kill(pid, 'SIGKILL');
      // The desk was started with `&`: it is in the script's process group.
      if (bash?.pid) {
        try {
          process.kill(-bash.pid, 'SIGTERM');
        } catch {
          // the group is gone already
        }
      }
      for (const h of hosts) if (h.run.child.exitCode === null) h.run.child.kill('SIGTERM');
      await Promise.all(hosts.map((h) => (h.run.child.exitCode === null ? once(h.run.child, 'exit') : undefined)));
      rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    });
    for (const name of ['h1', 'h2']) {
      const d = childDaemon(join(root, name), { BROWSERD_VAULT_KEY: vaultKey, BROWSERD_TRUSTED_PROXIES: '127.0.0.1', BROWSERD_FIRST_USER: `owner-${name}` });
      hosts.push({ d, run: await d.serve() });
    }
    const [port, deskPort] = [await freePort(), await freePort()];
    const shims = browserdOnPath(join(root, 'shims'));

    const lines = namedExample('fleet-setup').text.split('\n').map((line) => {
      let l = line.replaceAll('/etc/browserd-fleet', dir).replace('--listen 0.0.0.0:8787', `--listen 127.0.0.1:${port} --desk 127.0.0.1:${deskPort}`);
      hosts.forEach((h, i) => {
        const example = `http://10.0.0.1${i + 1}:8787`;
        if (l.includes(example)) l = l.replace(example, h.run.url).replace('bda_…', h.d.adminKey());
      });
      return l;
    });
    const script = lines.join('\n');
    t.notMatch(script, /10\.0\.0\.|bda_…|0\.0\.0\.0/, 'every address and key the reader fills in was filled in');
    const { NODE_OPTIONS: _n, ...env } = process.env;
    bash = spawn('bash', ['-c', `set -euo pipefail\n${script}`], { env: { ...env, PATH: `${shims}:${env.PATH}` }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    bash.stdout!.on('data', (c) => (out += c));
    bash.stderr!.on('data', (c) => (out += c));
    const [code] = await once(bash, 'exit');
    t.equal(code, 0, `the setup ran: ${out}`);
    const token = /(bd_[a-z2-7]{10}\.\S+)\s*$/.exec(out.trim())?.[1];
    t.ok(token, 'add-user printed the new token last');
    if (!token) return;

    // HAProxy is up and its health checks pass within seconds; the user's calls reach their host through it.
    let me: any;
    for (let i = 0; i < 100; i++) {
      me = await fetch(`http://127.0.0.1:${port}/v1/me`, { headers: { Authorization: `Bearer ${token}` } }).then((r) => (r.ok ? r.json() : undefined)).catch(() => undefined);
      if (me) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    t.equal(me?.user, 'alice', 'alice is served through the router with the token add-user printed');
  });
}
