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
  t.teardown(() => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
  await compile(dir, 'good.ts', `
import { BrowserdClient } from ${JSON.stringify(clientEntry)};
const c = new BrowserdClient({ baseUrl: 'http://127.0.0.1:1', token: 't' });
export async function use() {
  const me = await c.request('get', '/v1/me');
  const user: string = me.user;
  const opened = await c.tool('browser_open', { url: 'http://example.test/', mode: 'read' });
  // A tool's own fields are typed too (its output schema).
  const tab: string = opened.tab;
  const mode: 'read' | 'act' = opened.mode;
  const listed = await c.tool('browser_tabs', {});
  const firstId: string | undefined = listed.tabs[0]?.id;
  const settings = await c.request('patch', '/v1/admin/browser-settings', { body: { signup: true, max_browsers: 2 } });
  return [user, opened.ok, tab, mode, firstId, settings];
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
  const wrongResult = await compile(dir, 'wrong-result.ts', `
import { BrowserdClient } from ${JSON.stringify(clientEntry)};
const c = new BrowserdClient({ baseUrl: 'http://127.0.0.1:1', token: 't' });
export async function use() {
  const opened = await c.tool('browser_open', {});
  const n: number = opened.tab;
  return n;
}
`).catch((e) => e);
  t.ok(wrongResult instanceof Error, 'a result field used as the wrong type does not compile');
  t.match(String(wrongResult.stdout), /wrong-result\.ts.*error TS2322/);
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
  const opened = await c.tool('browser_open', { live: 'none' });
  t.match(opened.tab, /^t\d+$/, 'the typed field holds the tab id');
  t.equal(opened.mode, 'read');
  const listed = await c.tool('browser_tabs', {});
  t.same(listed.tabs.map((x) => x.id), [opened.tab]);
  const err = await c.tool('browser_history', { action: 'sideways' as never }).catch((e) => e);
  t.ok(err instanceof BrowserdApiError);
  t.equal(err.code, 'validation_error');
  t.equal(err.status, 400);
});
