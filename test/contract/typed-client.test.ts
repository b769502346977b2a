/**
 * The client made from api/openapi.yaml is typed for real: a program using it compiles under tsc --strict, a
 * wrong call does not, and the typed calls work against a running daemon.
 */
import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestDaemon } from '../fixtures/daemon.js';
import { BrowserdClient, BrowserdApiError } from '../../client/index.js';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const clientEntry = join(root, 'client/index.js');

/** tsc --strict over one program that imports the client; resolves with its output, rejects on a type error. */
async function compile(dir: string, name: string, source: string) {
  const file = join(dir, name);
  writeFileSync(file, source);
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  return run(process.execPath, [tsc, '--strict', '--noEmit', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--skipLibCheck', '--typeRoots', join(root, 'node_modules/@types'), '--types', 'node', file], { encoding: 'utf8' });
}

t.test('a program using the client compiles under --strict; a wrong call is a type error', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'browserd-client-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  await compile(dir, 'good.ts', `
import { BrowserdClient } from ${JSON.stringify(clientEntry)};
const c = new BrowserdClient({ baseUrl: 'http://127.0.0.1:1', token: 't' });
export async function use() {
  const me = await c.request('get', '/v1/me');
  const user: string = me.user;
  const opened = await c.tool('browser_open', { url: 'http://example.test/', mode: 'read' });
  const settings = await c.request('patch', '/v1/admin/browser-settings', { body: { signup: true, max_browsers: 2 } });
  return [user, opened.ok, settings];
}
`);
  t.pass('compiles');
  const wrong = await compile(dir, 'wrong.ts', `
import { BrowserdClient } from ${JSON.stringify(clientEntry)};
const c = new BrowserdClient({ baseUrl: 'http://127.0.0.1:1', token: 't' });
export const bad = c.tool('browser_open', { url: 42, mode: 'sideways' });
`).catch((e) => e);
  t.ok(wrong instanceof Error, 'a wrong argument type does not compile');
  t.match(String(wrong.stdout), /wrong\.ts.*error TS/);
});

t.test('typed calls work against the daemon, and an error answer is thrown with its code', async (t) => {
  const d = await startTestDaemon();
  t.teardown(() => d.stop());
  const token = await d.addUser('alice');
  const c = new BrowserdClient({ baseUrl: d.url, token });
  const me = await c.request('get', '/v1/me');
  t.equal(me.user, 'alice');
  const status = await c.tool('browser_status', {});
  t.equal(status.ok, true);
  t.match(status.text, /User: alice/);
  const err = await c.tool('browser_history', { action: 'sideways' as never }).catch((e) => e);
  t.ok(err instanceof BrowserdApiError);
  t.equal(err.code, 'validation_error');
  t.equal(err.status, 400);
});
