/**
 * What a browser writes counts toward its user's storage quota (--max-storage-mb-per-user 1). A HAR recording
 * whose next entries would pass the quota stops there with a note naming the flag, its file never passes the
 * quota and stays a valid HAR of the entries before; a HAR start with no room left is refused with the storage
 * quota's error. A browser_record recording whose next step (with its JPEG, kept in the store) would pass the
 * quota stops there (storage_quota), keeping the steps before; a new one at the quota is refused.
 */
import t from 'tap';
import { statSync } from 'node:fs';
import { startStack, type Stack } from '../fixtures/stack.js';
import { html } from '../fixtures/site.js';
import { loadConfig } from '../../daemon/config.js';
import { harRecordings } from '../../daemon/traffic/har-recordings.js';

const MB = 1024 * 1024;
const BLOB = 300 * 1024;
let s: Stack;

t.before(async () => {
  s = await startStack({ quotas: loadConfig({ listen: '127.0.0.1:0', 'max-storage-mb-per-user': '1' }).quotas });
  s.site.route('/start', html('<h1>Start</h1>'));
  // Six text answers of 300 KB: together far past the 1 MB quota.
  s.site.route(
    '/blobs',
    html(`<h1>Blobs</h1><script>(async () => {
      for (let i = 0; i < 6; i++) await (await fetch('/blob?i=' + i)).text();
      const d = document.createElement('p'); d.id = 'done'; d.textContent = 'done'; document.body.append(d);
    })();</script>`),
  );
  s.site.route('/blob', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('x'.repeat(BLOB));
  });
});
t.teardown(() => s.stop());

const tool = (name: string, args: Record<string, unknown> = {}) => s.d.rest(s.token, 'POST', `/v1/tools/${name}`, args);

