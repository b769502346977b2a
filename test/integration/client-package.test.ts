/**
 * @browserd/client as a program outside this repo uses it: built to JavaScript with declarations (npm run build:client,
 * scripts/build-client.ts), resolved by its package name through client/package.json's exports map, run by
 * plain `node` with no TypeScript loader, and type-checked by tsc from its .d.ts files. The client package
 * examples in docs/clients.md are cut out of it and run as written, so the docs cannot drift from the package.
 */
import { namedExample } from '../fixtures/doc-blocks.js';
import t from 'tap';
import { execFile, spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestDaemon } from '../fixtures/daemon.js';
import { buildClient, CLIENT_DIR, CLIENT_DIST } from '../../scripts/build-client.js';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;

// Built here too, so this file also runs on its own (a no-op when npm run build:client already made an up-to-date dist).
buildClient();

/** A consumer project: its node_modules/@browserd/client is the package directory, as `npm install <dir>` leaves it. */
const project = mkdtempSync(join(tmpdir(), 'browserd-client-pkg-'));
mkdirSync(join(project, 'node_modules', '@browserd'), { recursive: true });
symlinkSync(CLIENT_DIR, join(project, 'node_modules', '@browserd', 'client'));
t.teardown(() => rmSync(project, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));

/** Plain node: no --import, no loader from NODE_OPTIONS (tap runs this file under tsx; its children must not be). */
function plainNode(file: string, env: Record<string, string> = {}) {
  const { NODE_OPTIONS: _drop, ...rest } = process.env;
  return run(process.execPath, [file], { cwd: project, env: { ...rest, ...env }, encoding: 'utf8', timeout: 60_000 });
}

/** A signed call as browserd makes it (Standard Webhooks: HMAC-SHA256 over id.timestamp.body, `v1,<base64>`). */
function signed(secret: string, body: string, id = `msg_${randomBytes(8).toString('hex')}`) {
  const ts = String(Math.floor(Date.now() / 1000));
  const sig = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64')).update(`${id}.${ts}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': `v1,${sig}` };
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((done) => srv.listen(0, '127.0.0.1', done));
  const port = (srv.address() as { port: number }).port;
  await new Promise((done) => srv.close(done));
  return port;
}

t.test('the build gives every export a .js and a .d.ts', async (t) => {
  const pkg = JSON.parse(readFileSync(join(CLIENT_DIR, 'package.json'), 'utf8'));
  t.equal(pkg.main, './dist/index.js');
  t.equal(pkg.types, './dist/index.d.ts');
  for (const [subpath, target] of Object.entries(pkg.exports as Record<string, unknown>)) {
    if (subpath === './package.json') continue;
    const { types, default: js } = target as { types: string; default: string };
    t.ok(types.endsWith('.d.ts') && existsSync(join(CLIENT_DIR, types)), `${subpath}: ${types} exists`);
    t.ok(js.endsWith('.js') && existsSync(join(CLIENT_DIR, js)), `${subpath}: ${js} exists`);
    t.same(Object.keys(target as object), ['types', 'default'], `${subpath}: types comes before default`);
  }
  for (const f of ['index', 'verify', 'api-types']) t.ok(existsSync(join(CLIENT_DIST, `${f}.d.ts`)), `dist/${f}.d.ts`);
  t.notOk(readFileSync(join(CLIENT_DIST, 'index.js'), 'utf8').includes('.ts\''), 'the built modules import .js, not .ts');
});

t.test('plain node imports the package by name and calls a real daemon; verifyWebhook checks a signed call', async (t) => {
  const d = await startTestDaemon();
  t.teardown(() => d.stop());
  const token = await d.addUser('alice');
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const body = JSON.stringify({ type: 'task.finished', timestamp: new Date().toISOString(), data: { id: 'task_0123456789abcdef', state: 'done' } });
  const program = join(project, 'use.mjs');
  writeFileSync(program, `
import { BrowserdClient, BrowserdApiError, verifyWebhook, WebhookVerificationError } from '@browserd/client';
import { verifyWebhook as verifyOnly } from '@browserd/client/verify';
const out = { execArgv: process.execArgv, resolved: import.meta.resolve('@browserd/client'), verifyResolved: import.meta.resolve('@browserd/client/verify') };
const client = new BrowserdClient({ baseUrl: process.env.BROWSERD_URL, token: process.env.BROWSERD_TOKEN });
out.user = (await client.request('get', '/v1/me')).user;
const opened = await client.tool('browser_open', { live: 'none' });
out.tabs = (await client.tool('browser_tabs', {})).tabs.map((x) => x.id);
out.opened = opened.tab;
try {
  await new BrowserdClient({ baseUrl: process.env.BROWSERD_URL, token: 'wrong' }).request('get', '/v1/me');
} catch (e) {
  out.error = { isApiError: e instanceof BrowserdApiError, status: e.status, code: e.code };
}
const headers = JSON.parse(process.env.HEADERS);
out.event = verifyWebhook(process.env.SECRET, headers, process.env.BODY);
out.sameFunction = verifyOnly === verifyWebhook;
try {
  verifyWebhook(process.env.SECRET, headers, process.env.BODY.replace('done', 'fail'));
} catch (e) {
  out.altered = { isVerificationError: e instanceof WebhookVerificationError, message: e.message };
}
console.log(JSON.stringify(out));
`);
  const r = await plainNode(program, { BROWSERD_URL: d.url, BROWSERD_TOKEN: token, SECRET: secret, BODY: body, HEADERS: JSON.stringify(signed(secret, body)) });
  const out = JSON.parse(r.stdout);
  t.same(out.execArgv, [], 'no loader');
  t.equal(realpathSync(new URL(out.resolved)), join(CLIENT_DIST, 'index.js'), 'resolved through the exports map to dist/index.js');
  t.equal(realpathSync(new URL(out.verifyResolved)), join(CLIENT_DIST, 'verify.js'));
  t.equal(out.user, 'alice');
  t.match(out.opened, /^t\d+$/);
  t.same(out.tabs, [out.opened], 'the tool call answered the tab it opened');
  t.same(out.error, { isApiError: true, status: 401, code: 'unauthorized' }, 'an error answer is thrown as BrowserdApiError');
  t.same(out.event, JSON.parse(body), 'the signed call is accepted and parsed');
  t.equal(out.sameFunction, true);
  t.same(out.altered, { isVerificationError: true, message: 'no matching signature' }, 'an altered body is refused');
});

