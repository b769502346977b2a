/**
 * The CDP link to a user's Chromium: it is a pipe only the daemon holds (no port another process could attach
 * to), and when Chromium dies a call waiting on the page ends at once with browser_crashed.
 */
import t from 'tap';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { startStack, type Stack } from '../fixtures/stack.js';
import { html, type FixtureSite } from '../fixtures/site.js';
import type { TestDaemon } from '../fixtures/daemon.js';
import { statFields } from '../../daemon/proc-stat.js';

let stack: Stack;
let d: TestDaemon;
let site: FixtureSite;
let alice: string;
const tool = (name: string, args: Record<string, unknown>) => stack.rest(name, args);

t.before(async () => {
  stack = await startStack();
  ({ d, site, token: alice } = stack);
  site.route('/quiet', html('<h1>nothing will appear here</h1>'));
});
t.teardown(() => stack.stop());

/** A process and every process under it, from /proc. */
function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The command name may hold spaces and parentheses: the parent pid comes after the last ')'.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(statFields(stat)[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      /* the process ended while we looked */
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    out.push(p);
    for (const c of children.get(p) ?? []) walk(c);
  };
  walk(root);
  return out;
}

/** Inodes of TCP sockets in LISTEN state (state 0A in /proc/net/tcp and tcp6). */
function listeningInodes(): Set<string> {
  const set = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[3] === '0A') set.add(f[9]!);
    }
  }
  return set;
}

function socketInodes(pid: number): string[] {
  const out: string[] = [];
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(join(`/proc/${pid}/fd`, fd)));
        if (m) out.push(m[1]!);
      } catch {
        /* closed meanwhile */
      }
    }
  } catch {
    /* the process ended */
  }
  return out;
}

t.test('no process of the user\'s Chromium listens on any TCP port, so nothing else can attach to it', async (t) => {
  const opened = await tool('browser_open', { url: `${site.url}/quiet` });
  t.equal(opened.status, 200, JSON.stringify(opened.json));
  const inst = d.daemon.env.pool.peek('alice')!;
  const tree = processTree(inst.pid!);
  t.ok(tree.length > 1, `Chromium and its helpers: ${tree.join(',')}`);
  const listening = listeningInodes();
  const owned = tree.flatMap((pid) => socketInodes(pid).filter((i) => listening.has(i)).map((i) => `${pid}:${i}`));
  t.same(owned, [], 'no listening socket belongs to Chromium');
  const cmdline = readFileSync(`/proc/${inst.pid}/cmdline`, 'utf8').split('\0');
  t.ok(cmdline.includes('--remote-debugging-pipe'), 'CDP runs over the launch pipe');
  t.notOk(cmdline.some((a) => a.startsWith('--remote-debugging-port')), 'no debugging port was asked for');
  t.notOk(existsSync(join(inst.profileDir(), 'DevToolsActivePort')), 'no DevToolsActivePort file advertises a port');
});

t.test('kill -9 of Chromium during a long browser_wait ends the wait with browser_crashed, long before its timeout', async (t) => {
  const opened = await tool('browser_open', { url: `${site.url}/quiet` });
  const tab = opened.json.tab;
  const inst = d.daemon.env.pool.peek('alice')!;
  const conn = inst.conn!;
  // Kill only once the wait is polling the page.
  const { waiting } = await longWaitPolling(conn, tab);
  const killedAt = Date.now();
  process.kill(inst.pid!, 'SIGKILL');
  const r = await waiting;
  const tookMs = Date.now() - killedAt;
  t.equal(r.json.error?.code, 'browser_crashed', JSON.stringify(r.json));
  t.ok(tookMs < 10000, `the wait ended ${tookMs} ms after the kill, not at its 20 s timeout`);
  const again = await tool('browser_read_text', { tab });
  t.equal(again.status, 200, 'the next call restarts the browser with the tab');
});

/**
 * Starts a 20 s browser_wait for text that never appears and resolves once it is polling the page (its first
 * in-page check went out), with the call's answer still to come in `waiting`.
 */
async function longWaitPolling(conn: { send: (...a: any[]) => Promise<unknown> }, tab: string) {
  const polling = new Promise<void>((resolve) => {
    const send = conn.send.bind(conn);
    conn.send = (method: string, params: any, ...rest: unknown[]) => {
      if (method === 'Runtime.evaluate' && String(params?.expression).includes('__browserd.check(')) resolve();
      return send(method, params, ...rest);
    };
  });
  const waiting = tool('browser_wait', { tab, text: 'this text never appears', timeoutMs: 20000 });
  await polling;
  return { waiting };
}

