/**
 * Which HTTP server serves: uWebSockets.js where its native build loads for this Node (the fast path), node:http
 * with ws everywhere else. `--http uws|node` (BROWSERD_HTTP) forces one; asking for uws where it cannot load is
 * an error at start, not a quiet change of server.
 */
import type * as UWS from 'uWebSockets.js';
import type { HttpApp } from './types.js';
import type { HttpChoice } from '../../config.js';
import { loadNativeUws, uwsApp } from './uws.js';
import { nodeApp } from './node.js';

export interface ChosenApp {
  app: HttpApp;
  /** Why this server, in a few words (start line, `browserd doctor`). */
  why: string;
}

/** The one decision: the native uWS module when it is the one to serve, and why. */
function decide(choice: HttpChoice): { uws?: typeof UWS; why: string } {
  if (choice === 'node') return { why: 'asked for (--http node)' };
  const native = loadNativeUws();
  if ('uws' in native) return { uws: native.uws, why: choice === 'uws' ? 'asked for (--http uws)' : `native build for Node ${process.versions.node}` };
  return { why: native.why };
}

export function chooseHttpApp(choice: HttpChoice): ChosenApp {
  const { uws, why } = decide(choice);
  if (uws) return { app: uwsApp(uws), why };
  if (choice === 'uws') throw new Error(`--http uws: ${why}; use --http node or auto`);
  return { app: nodeApp(), why };
}

/** What `browserd doctor` reports without starting a server. */
export function httpServerFor(choice: HttpChoice): { kind: 'uws' | 'node'; why: string } {
  const { uws, why } = decide(choice);
  return { kind: uws ? 'uws' : 'node', why };
}
