/**
 * Page downloads end to end over MCP against real Chromium: a click on a download link stores the file under
 * its Content-Disposition name (made safe), with size and MIME type; the same bytes again stay one file;
 * other bytes under the same name get -2; browser_log names what was stored; a download past the cap
 * (set tiny here) is cancelled and leaves nothing, in the files or the staging dir; downloads from a named
 * context land too. browser_download_get hands back the bytes, rows (CSV with quoted commas, xlsx by sheet,
 * limit cut with total) and text; its argument rules hold.
 */
import t from 'tap';
import { readdirSync } from 'node:fs';
import ExcelJS from 'exceljs';
import { call, refOf, type TestDaemon } from '../fixtures/daemon.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { html, type FixtureSite } from '../fixtures/site.js';
import type { DownloadOutcome } from '../../daemon/browser/downloads.js';
import { FILE_NAME } from '../../storage/files.js';

const CAP = 64 * 1024;
let stack: Stack;
let d: TestDaemon;
let site: FixtureSite;
let client: Client;

const report = Buffer.from('%PDF-1.4\n% the first report\n');
const report2 = Buffer.from('%PDF-1.4\n% a different report, same name\n');
const csv = 'name,city,note\n"Smith, Jane",Paris,"said ""hi"", twice"\nBob,Berlin,plain\n' + Array.from({ length: 40 }, (_, i) => `p${i},c${i},n${i}`).join('\n') + '\n';
let xlsx: Buffer;

function attachment(name: string, body: Buffer | string, type: string) {
  return (_req: unknown, res: import('node:http').ServerResponse) => {
    const b = Buffer.from(body);
    res.writeHead(200, { 'content-type': type, 'content-length': String(b.length), 'content-disposition': `attachment; filename="${name}"` });
    res.end(b);
  };
}

/** The next download this user's default browser settles (stored, too large, cancelled): the event, not a sleep. */
function nextDownload(profile?: string): Promise<DownloadOutcome> {
  const inst = d.daemon.env.pool.peek('alice', profile);
  if (!inst?.downloads) throw new Error(`no running browser with downloads for alice ${profile ?? ''}`);
  return new Promise((resolve) => inst.downloads!.once('settled', resolve));
}

async function clickDownload(label: RegExp, profile?: string): Promise<DownloadOutcome> {
  const snap = await call(client, 'browser_snapshot');
  const ref = refOf(snap.text, label);
  const settled = nextDownload(profile);
  const clicked = await call(client, 'browser_click', { ref });
  if (clicked.isError) throw new Error(clicked.text);
  return settled;
}

async function listed(): Promise<{ name: string; size: number; mimeType: string; url: string }[]> {
  // Over MCP a file's name is page text, fenced (the site chose it); REST gives the values as they are.
  const r = await call(client, 'browser_downloads');
  const names = (r.raw.structuredContent?.files ?? []).map((f: { name: string }) => f.name);
  if (names.some((n: string) => !/^<<<page [0-9a-f]{12} /.test(n))) throw new Error(`an unfenced file name over MCP: ${names.join(', ')}`);
  return (await stack.rest('browser_downloads')).json.files;
}

t.before(async () => {
  stack = await startStack({ downloadMaxBytes: CAP });
  ({ d, site, client } = stack);
  const wb = new ExcelJS.Workbook();
  const s1 = wb.addWorksheet('Summary');
  s1.addRow(['total', 3]);
  const s2 = wb.addWorksheet('Sales Q3');
  s2.addRow(['region', 'amount']);
  for (let i = 1; i <= 30; i++) s2.addRow([`region ${i}`, i * 100]);
  xlsx = Buffer.from(await wb.xlsx.writeBuffer());
  site.route('/files/report', attachment('Report Q3.pdf', report, 'application/pdf'));
  site.route('/files/report-v2', attachment('Report Q3.pdf', report2, 'application/pdf'));
  site.route('/files/data', attachment('data.csv', csv, 'text/csv'));
  site.route('/files/book', attachment('book.xlsx', xlsx, 'application/octet-stream'));
  site.route('/files/evil', attachment('../../.ssh/authorized_keys', 'not a key', 'text/plain'));
  // Announces 4x the cap and sends only half of it, then holds on: the download can never complete, so the
  // only way it ends is our cancel.
  site.route('/files/big', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(CAP * 4), 'content-disposition': 'attachment; filename="big.bin"' });
    res.write(Buffer.alloc(CAP * 2, 7));
  });
  site.route(
    '/downloads',
    html(`<h1>Downloads</h1>
      <a href="/files/report">Get the report</a>
      <a href="/files/report-v2">Get the revised report</a>
      <a href="/files/data">Get the data</a>
      <a href="/files/book">Get the workbook</a>
      <a href="/files/evil">Get the evil name</a>
      <a href="/files/big">Get the big file</a>`),
  );
  const open = await call(client, 'browser_open', { url: `${site.url}/downloads` });
  if (open.isError) throw new Error(open.text);
});
t.teardown(() => stack.stop());

