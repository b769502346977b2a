/**
 * Whose rules a shared or service worker gets. Chromium does not say which page made a browser-level worker,
 * and a read tab can make one (from an isolated world a CDP session made there, where the in-realm guard of
 * read-guard.ts does not reach): a worker the read tab made must not then write under act rules. A worker's
 * script is always of its maker's origin, so the worker is taken for a read tab's whenever a read tab (or
 * browser_read's scratch tab) holds a frame of that origin, and whenever its origin cannot be told (opaque,
 * unparsable) or a read tab's frames cannot be listed: fail closed. Frames in other processes are not in a
 * page's frame tree, so every out-of-process frame's origin counts too, whatever tab it is in.
 */
import type { CdpConnection } from '../cdp/connection.js';

export type WorkerMode = 'read' | 'act';

function originOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    // blob: URLs carry their maker's origin; URL reports it (null for an opaque maker).
    return u.origin && u.origin !== 'null' && /^https?:/.test(u.origin) ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

interface FrameTree { frame: { url: string; securityOrigin?: string }; childFrames?: FrameTree[] }

function collect(tree: FrameTree, into: Set<string>) {
  const o = tree.frame.securityOrigin && tree.frame.securityOrigin !== '://' ? tree.frame.securityOrigin : originOf(tree.frame.url);
  if (o) into.add(o);
  for (const c of tree.childFrames ?? []) collect(c, into);
}

/**
 * The mode a browser-level worker at workerUrl runs under. readSessions: the CDP sessions of every open read
 * tab, with the URL each was last known at.
 */
export function browserWorkerMode(conn: CdpConnection, workerUrl: string, readSessions: { sessionId: string; url: string }[]): WorkerMode | Promise<WorkerMode> {
  // Answered at once where it can be (the worker is paused, but its rules should be in without a round trip
  // more than before); the frame trees are asked only when a read tab's own address does not already tell.
  const origin = originOf(workerUrl);
  if (!origin) return 'read';
  if (readSessions.length === 0) return 'act';
  if (readSessions.some((s) => originOf(s.url) === origin)) return 'read';
  return framesMode(conn, origin, readSessions);
}

async function framesMode(conn: CdpConnection, origin: string, readSessions: { sessionId: string; url: string }[]): Promise<WorkerMode> {
  const origins = new Set<string>();
  try {
    const trees = await Promise.all(readSessions.map(async (s) => {
      const o = originOf(s.url);
      if (o) origins.add(o);
      return (await conn.send('Page.getFrameTree', {}, s.sessionId, 5000)).frameTree as FrameTree;
    }));
    for (const t of trees) collect(t, origins);
    const { targetInfos } = await conn.send('Target.getTargets', {}, undefined, 5000);
    for (const t of targetInfos as { type: string; url: string }[]) {
      const o = t.type === 'iframe' ? originOf(t.url) : undefined;
      if (o) origins.add(o);
    }
  } catch {
    return 'read';
  }
  return origins.has(origin) ? 'read' : 'act';
}