t.test('a recording that would pass the storage quota stops there; what it kept is a valid HAR within the quota', async (t) => {
  const tab = (await tool('browser_open', { url: `${s.site.url}/start` })).json.tab;
  const started = await tool('browser_har', { action: 'start', tab, bodies: 'text', maxBodyBytes: MB });
  t.equal(started.status, 200, JSON.stringify(started.json));
  t.equal((await tool('browser_navigate', { tab, url: `${s.site.url}/blobs` })).status, 200);
  const waited = await tool('browser_wait', { tab, selector: '#done', timeoutMs: 30_000 });
  t.equal(waited.status, 200, JSON.stringify(waited.json).slice(0, 300));
  // The last answer's entry is written once its body is read: ask until the recording has had all six.
  let har: any;
  for (;;) {
    const sum = await tool('browser_har', { tab });
    har = sum.json.har;
    if (har.state !== 'recording' || har.entries + har.dropped >= 7) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  t.equal(har.state, 'stopped', 'the recording stopped by itself');
  t.equal(har.stopReason, 'storage_quota');
  t.match(har.note, '--max-storage-mb-per-user', 'the note names the flag');
  t.ok(har.entries >= 1 && har.entries < 7, `some entries kept (${har.entries})`);
  const summary = await tool('browser_har', { tab });
  t.match(summary.json.text ?? JSON.stringify(summary.json), '--max-storage-mb-per-user', 'the summary says why');

  const me = (await s.d.rest(s.token, 'GET', '/v1/me')).json;
  t.ok(me.usage.storageBytes <= MB, `the stored bytes stay within the quota (${me.usage.storageBytes})`);
  const rest = await s.d.rest(s.token, 'GET', `/v1/tabs/${tab}/har`);
  t.equal(rest.status, 200);
  t.equal(rest.json.log.entries.length, har.entries, 'the HAR holds the entries written, each whole');
  t.ok(rest.json.log.entries.every((e: any) => e.request.url.startsWith(s.site.url)));

  // Another request on the tab now changes nothing: the recording is stopped.
  const before = statSync(harFile()).size;
  await tool('browser_navigate', { tab, url: `${s.site.url}/start` });
  t.equal(statSync(harFile()).size, before, 'nothing more is written');
});

/** The file of alice's one HAR recording. */
function harFile(): string {
  for (const tb of s.d.daemon.env.tabs.list('alice')) {
    const r = harRecordings(s.d.daemon.env).get('alice', tb.id);
    if (r) return r.file;
  }
  throw new Error('no HAR file');
}

t.test('a start with no room left is refused with the storage quota error', async (t) => {
  const used = (await s.d.rest(s.token, 'GET', '/v1/me')).json.usage.storageBytes;
  // Fill the rest of the quota with a file of the exact size.
  const room = MB - used;
  const fill = await tool('browser_convert', { base64: Buffer.from('y'.repeat(room)).toString('base64'), name: 'fill.txt', store: true, maxChars: 100 });
  t.equal(fill.status, 200, JSON.stringify(fill.json).slice(0, 300));
  const tab = (await tool('browser_open', { url: `${s.site.url}/start` })).json.tab;
  const refused = await tool('browser_har', { action: 'start', tab });
  t.equal(refused.status, 403, JSON.stringify(refused.json).slice(0, 300));
  t.equal(refused.json.error.code, 'refused');
  t.match(refused.json.error.message, '--max-storage-mb-per-user');
  t.match(refused.json.error.details, { quota: 'storageBytes', flag: '--max-storage-mb-per-user' });
  t.equal((await tool('browser_har', { tab })).json.har.state, 'none', 'no recording was made');
  t.equal((await s.d.rest(s.token, 'DELETE', '/v1/files/fill.txt')).status, 200);
  t.equal((await tool('browser_har', { action: 'start', tab })).status, 200, 'with room again it starts');
});

t.test('a browser_record recording stops where its next step would pass the quota; at the quota none starts', async (t) => {
  // The HAR files of the tests above go: the room left is the filler's to set.
  for (const tb of s.d.daemon.env.tabs.list('alice')) await tool('browser_har', { action: 'delete', tab: tb.id });
  const tab = (await tool('browser_open', { url: `${s.site.url}/start` })).json.tab;
  const me = async () => (await s.d.rest(s.token, 'GET', '/v1/me')).json.usage;
  // Leave about 150 KB: a few steps with their JPEGs.
  const fill = await tool('browser_convert', { base64: Buffer.from('z'.repeat(MB - (await me()).storageBytes - 150 * 1024)).toString('base64'), name: 'fill2.txt', store: true, maxChars: 100 });
  t.equal(fill.status, 200, JSON.stringify(fill.json).slice(0, 300));
  const started = await tool('browser_record', { action: 'start', tab });
  t.equal(started.status, 200, JSON.stringify(started.json).slice(0, 300));
  const id = started.json.recording.id;
  let rec: any;
  for (let i = 0; i < 200; i++) {
    await tool('browser_navigate', { tab, url: `${s.site.url}/blobs?i=${i}` });
    rec = (await tool('browser_record', { action: 'get', id })).json.recording;
    if (rec.state !== 'recording') break;
  }
  t.equal(rec.state, 'stopped', 'the recording stopped by itself');
  t.equal(rec.stopReason, 'storage_quota');
  t.match(rec.note, '--max-storage-mb-per-user', 'the note names the flag');
  t.ok(rec.steps >= 1, `the steps before are kept (${rec.steps})`);
  const usage = await me();
  t.ok(usage.storageBytes <= MB, `within the quota (${usage.storageBytes})`);
  t.ok(usage.storage.records > 0, 'the steps count, as records');

  // At the quota: fill what is left, and a new recording is refused.
  const rest = MB - usage.storageBytes;
  if (rest > 0) await tool('browser_convert', { base64: Buffer.from('q'.repeat(rest)).toString('base64'), name: 'fill3.txt', store: true, maxChars: 100 });
  const refused = await tool('browser_record', { action: 'start', tab });
  t.equal(refused.status, 403, JSON.stringify(refused.json).slice(0, 300));
  t.match(refused.json.error?.details, { quota: 'storageBytes', flag: '--max-storage-mb-per-user' });
  t.equal((await tool('browser_record', { action: 'list' })).json.recordings.length, 1, 'no recording was made');
  // Deleting the recording gives its bytes back.
  t.equal((await tool('browser_record', { action: 'delete', id })).status, 200);
  t.equal((await me()).storage.records, 0, 'a deleted recording weighs nothing');
});
