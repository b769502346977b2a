/**
 * A HAR recording counts toward its user's storage quota (--max-storage-mb-per-user 1): a recording whose next
 * entries would pass the quota stops there with a note naming the flag, its file never passes the quota and
 * stays a valid HAR of the entries before; a start with no room left is refused with the storage quota's error.
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
