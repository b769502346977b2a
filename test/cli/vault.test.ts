/** `browserd vault`: values from stdin, never argv; list and rm through the running daemon with the user's token. */
import t from 'tap';
import { spawn, type SpawnOptions } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';

const bin = new URL('../../bin/browserd.js', import.meta.url).pathname;
const VALUE = 'cli "pass" with spaces 77';
let d: TestDaemon;
let token: string;
const dir = mkdtempSync(join(tmpdir(), 'browserd-vault-cli-'));
t.before(async () => {
  d = await startTestDaemon();
  token = await d.addUser('alice');
});
t.teardown(async () => {
  await d.stop();
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The command line the process ran with, as `ps` would show it. */
  cmdline: string;
}

/** Runs the command; `input` is written to its stdin only after its command line has been read. */
function cli(args: string[], input?: string, env: Record<string, string | undefined> = { BROWSERD_URL: d.url, BROWSERD_TOKEN: token }): Promise<Run> {
  const opts: SpawnOptions = { env: { ...process.env, BROWSERD_URL: undefined, BROWSERD_TOKEN: undefined, ...env }, stdio: ['pipe', 'pipe', 'pipe'] };
  const child = spawn(process.execPath, [bin, 'vault', ...args], opts);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const cmdline = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  if (input !== undefined) child.stdin!.write(input);
  child.stdin!.end();
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr, cmdline })));
}

t.test('set reads the value from stdin: stored exactly, never on the command line or in the output', async (t) => {
  const r = await cli(['set', 'cli.example', 'password', '--login-url', 'https://cli.example/login'], `${VALUE}\n`);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /Saved password of cli\.example/);
  t.notOk(r.cmdline.includes(VALUE), 'not in the process arguments');
  t.notOk(r.stdout.includes(VALUE) || r.stderr.includes(VALUE), 'not echoed');
  const stored = d.daemon.env.vault.secrets('alice', 'cli.example');
  t.equal(stored?.fields.password, VALUE, 'one trailing newline dropped, the rest kept as typed');
  t.equal(d.daemon.env.vault.info('alice', 'cli.example')?.loginUrl, 'https://cli.example/login');
});

t.test('a login URL off the entry\'s site is refused with the entry\'s site named, and nothing changes', async (t) => {
  const r = await cli(['set', 'cli.example', '--login-url', 'https://other.example/login']);
  t.equal(r.code, 2, r.stdout);
  t.match(r.stderr, /off the site of vault entry cli\.example \(cli\.example and its sub-domains\)/);
  t.match(r.stderr, /next: /);
  t.equal(d.daemon.env.vault.info('alice', 'cli.example')?.loginUrl, 'https://cli.example/login', 'the login URL stayed');
});

t.test('a value given on the command line is refused, and nothing is stored', async (t) => {
  const r = await cli(['set', 'argv.example', 'password', 'hunter2-on-argv'], '');
  t.equal(r.code, 2);
  t.match(r.stderr, /never taken from the command line/);
  t.match(r.stderr, /^next: /m);
  t.notOk(d.daemon.env.vault.info('alice', 'argv.example'));
  const empty = await cli(['set', 'argv.example', 'password'], '');
  t.equal(empty.code, 2, 'an empty value is refused');
  t.notOk(d.daemon.env.vault.info('alice', 'argv.example'));
});

t.test("the daemon's refusals print its message and next step, exit 2", async (t) => {
  const r = await cli(['set', 'cli.example', 'totp'], 'not a base32 secret!\n');
  t.equal(r.code, 2);
  t.match(r.stderr, /browserd: the totp value is not usable/);
  t.match(r.stderr, /next: Store the base32 secret/);
  t.same(d.daemon.env.vault.info('alice', 'cli.example')?.fields, ['password'], 'nothing changed');
});

t.test('list shows names, kinds and fields, never a value; a token file works too', async (t) => {
  await d.rest(token, 'PUT', '/v1/vault/sms.example', { kind: 'otp_inbox', sms: true });
  const file = join(dir, 'token');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  const r = await cli(['list', '--token-file', file], undefined, { BROWSERD_URL: d.url });
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /^cli\.example\tlogin\tpassword\thttps:\/\/cli\.example\/login$/m);
  t.match(r.stdout, /^sms\.example\totp_inbox\t-\tsms http:\/\/127\.0\.0\.1:\d+\/v1\/inbox\/sms\/\S+$/m);
  t.notOk(r.stdout.includes(VALUE));
  t.notOk(r.cmdline.includes(token), 'the token file keeps the token off the command line');
});

t.test('rm deletes a field, then the entry; an unknown one is an error with a next step', async (t) => {
  await cli(['set', 'cli.example', 'username'], 'ada\n');
  const field = await cli(['rm', 'cli.example', 'password']);
  t.equal(field.code, 0, field.stderr);
  t.same(d.daemon.env.vault.info('alice', 'cli.example')?.fields, ['username']);
  const entry = await cli(['rm', 'cli.example']);
  t.equal(entry.code, 0, entry.stderr);
  t.notOk(d.daemon.env.vault.info('alice', 'cli.example'));
  const again = await cli(['rm', 'cli.example']);
  t.equal(again.code, 2);
  t.match(again.stderr, /no vault entry cli\.example/);
  t.match(again.stderr, /next: List your entries/);
});

t.test('no token, a wrong token, or no daemon: a clear error, exit 2', async (t) => {
  const none = await cli(['list'], undefined, { BROWSERD_URL: d.url });
  t.equal(none.code, 2);
  t.match(none.stderr, /no token/);
  const wrong = await cli(['list'], undefined, { BROWSERD_URL: d.url, BROWSERD_TOKEN: 'bd_wrong' });
  t.equal(wrong.code, 2);
  t.match(wrong.stderr, /token is wrong/);
  // A loopback port that was just free: nothing listens there, so the connection is refused at once.
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as AddressInfo).port;
  await new Promise((r) => probe.close(r));
  const gone = await cli(['list'], undefined, { BROWSERD_URL: `http://127.0.0.1:${port}`, BROWSERD_TOKEN: token });
  t.equal(gone.code, 2);
  t.match(gone.stderr, `cannot reach the daemon at http://127.0.0.1:${port}`);
  t.match(gone.stderr, /next: Start it with `browserd serve`/);
});

t.test('at a terminal the value is typed at a prompt that does not echo it', { skip: existsSync('/usr/bin/script') ? false : 'needs script(1) for a pseudo-terminal' }, async (t) => {
  const typed = 'Typed-At-Prompt-42';
  // script(1) gives the command a pseudo-terminal: stdin is a TTY there, as when a person runs it.
  const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} vault set tty.example password`;
  const child = spawn('/usr/bin/script', ['-qec', command, '/dev/null'], { env: { ...process.env, BROWSERD_URL: d.url, BROWSERD_TOKEN: token }, stdio: ['pipe', 'pipe', 'pipe'] });
  let screen = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => {
    screen += c;
    // Typed only once the prompt is up, as a person would.
    if (/not shown\): $/.test(screen)) child.stdin!.write(`${typed}\r`);
  });
  const code = await new Promise((r) => child.once('close', r));
  t.equal(code, 0, screen);
  t.match(screen, /Value of password for tty\.example \(not shown\)/);
  t.notOk(screen.includes(typed), 'the terminal never showed the value');
  t.equal(d.daemon.env.vault.secrets('alice', 'tty.example')?.fields.password, typed);
});
