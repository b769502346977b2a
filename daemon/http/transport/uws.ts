/**
 * The fast path: uWebSockets.js, where its native build loads. The package ships builds for a few Node ABIs
 * (Node 20 and older) and otherwise falls back, with a warning on the console, to a JavaScript copy that lacks
 * parts of the API (HttpRequest.forEach): the daemon would listen and die on its first request. So the build is
 * loaded here by its own file name, and when there is none for this Node the caller serves with node:http.
 */
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type * as UWS from 'uWebSockets.js';
import type { HttpApp, Listening } from './types.js';

const require = createRequire(import.meta.url);

/**
 * uWS's LIBUS_LISTEN_EXCLUSIVE_PORT. Its typings declare listen options only for listen(port, ...); the binding
 * takes them after a host as well (test/rest/listen.test.ts holds it).
 */
const LISTEN_EXCLUSIVE_PORT = 1;
type ListenWithOptions = { listen(host: string, port: number, options: number, cb: (socket: UWS.us_listen_socket | false) => void): void };

/** The native module for this Node, or why there is none. */
export function loadNativeUws(): { uws: typeof UWS } | { why: string } {
  let dir: string;
  try {
    dir = dirname(require.resolve('uWebSockets.js/package.json'));
  } catch {
    return { why: 'uWebSockets.js is not installed' };
  }
  const file = join(dir, 'binaries', `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`);
  if (!existsSync(file)) return { why: `uWebSockets.js has no build for Node ${process.versions.node} (ABI ${process.versions.modules}) on ${process.platform}-${process.arch}` };
  try {
    return { uws: require(file) as typeof UWS };
  } catch (e) {
    return { why: `uWebSockets.js did not load: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}` };
  }
}

export function uwsApp(uws: typeof UWS): HttpApp {
  const app = uws.App();
  return {
    kind: 'uws',
    // Our request and response types are the part of uWS's the daemon uses: uWS objects are passed through.
    any: (pattern, handler) => void app.any(pattern, handler as never),
    ws: (pattern, behavior) => void app.ws(pattern, behavior as never),
    // uWS's parser closes a connection whose method is not one of the nine standard ones before any handler
    // runs: there is nothing to hook. node:http answers them (node.ts).
    unknownMethod: () => undefined,
    listen: (host, port) =>
      new Promise<Listening>((resolve, reject) => {
        // Exclusive: by default uWS sets SO_REUSEPORT, and a second daemon started on the same port (same Unix
        // user) would listen beside the first and get half of its requests, MCP sessions and all.
        (app as unknown as ListenWithOptions).listen(host, port, LISTEN_EXCLUSIVE_PORT, (socket) => {
          if (!socket) return reject(new Error(`cannot listen on ${host}:${port} (in use, or not an address of this host)`));
          resolve({ port: uws.us_socket_local_port(socket), close: () => uws.us_listen_socket_close(socket) });
        });
      }),
  };
}
