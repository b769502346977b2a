/**
 * `browserd backup DIR`, taken while a daemon runs and is written to: a daemon started on the copy (and the
 * vault key) serves the same users, tabs, saved logins and files, and uploads and cached responses are copied; without --with-vault-key the copy holds no key;
 * a bad target changes nothing.
 */
import t from 'tap';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { html, startSite, type FixtureSite } from '../fixtures/site.js';
import { closeAll } from '../fixtures/close-all.js';

const run = promisify(execFile);
const bin = join(process.cwd(), 'bin', 'browserd.js');
const backup = (args: string[]) => run(process.execPath, [bin, 'backup', ...args], { encoding: 'utf8' });

let d: TestDaemon;
let site: FixtureSite;
let token: string;
let scratch: string;

t.before(async () => {
  site = await startSite();
  site.route('/page', html('<h1>Kept</h1>', '', 'Kept page'));
  d = await startTestDaemon();
  token = await d.addUser('alice');
  scratch = mkdtempSync(join(tmpdir(), 'browserd-backup-'));
});
t.teardown(() => closeAll(() => d?.stop(), () => site?.close(), () => scratch && rmSync(scratch, { recursive: true, force: true })));

t.test('a copy taken while the daemon runs starts a daemon with the same users, tabs, vault and files', async (t) => {
  const opened = await d.rest(token, 'POST', '/v1/tabs', { url: `${site.url}/page`, mode: 'read' });
  t.equal(opened.status, 201, 'alice opens a tab', { answer: opened.status === 201 ? undefined : opened.json });
  const tab = opened.json.tab as string;
  t.equal((await d.rest(token, 'PUT', '/v1/vault/example.com', { fields: { username: 'ada', password: 'kept-in-the-copy-77' } })).status, 200);
  const pdf = await d.rest(token, 'POST', '/v1/tools/browser_pdf', { tab });
  t.equal(pdf.status, 200, 'and saves a PDF of it to her files', { answer: pdf.status === 200 ? undefined : pdf.json });
  const filesBefore = (await d.rest(token, 'GET', '/v1/files')).json.files.map((f: any) => f.name);
  t.ok(filesBefore.length >= 1, 'alice has a file');

  // Writes go on while the copy is taken: the copy is of one instant, and the daemon does not notice.
  let writing = true;
  const writer = (async () => {
    let n = 0;
    while (writing) await d.rest(token, 'PUT', `/v1/vault/w${n++}.example`, { fields: { v: `value-${n}-abcdef` } });
  })();
  // What pages were given (browser_upload) and cached response bodies live beside the store, which points into them.
  await run('mkdir', ['-p', join(d.dataDir, 'uploads', 'alice'), join(d.dataDir, 'cache', 'c0ffee')]);
  writeFileSync(join(d.dataDir, 'uploads', 'alice', 'cv.pdf'), 'an upload');
  writeFileSync(join(d.dataDir, 'cache', 'c0ffee', 'body'), 'a cached body');
  const to = join(scratch, 'copy');
  const out = await backup([to, '--data', d.dataDir, '--with-vault-key']);
  writing = false;
  await writer;
  t.match(out.stdout, /Copied .* 1 profile\(s\).*vault key copied/s, 'it says what it copied');
  t.notOk(existsSync(join(to, 'profiles', 'alice', 'SingletonLock')), "the running browser's lock is not copied");
  t.equal(statSync(to).mode & 0o777, 0o700, 'the copy is private');
  t.equal(readFileSync(join(to, 'uploads', 'alice', 'cv.pdf'), 'utf8'), 'an upload', 'uploads are copied');
  t.equal(readFileSync(join(to, 'cache', 'c0ffee', 'body'), 'utf8'), 'a cached body', 'and cached responses');

  const copy = await startTestDaemon({}, { keepDataDir: to });
  t.teardown(() => copy.stop());
  t.equal((await copy.rest(token, 'GET', '/v1/me')).json.user, 'alice', "alice's token works on the copy");
  const tabs = (await copy.rest(token, 'GET', '/v1/tabs')).json.tabs;
  t.ok(tabs.some((x: any) => x.id === tab && x.url === `${site.url}/page`), 'her tab is there under its id, at its address');
  const vault = (await copy.rest(token, 'GET', '/v1/vault')).json;
  t.ok(JSON.stringify(vault).includes('example.com'), 'her saved login is listed');
  t.notOk(JSON.stringify(vault).includes('kept-in-the-copy-77'), 'and shows no value');
  const files = (await copy.rest(token, 'GET', '/v1/files')).json.files.map((f: any) => f.name);
  t.same(files.filter((f: string) => filesBefore.includes(f)), filesBefore, 'her files are there');
  const file = await fetch(`${copy.url}/v1/files/${encodeURIComponent(filesBefore[0])}`, { headers: { Authorization: `Bearer ${token}` } });
  t.equal(file.status, 200, 'and download');
  t.equal(Buffer.from(await file.arrayBuffer()).subarray(0, 5).toString(), '%PDF-', 'whole');
});

t.test('without --with-vault-key the copy holds no key, and says where the key is', async (t) => {
  const to = join(scratch, 'no-key');
  const out = await backup([to, '--data', d.dataDir]);
  t.notOk(existsSync(join(to, 'vault.key')), 'no vault.key in the copy');
  t.match(out.stdout, /vault key left out/);
  t.match(out.stdout, new RegExp(`Keep ${join(d.dataDir, 'vault.key').replace(/[.]/g, '\\.')}`));
});

t.test('a target that is not empty, inside the data dir or a file, or a dir with no store, is refused and nothing is written', async (t) => {
  const busy = join(scratch, 'busy');
  await run('mkdir', ['-p', busy]);
  writeFileSync(join(busy, 'keep.txt'), 'mine');
  const e1 = await backup([busy, '--data', d.dataDir]).catch((e) => e);
  t.equal(e1.code, 2);
  t.match(e1.stderr, /is not empty: name a new directory/);
  t.same(readdirSync(busy), ['keep.txt'], 'the directory is as it was');
  const e2 = await backup([join(scratch, 'from-nothing'), '--data', join(scratch, 'no-such-data')]).catch((e) => e);
  t.equal(e2.code, 2);
  t.match(e2.stderr, /holds no browserd store/);
  t.notOk(existsSync(join(scratch, 'from-nothing')), 'no copy was started');
  const inside = await backup([join(d.dataDir, 'files', 'copy'), '--data', d.dataDir]).catch((e) => e);
  t.equal(inside.code, 2);
  t.match(inside.stderr, /is inside the data dir/, 'a copy inside the data dir is refused');
  t.notOk(existsSync(join(d.dataDir, 'files', 'copy')), 'and not begun');
  writeFileSync(join(scratch, 'a-file'), 'x');
  const onFile = await backup([join(scratch, 'a-file'), '--data', d.dataDir]).catch((e) => e);
  t.equal(onFile.code, 2);
  t.match(onFile.stderr, /is a file: name a new directory/, 'a file as the target is refused');
  const e3 = await backup([]).catch((e) => e);
  t.equal(e3.code, 2, 'no target is a usage error');
});