t.test('tsc type-checks a consumer from the .d.ts files, and refuses a wrong call', async (t) => {
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  const check = (file: string, source: string) => {
    writeFileSync(join(project, file), source);
    // No --skipLibCheck: the shipped declarations must type-check themselves.
    return run(process.execPath, [tsc, '--noEmit', '--strict', '--listFiles', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--typeRoots', join(root, 'node_modules/@types'), '--types', 'node', join(project, file)], { cwd: project, encoding: 'utf8' });
  };
  const good = await check('consumer.ts', `
import { BrowserdClient, type ToolAnswer } from '@browserd/client';
import { verifyWebhook, type WebhookEvent } from '@browserd/client/verify';
const c = new BrowserdClient({ baseUrl: 'http://127.0.0.1:8787', token: 't' });
export async function use(): Promise<[string, ToolAnswer<'browser_tabs'>, WebhookEvent]> {
  const me = await c.request('get', '/v1/me');
  const tabs = await c.tool('browser_tabs', {});
  return [me.user, tabs, verifyWebhook('whsec_AAAA', {}, '')];
}
`);
  const files = good.stdout.split('\n').map((f) => f.trim());
  t.ok(files.some((f) => realpathSync(f) === join(CLIENT_DIST, 'index.d.ts')), 'the types came from dist/index.d.ts');
  t.notOk(files.some((f) => f.startsWith(CLIENT_DIR) && f.endsWith('.ts') && !f.endsWith('.d.ts')), 'and no TypeScript source of the package was read');
  const wrong = await check('wrong.ts', `
import { BrowserdClient } from '@browserd/client';
export const bad = new BrowserdClient({ baseUrl: 'http://127.0.0.1:8787', token: 't' }).tool('browser_open', { url: 42 });
`).catch((e) => e);
  t.ok(wrong instanceof Error, 'a wrong argument type does not compile');
  t.match(String(wrong.stdout), /wrong\.ts.*error TS/);
});

t.test('the docs examples run as written', async (t) => {
  const calls = namedExample('tabs.mjs').text;
  const receiver = namedExample('receiver.mjs').text;
  t.ok(calls.includes('BrowserdClient') && receiver.includes('verifyWebhook'), 'the docs show a call and a receiver');

  const d = await startTestDaemon();
  t.teardown(() => d.stop());
  const token = await d.addUser('bob');
  writeFileSync(join(project, 'tabs.mjs'), calls!);
  const r = await plainNode(join(project, 'tabs.mjs'), { BROWSERD_URL: d.url, BROWSERD_TOKEN: token });
  t.equal(r.stdout.trim(), 'bob: 0 tab(s)');

  writeFileSync(join(project, 'receiver.mjs'), receiver!);
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const port = await freePort();
  const { NODE_OPTIONS: _drop, ...env } = process.env;
  const child = spawn(process.execPath, [join(project, 'receiver.mjs')], { cwd: project, env: { ...env, BROWSERD_WEBHOOK_SECRET: secret, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  const exited = new Promise((done) => child.once('exit', done));
  t.teardown(async () => {
    child.kill();
    await exited;
  });
  const url = `http://127.0.0.1:${port}/hook`;
  const post = (body: string, headers: Record<string, string>) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const body = JSON.stringify({ type: 'monitor.changed', timestamp: new Date().toISOString(), data: { id: 'mon_0123456789abcdef' } });
  // Up to 10 s for the receiver to listen.
  let first: Response | undefined;
  for (let i = 0; i < 100 && !first; i++) {
    first = await post(body, signed(secret, body)).catch(() => undefined);
    if (!first) await new Promise((done) => setTimeout(done, 100));
  }
  t.equal(first?.status, 204, `browserd's call is accepted ${stderr}`);
  t.equal((await post(body, signed(`whsec_${randomBytes(24).toString('base64')}`, body))).status, 401, 'another secret is refused');
  t.equal((await post(body.replace('mon_', 'mon_1'), signed(secret, body))).status, 401, 'an altered body is refused');
  t.equal(stdout.trim(), 'monitor.changed {"id":"mon_0123456789abcdef"}', 'the receiver saw the one genuine event');
});
