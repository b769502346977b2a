/**
 * Memory of a browser as the kernel counts it: the process and all its descendants (Chromium runs a browser,
 * a GPU, a network and a renderer per site, each a process), read from /proc. RSS counts pages shared between
 * those processes once per process, so it overstates; PSS splits each shared page among its sharers, so the
 * sum is the tree's fair share. Both are shown; a process that ends mid-read is skipped.
 */
import { readdir, readFile } from 'node:fs/promises';
import { statFields } from '../../proc-stat.js';

export interface TreeMemory {
  processes: number;
  rssBytes: number;
  /** Undefined when smaps_rollup cannot be read (another user's process, or a kernel without it). */
  pssBytes?: number;
}

const PAGE_SIZE = 4096;

/** Parent of each process: field 4 of /proc/N/stat. */
async function parents(): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  const entries = await readdir('/proc').catch(() => [] as string[]);
  await Promise.all(
    entries
      .filter((e) => /^\d+$/.test(e))
      .map(async (e) => {
        const stat = await readFile(`/proc/${e}/stat`, 'utf8').catch(() => undefined);
        if (!stat) return;
        out.set(Number(e), Number(statFields(stat)[1]));
      }),
  );
  return out;
}

/** The process `root` and every descendant alive now. */
export async function processTree(root: number): Promise<number[]> {
  const ppid = await parents();
  const children = new Map<number, number[]>();
  for (const [pid, parent] of ppid) (children.get(parent) ?? children.set(parent, []).get(parent)!).push(pid);
  const tree: number[] = [];
  const todo = ppid.has(root) ? [root] : [];
  while (todo.length) {
    const pid = todo.pop()!;
    tree.push(pid);
    todo.push(...(children.get(pid) ?? []));
  }
  return tree;
}

async function rssOf(pid: number): Promise<number | undefined> {
  const statm = await readFile(`/proc/${pid}/statm`, 'utf8').catch(() => undefined);
  return statm ? Number(statm.split(' ')[1]) * PAGE_SIZE : undefined;
}

async function pssOf(pid: number): Promise<number | undefined> {
  const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => undefined);
  const m = rollup && /^Pss:\s+(\d+) kB/m.exec(rollup);
  return m ? Number(m[1]) * 1024 : undefined;
}

export async function treeMemory(root: number): Promise<TreeMemory> {
  const pids = await processTree(root);
  let rssBytes = 0;
  let pssBytes: number | undefined = 0;
  let processes = 0;
  for (const pid of pids) {
    const rss = await rssOf(pid);
    if (rss === undefined) continue;
    processes++;
    rssBytes += rss;
    const pss = await pssOf(pid);
    pssBytes = pss === undefined || pssBytes === undefined ? undefined : pssBytes + pss;
  }
  return { processes, rssBytes, pssBytes: processes ? pssBytes : undefined };
}

export function formatBytes(n: number): string {
  return n >= 1024 * 1024 * 1024 ? `${(n / 1024 ** 3).toFixed(2)} GB` : `${(n / 1024 ** 2).toFixed(1)} MB`;
}