t.test('a clicked download is stored once under its header name, with size and MIME type', async (t) => {
  const first = await clickDownload(/link "Get the report"/);
  t.match(first, { state: 'stored', file: { name: 'Report Q3.pdf', existing: false } });
  let files = await listed();
  t.match(files.find((f) => f.name === 'Report Q3.pdf'), { size: report.length, mimeType: 'application/pdf', url: '/v1/files/Report%20Q3.pdf' });
  const again = await clickDownload(/link "Get the report"/);
  t.match(again, { state: 'stored', file: { name: 'Report Q3.pdf', existing: true } });
  files = await listed();
  t.equal(files.filter((f) => f.name.startsWith('Report Q3')).length, 1, 'clicked twice: one file');
  const rest = await d.rest(stack.token, 'GET', '/v1/files/Report%20Q3.pdf');
  t.equal(rest.status, 200);

  const revised = await clickDownload(/link "Get the revised report"/);
  t.match(revised, { state: 'stored', file: { name: 'Report Q3-2.pdf', existing: false } });
  files = await listed();
  t.same(files.filter((f) => f.name.startsWith('Report Q3')).map((f) => f.name).sort(), ['Report Q3-2.pdf', 'Report Q3.pdf']);
  const bytes = await call(client, 'browser_download_get', { file: 'Report Q3-2.pdf', as: 'file' });
  const res = bytes.raw.content.find((c: { type: string }) => c.type === 'resource');
  t.ok(res, 'an embedded resource');
  t.equal(res.resource.mimeType, 'application/pdf');
  t.ok(Buffer.from(res.resource.blob, 'base64').equals(report2), 'as: file gives the exact bytes');

  const log = await call(client, 'browser_log');
  t.match(log.text, /download .*\/files\/report — stored in your files as "Report Q3.pdf"/);
  t.match(log.text, /same bytes already in your files as "Report Q3.pdf"/);
  t.match(log.text, /stored in your files as "Report Q3-2.pdf"/);
});

t.test('a page-chosen name cannot leave the files dir or hide as a dot file', async (t) => {
  const o = await clickDownload(/link "Get the evil name"/);
  t.equal(o.state, 'stored', JSON.stringify(o));
  const name = o.file!.name;
  t.ok(FILE_NAME.test(name) && !name.startsWith('.') && !name.includes('/') && !name.includes('..'), `a plain name in the files dir: ${name}`);
  t.match(name, /ssh_authorized_keys$/);
  t.ok((await listed()).some((f) => f.name === name), 'listed like any other file');
  t.ok(readdirSync(d.daemon.env.files.dir('alice')).includes(name), 'inside the user files dir');
});

t.test('a download past the cap is cancelled and nothing of it stays', async (t) => {
  const before = (await listed()).map((f) => f.name).sort();
  const o = await clickDownload(/link "Get the big file"/);
  t.equal(o.state, 'too_large');
  t.same((await listed()).map((f) => f.name).sort(), before, 'no new file');
  const files = d.daemon.env.files;
  t.same(readdirSync(files.stagingDir('alice', 'default')), [], 'the staging dir is empty');
  t.notOk(readdirSync(files.dir('alice')).some((n) => n.includes('big')), 'nothing of it in the files dir');
  const log = await call(client, 'browser_log');
  t.match(log.text, /\/files\/big — not stored: larger than the download limit \(65536 bytes\), so it was cancelled/);
});

