/**
 * Which HTTP server serves: uWebSockets.js where its native build loads for this Node (the fast path), node:http
 * with ws everywhere else. `--http uws|node` (BROWSERD_HTTP) forces one; asking for uws where it cannot load is
 * an error at start, not a quiet change of server.
 */
import type { HttpApp, HttpChoice } from './types.js';
import { loadNativeUws, uwsApp } from './uws.js';
import { nodeApp } from './node.js';

export interface ChosenApp {
  app: HttpApp;
  /** Why this server, in a few words (start line, `browserd doctor`). */
  why: string;
}

export function chooseHttpApp(choice: HttpChoice): ChosenApp {
  if (choice === 'node') return { app: nodeApp(), why: 'asked for (--http node)' };
  const native = loadNativeUws();
  if ('uws' in native) return { app: uwsApp(native.uws), why: choice === 'uws' ? 'asked for (--http uws)' : `native build for Node ${process.versions.node}` };
  if (choice === 'uws') throw new Error(`--http uws: ${native.why}; use --http node or auto`);
  return { app: nodeApp(), why: native.why };
}

/** What `browserd doctor` reports without starting a server. */
export function httpServerFor(choice: HttpChoice): { kind: 'uws' | 'node'; why: string } {
  if (choice === 'node') return { kind: 'node', why: 'asked for (--http node)' };
  const native = loadNativeUws();
  if ('uws' in native) return { kind: 'uws', why: `native build for Node ${process.versions.node}` };
  return { kind: 'node', why: native.why };
}
