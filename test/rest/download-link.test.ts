/**
 * Share links on a real daemon (no browser needed: the files are put in the store directly). A link opens
 * with no bearer and gives the exact bytes with attachment headers; altered in any one character, with
 * another user's name or another file swapped into a re-signed-looking payload, after the file is replaced
 * or deleted, or once expired, it answers 404 with no byte of any file. Files are the caller's own.
 */
import t, { type Test } from 'tap';
import { randomBytes, createHash } from 'node:crypto';
import { startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { loadConfig } from '../../daemon/config.js';
import { ShareLinks } from '../../storage/share-links.js';

let d: TestDaemon;
let alice: string;
let bob: string;
/** Random bytes: a refusal that leaked any of them would show up in its body. */
const secretPdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(300 * 1024)]);
const otherFile = Buffer.from('alice,other\n1,2\n');
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

t.before(async () => {
  d = await startTestDaemon({ downloadLinkTtlS: 120 });
  alice = await d.addUser('alice');
  bob = await d.addUser('bob');
  await d.daemon.env.files.addBytes('alice', 'Report Q3.pdf', secretPdf);
  await d.daemon.env.files.addBytes('alice', 'other.csv', otherFile);
});
t.teardown(() => d.stop());

async function link(token: string, file: string): Promise<{ url: string; expiresAt: string; token: string }> {
  const r = await d.rest(token, 'POST', '/v1/tools/browser_download_link', { file });
  if (r.status !== 200) throw new Error(JSON.stringify(r.json));
  return { url: r.json.url, expiresAt: r.json.expiresAt, token: r.json.url.split('/dl/')[1] };
}