/**
 * Sends bytes to a proxy from a separate Node process and returns what came back: the status line of an HTTP
 * answer, else the bytes in hex (a SOCKS5 answer).
 */
function requestFromOtherProcess(proxyPort: number, raw: string | Buffer): Promise<string> {
  const script = `
    const s = require('node:net').connect(${proxyPort}, '127.0.0.1', () => s.write(Buffer.from('${Buffer.from(raw).toString('hex')}', 'hex')));
    const got = []; s.on('data', (d) => got.push(d));
    s.on('close', () => { const all = Buffer.concat(got); process.stdout.write(all.length === 0 ? 'closed without an answer' : all.subarray(0, 4).toString() === 'HTTP' ? all.toString().split('\\r\\n')[0] : all.toString('hex')); });
    s.on('error', (e) => process.stdout.write('error ' + e.message));`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['-e', script], { timeout: 20000 }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
  });
}

t.test('another local process can not use the egress proxy, while the browser still loads pages through it', async (t) => {
  site.route('/for-browsers-only', html('<h1>only the browser</h1>'));
  const inst = d.daemon.env.pool.peek('alice') ?? (await tool('browser_open', { url: `${site.url}/quiet` }), d.daemon.env.pool.peek('alice')!);
  const proxyArg = readFileSync(`/proc/${inst.pid}/cmdline`, 'utf8').split('\0').find((a) => a.startsWith('--proxy-server='))!;
  const proxyPort = Number(/:(\d+)$/.exec(proxyArg)![1]);
  const before = site.requests.filter((r) => r.path === '/for-browsers-only').length;
  const request = `GET /for-browsers-only HTTP/1.1\r\nHost: 127.0.0.1:${site.port}\r\nConnection: close\r\n\r\n`;
  // A SOCKS5 greeting, a CONNECT to the site and a request behind it, all at once, as plain http:// is carried.
  const name = Buffer.from('127.0.0.1');
  const socks = Buffer.concat([Buffer.from([5, 1, 0, 5, 1, 0, 3, name.length]), name, Buffer.from([site.port >> 8, site.port & 255]), Buffer.from(request)]);
  const overSocks = await requestFromOtherProcess(proxyPort, socks);
  const plain = await requestFromOtherProcess(proxyPort, `GET ${site.url}/for-browsers-only HTTP/1.1\r\nHost: 127.0.0.1:${site.port}\r\nConnection: close\r\n\r\n`);
  const tunnel = await requestFromOtherProcess(proxyPort, `CONNECT 127.0.0.1:${site.port} HTTP/1.1\r\nHost: 127.0.0.1:${site.port}\r\n\r\n`);
  t.equal(overSocks, '0500' + '05020001000000000000', `SOCKS5: no authentication asked, then "connection not allowed" (${overSocks})`);
  t.match(plain, /^HTTP\/1\.1 403/, `a plain request is refused: ${plain}`);
  t.match(tunnel, /^HTTP\/1\.1 403/, `a CONNECT tunnel is refused: ${tunnel}`);
  t.equal(site.requests.filter((r) => r.path === '/for-browsers-only').length, before, 'nothing reached the site from the other process');
  const opened = await tool('browser_open', { url: `${site.url}/for-browsers-only` });
  t.equal(opened.status, 200, 'the browser itself still gets through');
  t.equal(site.requests.filter((r) => r.path === '/for-browsers-only').length, before + 1, 'exactly the browser\'s request arrived');
  t.match(proxyArg, /http=socks5:\/\/127\.0\.0\.1:\d+;https=http:\/\/127\.0\.0\.1:\d+$/, 'plain http over SOCKS5, the rest over CONNECT, both to the guard');
});

t.test('a tab whose renderer crashes during a long browser_wait ends the wait at once, not at its timeout', async (t) => {
  const tab = (await tool('browser_open', { url: `${site.url}/quiet` })).json.tab;
  const inst = d.daemon.env.pool.peek('alice')!;
  const live = inst.tabs.get(tab)!;
  const conn = inst.conn!;
  const { waiting } = await longWaitPolling(conn, tab);
  const crashedAt = Date.now();
  void conn.sendMayFail('Page.crash', {}, live.sessionId);
  const r = await waiting;
  const tookMs = Date.now() - crashedAt;
  t.equal(r.json.error?.code, 'browser_crashed', JSON.stringify(r.json));
  t.ok(tookMs < 10000, `the wait ended ${tookMs} ms after the crash, not at its 20 s timeout`);
  const again = await tool('browser_read_text', { tab });
  t.equal(again.status, 200, 'the next call reopens the tab');
});
