/**
 * HAProxy's runtime API, over its stats socket: one command per connection, its whole answer back. The fleet
 * changes the routing map through it, so a user added or moved is routed at once and HAProxy never reloads.
 */
import { createConnection } from 'node:net';

export function runtimeCommand(socket: string, command: string, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = createConnection(socket);
    let out = '';
    const timer = setTimeout(() => c.destroy(new Error(`HAProxy's runtime API at ${socket} did not answer "${command}" within ${timeoutMs} ms`)), timeoutMs);
    c.setEncoding('utf8');
    c.on('connect', () => c.end(`${command}\n`));
    c.on('data', (d: string) => (out += d));
    c.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    c.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
  });
}

/** Sets `key` to `value` in a loaded map: `set map` for a key it has, `add map` for a new one. */
export async function setMapEntry(socket: string, mapFile: string, key: string, value: string): Promise<void> {
  const existing = await runtimeCommand(socket, `get map ${mapFile} ${key}`);
  const answer = /\bfound=yes\b/.test(existing)
    ? await runtimeCommand(socket, `set map ${mapFile} ${key} ${value}`)
    : await runtimeCommand(socket, `add map ${mapFile} ${key} ${value}`);
  if (answer.trim()) throw new Error(`HAProxy refused the map change for ${key}: ${answer.trim()}`);
}