/** GET without any credential; the raw body. */
async function open(url: string): Promise<{ status: number; headers: Headers; body: Buffer }> {
  const res = await fetch(url);
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

function assertRefused(t: Test, r: { status: number; body: Buffer }, what: string) {
  t.equal(r.status, 404, `${what}: 404`);
  t.notOk(r.body.includes(secretPdf.subarray(9, 41)), `${what}: no bytes of the file`);
  t.notOk(r.body.includes(otherFile), `${what}: no bytes of another file`);
  t.match(JSON.parse(r.body.toString()), { ok: false, error: { code: 'not_found' } });
}

t.test('a link opens with no bearer and gives the exact bytes, as an attachment', async (t) => {
  const before = Date.now();
  const l = await link(alice, 'Report Q3.pdf');
  t.match(l.url, new RegExp(`^${d.url}/dl/[a-z2-7]{10}\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$`));
  const ttl = (Date.parse(l.expiresAt) - before) / 1000;
  t.ok(ttl > 115 && ttl <= 121, `expires after the configured 120 s (${ttl})`);
  const r = await open(l.url);
  t.equal(r.status, 200);
  t.ok(r.body.equals(secretPdf), 'the exact bytes');
  t.equal(r.headers.get('content-type'), 'application/pdf');
  t.equal(r.headers.get('content-disposition'), 'attachment; filename="Report Q3.pdf"');
  t.equal(r.headers.get('x-content-type-options'), 'nosniff');
  t.equal(r.headers.get('cache-control'), 'no-store');
  t.equal(r.headers.get('referrer-policy'), 'no-referrer');
  t.ok((await open(l.url)).body.equals(secretPdf), 'opens again until it expires');
});

t.test('an altered link, in any one character, gives nothing', async (t) => {
  const l = await link(alice, 'Report Q3.pdf');
  const base = `${d.url}/dl/`;
  // Every position, once: a change at the payload's last character (spare base64 bits) included.
  for (let i = 0; i < l.token.length; i++) {
    const c = l.token[i] === 'A' ? 'B' : 'A';
    const r = await open(base + l.token.slice(0, i) + c + l.token.slice(i + 1));
    if (r.status !== 404 || r.body.includes(secretPdf.subarray(9, 41))) t.fail(`altered at ${i} opened: ${r.status}`);
  }
  assertRefused(t, await open(base + l.token.slice(0, -1)), 'one character short');
  assertRefused(t, await open(`${base}${l.token}x`), 'one character more');
  assertRefused(t, await open(`${base}${l.token.split('.').slice(0, 2).join('.')}`), 'no signature');
});

t.test("another file's or another user's name swapped into the payload gives nothing", async (t) => {
  const l = await link(alice, 'Report Q3.pdf');
  // <routing key>.<payload>.<signature>: the key routes, the signature covers the payload.
  const [key, payload, sig] = l.token.split('.') as [string, string, string];
  const p = JSON.parse(Buffer.from(payload, 'base64url').toString());
  const swap = (q: object) => `${d.url}/dl/${key}.${Buffer.from(JSON.stringify({ ...p, ...q })).toString('base64url')}.${sig}`;
  assertRefused(t, await open(swap({ f: 'other.csv' })), 'other file name');
  assertRefused(t, await open(swap({ f: 'other.csv', h: sha(otherFile) })), 'other file name and hash');
  assertRefused(t, await open(swap({ u: 'bob' })), 'other user');
  assertRefused(t, await open(swap({ e: p.e + 3600 })), 'later expiry');
  // A link of another file, with its own valid signature, opens only that file.
  const other = await link(alice, 'other.csv');
  t.ok((await open(other.url)).body.equals(otherFile));
});

t.test('a file replaced by other bytes, or deleted, no longer opens by its old link', async (t) => {
  const files = d.daemon.env.files;
  await files.addBytes('alice', 'notes.txt', Buffer.from('the first notes'));
  const l = await link(alice, 'notes.txt');
  t.equal((await open(l.url)).body.toString(), 'the first notes');
  files.write('alice', 'notes.txt', Buffer.from('the other notes'));
  const r = await open(l.url);
  t.equal(r.status, 404);
  t.notOk(r.body.toString().includes('notes'), 'neither the old nor the new bytes');
  const fresh = await link(alice, 'notes.txt');
  t.equal((await open(fresh.url)).body.toString(), 'the other notes', 'a new link opens the new bytes');
  files.remove('alice', 'notes.txt');
  t.equal((await open(fresh.url)).status, 404, 'deleted: 404');
});

t.test('an expired link gives nothing', async (t) => {
  const now = Math.floor(Date.now() / 1000);
  const links = new ShareLinks(d.dataDir);
  const h = sha(secretPdf);
  const expired = links.make({ u: 'alice', f: 'Report Q3.pdf', h, e: now - 1 });
  assertRefused(t, await open(`${d.url}/dl/${expired}`), 'expired a second ago');
  const valid = links.make({ u: 'alice', f: 'Report Q3.pdf', h, e: now + 60 });
  t.equal((await open(`${d.url}/dl/${valid}`)).status, 200, 'the same link, not expired, opens: the expiry was the only difference');
  const ghost = links.make({ u: 'nobody', f: 'Report Q3.pdf', h, e: now + 60 });
  assertRefused(t, await open(`${d.url}/dl/${ghost}`), 'a user that does not exist');
});

t.test("bob cannot list, fetch, read or share alice's files", async (t) => {
  const list = await d.rest(bob, 'POST', '/v1/tools/browser_downloads', {});
  t.same(list.json.files, []);
  t.equal((await d.rest(bob, 'GET', '/v1/files')).json.files.length, 0);
  t.equal((await d.rest(bob, 'GET', `/v1/files/${encodeURIComponent('Report Q3.pdf')}`)).status, 404);
  const get = await d.rest(bob, 'POST', '/v1/tools/browser_download_get', { file: 'Report Q3.pdf', as: 'file' });
  t.match(get, { status: 404, json: { error: { code: 'not_found' } } });
  const share = await d.rest(bob, 'POST', '/v1/tools/browser_download_link', { file: 'Report Q3.pdf' });
  t.match(share, { status: 404, json: { error: { code: 'not_found' } } });
  const mine = await d.rest(alice, 'POST', '/v1/tools/browser_downloads', {});
  t.same(mine.json.files.map((f: { name: string }) => f.name).sort(), ['Report Q3.pdf', 'other.csv']);
  t.match(mine.json.files.find((f: { name: string }) => f.name === 'Report Q3.pdf'), { size: secretPdf.length, mimeType: 'application/pdf', url: '/v1/files/Report%20Q3.pdf' });
});

t.test('GET /v1/files/{name} streams the exact bytes to the owner only, with the bearer', async (t) => {
  const res = await fetch(`${d.url}/v1/files/${encodeURIComponent('Report Q3.pdf')}`, { headers: { Authorization: `Bearer ${alice}` } });
  t.equal(res.status, 200);
  t.ok(Buffer.from(await res.arrayBuffer()).equals(secretPdf));
  t.equal(res.headers.get('content-disposition'), 'attachment; filename="Report Q3.pdf"');
  t.equal((await fetch(`${d.url}/v1/files/${encodeURIComponent('Report Q3.pdf')}`)).status, 401, 'no bearer: 401');
});

t.test('as: file past 15 MB is refused inline and pointed at its URL', async (t) => {
  await d.daemon.env.files.addBytes('alice', 'huge.bin', Buffer.alloc(15 * 1024 * 1024 + 1, 1));
  const r = await d.rest(alice, 'POST', '/v1/tools/browser_download_get', { file: 'huge.bin', as: 'file' });
  t.equal(r.status, 400);
  // The file's name is the page's word (a download's name), so its address is in details, not in our lines.
  t.match(r.json.error, { code: 'validation_error', next: /GET at its url \(details\.url/, details: { url: /\/v1\/files\/huge\.bin$/ } });
  t.notOk(JSON.stringify(r.json).includes('AQEBAQEB'), 'no bytes');
  const small = await d.rest(alice, 'POST', '/v1/tools/browser_download_get', { file: 'other.csv', as: 'file' });
  t.equal(small.status, 200);
  t.ok(Buffer.from(small.json.resources[0].data, 'base64').equals(otherFile), 'REST gets the bytes under resources');
  d.daemon.env.files.remove('alice', 'huge.bin');
});

t.test('BROWSERD_DOWNLOAD_LINK_TTL_S: any positive whole seconds; anything else refuses to start', async (t) => {
  const env = (v?: string) => ({ BROWSERD_DOWNLOAD_LINK_TTL_S: v });
  t.equal(loadConfig({}, {}).downloadLinkTtlS, 1800, 'default 30 minutes');
  t.equal(loadConfig({}, env('1')).downloadLinkTtlS, 1);
  t.equal(loadConfig({}, env('604800')).downloadLinkTtlS, 604800);
  for (const bad of ['0', '-5', '1.5', 'abc', '']) t.throws(() => loadConfig({}, env(bad)), /download-link-ttl-s/, `"${bad}" refused`);
  t.equal(loadConfig({}, {}).downloadMaxBytes, 1024 * 1024 * 1024, 'download cap default 1024 MB');
  t.equal(loadConfig({}, { BROWSERD_DOWNLOAD_MAX_MB: '5' }).downloadMaxBytes, 5 * 1024 * 1024);
  t.throws(() => loadConfig({}, { BROWSERD_DOWNLOAD_MAX_MB: '0' }), /download-max-mb/);
});