t.test('a tab in a named context downloads into the same files', async (t) => {
  const open = await call(client, 'browser_open', { url: `${site.url}/downloads`, context: 'work' });
  t.notOk(open.isError, open.text);
  const o = await clickDownload(/link "Get the data"/);
  t.match(o, { state: 'stored', file: { name: 'data.csv', mimeType: 'text/csv' } });
  const wb = await clickDownload(/link "Get the workbook"/);
  t.match(wb, { state: 'stored', file: { name: 'book.xlsx', mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' } });
});

t.test('a named profile (a browser of its own) downloads into the same files, once', async (t) => {
  const open = await call(client, 'browser_open', { url: `${site.url}/downloads`, profile: 'side' });
  t.notOk(open.isError, open.text);
  const o = await clickDownload(/link "Get the report"/, 'side');
  t.match(o, { state: 'stored', file: { name: 'Report Q3.pdf', existing: true } }, 'the same bytes from another browser: still one file');
  t.same(readdirSync(d.daemon.env.files.stagingDir('alice', 'profile-side')), [], "the profile's staging dir is empty");
});

t.test('download_get argument rules and unknown files', async (t) => {
  const missing = await call(client, 'browser_download_get', { file: 'nope.pdf' });
  t.ok(missing.isError);
  t.match(missing.text, /not_found.*nope\.pdf/s);
  const sheetWithText = await call(client, 'browser_download_get', { file: 'data.csv', sheet: 'x' });
  t.match(sheetWithText.text, /validation_error.*as: "rows"/s);
  const limitWithFile = await call(client, 'browser_download_get', { file: 'data.csv', as: 'file', limit: 5 });
  t.match(limitWithFile.text, /validation_error/);
  const badLimit = await call(client, 'browser_download_get', { file: 'data.csv', as: 'rows', limit: 20001 });
  t.match(badLimit.text, /validation_error/);
  const link = await call(client, 'browser_download_link', { file: 'data.csv' });
  t.notOk(link.isError, link.text);
  const url = link.raw.structuredContent?.url ?? /(http:\/\/\S+\/dl\/\S+)/.exec(link.text)![1];
  const res = await fetch(url);
  t.equal(await res.text(), csv, 'the link of a downloaded file gives its bytes, no bearer');
});

// These read through the lead's converters (daemon/docs/convert.ts, rows.ts): they pass once those land.
t.test('rows of a CSV with quoted commas, cut at a limit with the total', async (t) => {
  const r = await stack.rest('browser_download_get', { file: 'data.csv', as: 'rows', limit: 3 });
  t.equal(r.status, 200, JSON.stringify(r.json).slice(0, 300));
  t.same(r.json.rows, [['name', 'city', 'note'], ['Smith, Jane', 'Paris', 'said "hi", twice'], ['Bob', 'Berlin', 'plain']]);
  t.equal(r.json.total, 43);
  t.equal(r.json.truncated, true);
  const all = await stack.rest('browser_download_get', { file: 'data.csv', as: 'rows' });
  t.equal(all.json.rows.length, 43);
  t.equal(all.json.truncated, false);
});

t.test('rows of an xlsx sheet by name; an unknown sheet is not_found naming the sheets', async (t) => {
  const first = await stack.rest('browser_download_get', { file: 'book.xlsx', as: 'rows' });
  t.equal(first.status, 200, JSON.stringify(first.json).slice(0, 300));
  t.same(first.json.sheets, ['Summary', 'Sales Q3']);
  t.equal(first.json.sheet, 'Summary');
  const sales = await stack.rest('browser_download_get', { file: 'book.xlsx', as: 'rows', sheet: 'Sales Q3', limit: 5 });
  t.same(sales.json.rows[0], ['region', 'amount']);
  t.same(sales.json.rows[1], ['region 1', '100']);
  t.equal(sales.json.total, 31);
  t.equal(sales.json.truncated, true);
  const unknown = await call(client, 'browser_download_get', { file: 'book.xlsx', as: 'rows', sheet: 'Nope' });
  t.ok(unknown.isError);
  t.match(unknown.text, /not_found.*"Summary", "Sales Q3"/s);
});

t.test('as text: the document converted, fenced', async (t) => {
  const r = await call(client, 'browser_download_get', { file: 'data.csv' });
  t.notOk(r.isError, r.text);
  t.match(r.text, /<<<page \w+ source="the file as Markdown">>>\nfile: data\.csv\n/, 'the name is the page\'s: it heads the fenced text');
  t.match(r.text, /Smith, Jane/);
});
