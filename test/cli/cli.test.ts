/** The browserd command as a user runs it: serve (first user, token, MCP URL, SIGTERM), user, admin, doctor. */
import t from 'tap';
import { spawn, execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SETTINGS } from '../../daemon/settings.js';

const run = promisify(execFile);
const bin = new URL('../../bin/browserd.js', import.meta.url).pathname;
const root = mkdtempSync(join(tmpdir(), 'browserd-cli-'));
// Not made here: serve creates it, so its mode is the daemon's doing.
const data = join(root, 'data');
t.teardown(() => rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
const mode = (p: string) => statSync(p).mode & 0o777;

const cli = (...args: string[]) => run(process.execPath, [bin, ...args, '--data', data], { encoding: 'utf8' });

t.test('serve on an empty data dir creates a first user, writes its token to a private file, prints the MCP URL, and stops on SIGTERM', async (t) => {
  const child = spawn(process.execPath, [bin, 'serve', '--listen', '127.0.0.1:0', '--data', data], { env: { ...process.env, BROWSERD_FIRST_USER: 'owner', BROWSERD_LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let said = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (said += c));
  // stderr is no terminal here, so what a person would read there is in the JSON log on stdout.
  await new Promise<void>((resolve) => child.stdout.setEncoding('utf8').on('data', (c: string) => { out += c; if (/"first user created"/.test(out) && /"browserd listening"/.test(out)) resolve(); }));
  const created = out.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((l) => l.msg === 'first user created');
  const mcp = created?.mcp as string | undefined;
  t.match(mcp, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/, 'the log names the MCP URL');
  const file = created?.credentials as string | undefined;
  t.ok(file, 'and the credentials file');
  t.equal(mode(file!), 0o600, 'the credentials file is private');
  const creds = readFileSync(file!, 'utf8');
  const token = /^token=(bd_\S+)$/m.exec(creds)?.[1];
  t.ok(token, 'the token is in the file');
  t.match(creds, /^admin_key=bda_\S+$/m);
  t.match(creds, `mcp_url=${mcp}`);
  t.equal(mode(data), 0o700, 'the data dir is private');
  t.equal(mode(join(data, 'browserd.lmdb')), 0o600, 'the LMDB file is private');
  t.equal(mode(join(data, 'profiles')), 0o700, 'the profiles dir is private');
  const base = mcp!.replace(/\/mcp$/, '');
  const me = await fetch(`${base}/v1/me`, { headers: { Authorization: `Bearer ${token}` } });
  t.equal(((await me.json()) as any).user, 'owner');
  child.kill('SIGTERM');
  // How fast it stops is a benchmark's question; here: it stops on its own, cleanly.
  const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  t.equal(code, 0);
  t.notMatch(out + said, /bd_|bda_/, 'no token or admin key on stdout or stderr (both end up in the journal)');
  t.equal(said, '', 'nothing plain on stderr when it is no terminal (under systemd it reaches the journal too)');
  // Every stdout line is one JSON object, so `journalctl -u browserd -o cat | jq` reads the whole log.
  const lines = out.split('\n').filter(Boolean);
  const parsed = lines.map((l) => { try { return JSON.parse(l); } catch { return undefined; } });
  t.same(lines.filter((_, i) => !parsed[i] || typeof parsed[i] !== 'object'), [], 'no stdout line is anything but JSON');
  const msgs = parsed.map((p) => p?.msg);
  for (const m of ['browserd listening', 'first user created', 'stopping', 'browserd stopped']) t.ok(msgs.includes(m), `the log says "${m}"`);
});

t.test('user add prints the token last; user token replaces it; user list lists', async (t) => {
  const add = await cli('user', 'add', 'alice');
  const lines = add.stdout.trim().split('\n');
  t.match(lines.at(-1), /^bd_[a-z2-7]{10}\.[A-Za-z0-9_-]{32}$/);
  const again = await cli('user', 'add', 'alice').catch((e) => e);
  t.equal(again.code, 2, 'a taken name is an error');
  t.match(again.stderr, /already exists/);
  const replaced = await cli('user', 'token', 'alice');
  const newToken = replaced.stdout.trim().split('\n').at(-1);
  t.not(newToken, lines.at(-1));
  const list = await cli('user', 'list');
  t.match(list.stdout, /^alice\t/m);
  t.match(list.stdout, /^owner\t/m);
  const bad = await cli('user', 'add', 'Bad Name').catch((e) => e);
  t.equal(bad.code, 2);
});

t.test('policy and approvals commands validate and store', async (t) => {
  t.match((await cli('policy', 'set', 'alice', 'bank.example', 'read_only')).stdout, /read_only/);
  t.match((await cli('policy', 'list', 'alice')).stdout, /bank\.example\tread_only/);
  const bad = await cli('policy', 'set', 'alice', 'bank.example', 'sometimes').catch((e) => e);
  t.equal(bad.code, 2);
  t.match((await cli('policy', 'remove', 'alice', 'bank.example')).stdout, /Removed/);
  t.match((await cli('user', 'approvals', 'alice', 'on')).stdout, /on/);
  t.match((await cli('user', 'list')).stdout, /alice\t.*approvals on/);
});

t.test('user disable and enable flip the flag the daemon refuses tokens by', async (t) => {
  t.match((await cli('user', 'disable', 'alice')).stdout, /Disabled alice/);
  t.match((await cli('user', 'list')).stdout, /^alice\t.*\tdisabled$/m);
  t.match((await cli('user', 'enable', 'alice')).stdout, /Enabled alice/);
  t.notMatch((await cli('user', 'list')).stdout, /^alice\t.*disabled/m);
  const unknown = await cli('user', 'disable', 'nobody').catch((e) => e);
  t.equal(unknown.code, 2);
});

t.test('doctor checks chromium, the data dir, LMDB and the port, each with a verdict', async (t) => {
  const r = await run(process.execPath, [bin, 'doctor', '--data', data, '--listen', '127.0.0.1:1'], { encoding: 'utf8' }).catch((e) => e);
  const out = r.stdout as string;
  t.match(out, /^ok {3}chromium found: .*Chromium \d+/m);
  t.match(out, /^ok {3}chromium starts headless/m, out);
  t.match(out, /^ok {3}egress guard knows its browsers/m);
  t.match(out, /^ok {3}data dir writable/m);
  t.match(out, /^ok {3}LMDB opens: \d+ user/m);
  t.match(out, /running daemon: none running/);
  const missing = await run(process.execPath, [bin, 'doctor', '--data', data], { encoding: 'utf8', env: { ...process.env, BROWSERD_CHROME: '/nonexistent/chromium' } }).catch((e) => e);
  t.equal(missing.code, 1);
  t.match(missing.stdout, /FAIL chromium found: .*missing\n\s+fix: apt-get install chromium/);
  t.equal(missing.stdout.match(/^FAIL/gm).length, 1, `one failure, one fix: ${missing.stdout}`);
  t.match(out, /^ok {3}node: Node \d+/m);
  t.match(out, /chromium sandbox: /, 'says whether the sandbox can run');
  if (process.getuid?.() === 0) t.match(out, /FAIL chromium sandbox: running as root/);
});

t.test('doctor changes nothing: a data dir that does not exist is not made', async (t) => {
  const fresh = join(root, 'not-yet');
  const r = await run(process.execPath, [bin, 'doctor', '--data', fresh, '--listen', '127.0.0.1:1'], { encoding: 'utf8' }).catch((e) => e);
  t.match(r.stdout, /data dir writable: .*does not exist yet; the first start creates it/);
  t.match(r.stdout, /LMDB opens: no store yet/);
  t.notOk(existsSync(fresh), 'nothing created');
  const before = statSync(join(data, 'browserd.lmdb')).mtimeMs;
  const again = await run(process.execPath, [bin, 'doctor', '--data', data, '--listen', '127.0.0.1:1'], { encoding: 'utf8' }).catch((e) => e);
  t.match(again.stdout, /LMDB opens: \d+ user\(s\), opened read-only/);
  t.equal(statSync(join(data, 'browserd.lmdb')).mtimeMs, before, 'the store is not written');
});

t.test('the command line is strict: a misspelt flag is an error with the usage, never a daemon on the defaults', async (t) => {
  for (const args of [['serve', '--listne', '127.0.0.1:0'], ['--listen', '127.0.0.1:0'], ['user', 'list', '--date', data], ['frobnicate'], ['serve', '--headful=yes']]) {
    const r = await run(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 20000 }).catch((e) => e);
    t.equal(r.code, 2, `${args.join(' ')} exits 2`);
    t.match(r.stderr, /browserd: .+\n\n.*Usage:/s, 'says why, then the usage');
    t.notMatch(r.stdout, /MCP URL|listening/, 'no daemon started');
  }
  const version = await run(process.execPath, [bin, '--version'], { encoding: 'utf8' });
  t.equal(version.stdout.trim(), JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version);
  const help = await run(process.execPath, [bin, '--help'], { encoding: 'utf8' });
  for (const cmd of ['serve', 'user', 'admin', 'policy', 'audit', 'backup', 'vault', 'fleet', 'doctor']) t.match(help.stdout, `browserd ${cmd}`);
  // Every flag of the settings table is in the usage of the built command (that it lists exactly those, and
  // that docs/operations.md names them: test/contract/settings.test.ts).
  const serveHelp = await run(process.execPath, [bin, 'serve', '--help'], { encoding: 'utf8' });
  const flags = SETTINGS.filter((s) => s.flag);
  t.ok(flags.length > 20, 'the table has the serve flags');
  for (const s of flags) t.ok(serveHelp.stdout.includes(`[--${s.flag}${s.arg ? ` ${s.arg}` : ''}]`), `--${s.flag} is in the usage`);
  t.match(serveHelp.stdout, /--allow-private-network/);
  t.notMatch(serveHelp.stdout, /browserd policy/, 'only the command asked about');
});
