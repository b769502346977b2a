/**
 * Disabled means disabled, for the ways in that carry no bearer token: once `browserd user disable` has run, the
 * account's share link (/dl/…) answers 403 forbidden with no byte of the file, its SMS inbox's forwarding URL
 * answers 403 forbidden and stores nothing, and its running crawl starts no page (the fixture site's request log
 * stops growing). Another user's link still opens. Enabled again, all three work again: the link serves, the
 * inbox stores, the crawl goes on by itself.
 */
import t from 'tap';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { html, startSite, type FixtureSite } from '../fixtures/site.js';
import { startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';

const run = promisify(execFile);
const bin = new URL('../../bin/browserd.js', import.meta.url).pathname;

let d: TestDaemon;
let site: FixtureSite;
const PAGES = 60;
const fileBytes = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(64 * 1024)]);

t.before(async () => {
  site = await startSite();
  // A hub linking to many pages: the crawl reads them one at a time, delayMs apart.
  const links = Array.from({ length: PAGES }, (_, i) => `<a href="/p/${i + 1}">page ${i + 1}</a>`).join(' ');
  site.route('/p/0', html(`<h1>Hub</h1>${links}`));
  for (let i = 1; i <= PAGES; i++) site.route(`/p/${i}`, html(`<h1>Page ${i}</h1>`));
  d = await startTestDaemon();
});
t.teardown(async () => {
  await d.stop();
  await site.close();
});

const cli = (...args: string[]) => run(process.execPath, [bin, ...args, '--data', d.dataDir], { encoding: 'utf8' });
const pageRequests = () => site.requests.filter((r) => r.path.startsWith('/p/')).length;

async function shareLink(token: string, file: string): Promise<string> {
  const r = await d.rest(token, 'POST', '/v1/tools/browser_download_link', { file });
  if (r.status !== 200) throw new Error(JSON.stringify(r.json));
  return r.json.url;
}

/** The body as JSON, or undefined (a file served by mistake is not JSON). */
function jsonOf(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString());
  } catch {
    return undefined;
  }
}

async function sms(forwardUrl: string, secret: string, text: string) {
  const res = await fetch(forwardUrl, { method: 'POST', headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ from: '+15550100', text }) });
  return { status: res.status, json: (jsonOf(Buffer.from(await res.arrayBuffer())) ?? {}) as any };
}

t.test('a disabled account: share link, SMS inbox and running crawl all refuse; enabled again, all work', async (t) => {
  const daveToken = await d.addUser('dave');
  const erinToken = await d.addUser('erin');
  const env = d.daemon.env;
  await env.files.addBytes('dave', 'report.pdf', fileBytes);
  await env.files.addBytes('erin', 'other.pdf', fileBytes);
  const daveLink = await shareLink(daveToken, 'report.pdf');
  const erinLink = await shareLink(erinToken, 'other.pdf');
  const inbox = await d.rest(daveToken, 'PUT', '/v1/vault/phone', { kind: 'otp_inbox', sms: true });
  t.equal(inbox.status, 200);
  const { forwardUrl, secret } = inbox.json;

  // Everything works while the account is active.
  t.equal((await fetch(daveLink)).status, 200, 'the share link opens');
  t.equal((await sms(forwardUrl, secret, 'code 111111')).status, 202, 'the inbox takes a text');
  t.equal(env.smsInbox.list('dave', 'phone').length, 1);
  const started = await d.rest(daveToken, 'POST', '/v1/tools/browser_crawl', { startUrls: [`${site.url}/p/0`], mode: 'http', delayMs: 150, maxDepth: 1, maxPages: PAGES + 1, concurrency: 1 });
  t.equal(started.status, 200, JSON.stringify(started.json));
  const crawlId = started.json.id;
  await site.waitFor((r) => r.path === '/p/2');

  await cli('user', 'disable', 'dave');

  const dl = await fetch(daveLink);
  const dlBody = Buffer.from(await dl.arrayBuffer());
  t.equal(dl.status, 403, 'the share link is refused');
  t.match(jsonOf(dlBody), { ok: false, error: { code: 'forbidden', message: /disabled/ } });
  t.notOk(dlBody.includes(fileBytes.subarray(9, 41)), 'no byte of the file');
  t.equal((await fetch(erinLink)).status, 200, "another user's link still opens");

  const refusedSms = await sms(forwardUrl, secret, 'code 222222');
  t.equal(refusedSms.status, 403, 'the inbox refuses');
  t.equal(refusedSms.json.error?.code, 'forbidden');
  t.match(refusedSms.json.error?.message, /disabled.*not stored/);
  t.equal(env.smsInbox.list('dave', 'phone').length, 1, 'nothing stored');
  t.same(await sms(forwardUrl, 'wrong-secret', 'x').then((r) => r.status), 401, 'a wrong secret is still the plain 401');

  // The crawl finishes the page in flight, then starts none: its requests stop while time passes for several.
  await new Promise((r) => setTimeout(r, 600));
  const stoppedAt = pageRequests();
  await new Promise((r) => setTimeout(r, 1200));
  t.equal(pageRequests(), stoppedAt, 'the crawl starts no page while the account is disabled');
  t.equal(d.daemon.features.crawls.get('dave', crawlId)?.state, 'running', 'the crawl is kept, not ended');

  await cli('user', 'enable', 'dave');

  const back = await fetch(daveLink);
  t.equal(back.status, 200, 'the share link opens again');
  t.ok(Buffer.from(await back.arrayBuffer()).equals(fileBytes), 'with the exact bytes');
  t.equal((await sms(forwardUrl, secret, 'code 333333')).status, 202, 'the inbox takes texts again');
  t.equal(env.smsInbox.list('dave', 'phone').length, 2);
  await site.waitFor((r) => r.path === `/p/${stoppedAt}`, 15_000);
  t.pass('the crawl goes on by itself');
  await d.rest(daveToken, 'POST', `/v1/crawls/${crawlId}/cancel`, {});
});
