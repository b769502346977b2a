/**
 * Who is on the other end of a loopback TCP connection, from /proc (Linux). The egress proxy uses it to serve
 * only the browsers this daemon launched: any local process can connect to a loopback port, but the kernel
 * knows which process holds the client socket, and that cannot be forged the way a header or a secret on
 * Chromium's command line (readable by every local user in /proc/PID/cmdline) could be.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { statFields } from '../proc-stat.js';
import { egressProxySwitch } from './egress-proxy.js';

const ESTABLISHED = '01';

/**
 * The inode of the client socket of a loopback connection whose client side uses `clientPort` and whose
 * server side is `serverPort`, from /proc/net/tcp and tcp6. Undefined when it is not there (or no /proc).
 */
export function clientSocketInode(clientPort: number, serverPort: number): string | undefined {
  const local = `:${clientPort.toString(16).toUpperCase().padStart(4, '0')}`;
  const remote = `:${serverPort.toString(16).toUpperCase().padStart(4, '0')}`;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n')) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      const f = line.trim().split(/\s+/);
      if (f[3] === ESTABLISHED && f[1]?.endsWith(local) && f[2]?.endsWith(remote) && f[9] && f[9] !== '0') return f[9];
    }
  }
  return undefined;
}

/** Whether process `pid` has the socket with this inode open. */
export function holdsSocket(pid: number, inode: string): boolean {
  const want = `socket:[${inode}]`;
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  for (const fd of fds) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`) === want) return true;
    } catch {
      // closed while we looked
    }
  }
  return false;
}

/** Direct children of a process (every thread's list: any thread may have spawned one). */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  let listed = false;
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      try {
        for (const c of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/)) if (c) out.push(Number(c));
        listed = true;
      } catch {
        // the thread ended, or the kernel has no children lists (CONFIG_PROC_CHILDREN)
      }
    }
  } catch {
    return out;
  }
  return listed ? out : childrenByScan(pid);
}

/** The slow way, for kernels without children lists: every process whose parent is `pid`. */
function childrenByScan(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(statFields(stat)[1]) === pid) out.push(Number(name));
    } catch {
      // ended while we looked
    }
  }
  return out;
}

/** The command line of a process as its arguments, or [] when it is gone. */
export function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

/**
 * An admission check for the egress proxy: the connection must come from a Chromium this process launched
 * with this very proxy (its command line holds egressProxySwitch of our port). Chromium runs its network stack
 * inside the browser process (see switches.ts, NetworkServiceInProcess2), so the client socket is held by that
 * process itself.
 * Returns the admitted browser's pid, else the reason for the refusal.
 */
export function ownBrowsersOnly(): (clientPort: number, proxyPort: number) => string | { pid: number } {
  return (clientPort, port) => {
    const inode = clientSocketInode(clientPort, port);
    if (!inode) return 'the connecting process could not be identified';
    const marker = egressProxySwitch(port);
    for (const child of childrenOf(process.pid)) {
      if (commandLine(child).includes(marker) && holdsSocket(child, inode)) return { pid: child };
    }
    return "not one of the daemon's browsers";
  };
}
