/**
 * The common CDP clients drive a timed CDP session as they would a local Chromium: Playwright's connectOverCDP,
 * Puppeteer's connect and chrome-remote-interface each open a page, load a loopback fixture page, click a
 * button and read what it changed. A page a client opens is one of the user's tabs (browser_tabs lists it) and
 * keeps the user's rules. What clients send at connect is accepted, but a download path a client names is never
 * used: the file lands in the user's files, not there. chrome:// and file:// pages stay out of reach.
 */
import { namedExample } from '../fixtures/doc-blocks.js';
import t from 'tap';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import CDP from 'chrome-remote-interface';
import { startStack, type Stack } from '../fixtures/stack.js';
import { call } from '../fixtures/daemon.js';
import { html } from '../fixtures/site.js';
import type { DownloadOutcome } from '../../daemon/browser/downloads.js';

let stack: Stack;

/** A page whose button changes its text: each client clicks it and reads the change. */
const CLICKER = html(
  '<button id="go" style="position:absolute;left:20px;top:20px;width:120px;height:40px" onclick="document.getElementById(\'out\').textContent = \'clicked\'">Go</button><p id="out" style="margin-top:100px">not yet</p>',
  '',
  'Clicker',
);

t.before(async () => {
  stack = await startStack();
  stack.site.route('/clicker', CLICKER);
  stack.site.route('/get', html('<a id="dl" href="/report.txt" download="report.txt">report</a>', '', 'Download'));
  stack.site.route('/report.txt', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-disposition': 'attachment; filename="report.txt"' });
    res.end('report bytes from the fixture site\n');
  });
});
t.teardown(() => stack.stop());

async function startSession() {
  const r = await call(stack.client, 'browser_sessions', { action: 'start', minutes: 10 });
  if (r.isError) throw new Error(r.text);
  return { id: /CDP session (cdp_[0-9a-f]{16})/.exec(r.text)![1]!, cdpUrl: /Connect a CDP client to: (\S+)/.exec(r.text)![1]! };
}

const stopSession = (id: string) => call(stack.client, 'browser_sessions', { action: 'stop', id });

/** The URLs of the user's tabs, as browser_tabs lists them. */
async function tabUrls(): Promise<string[]> {
  const r = await stack.rest('browser_tabs');
  return (r.json.tabs as { url: string }[]).map((x) => x.url);
}

t.test('Playwright connectOverCDP opens a page, clicks and reads the change', async (t) => {
  const s = await startSession();
  const browser = await chromium.connectOverCDP(s.cdpUrl);
  t.teardown(() => browser.close().catch(() => undefined));
  const context = browser.contexts()[0]!;
  t.ok(context, 'the user\'s browser shows its default context');
  const page = await context.newPage();
  await page.goto(`${stack.site.url}/clicker?pw`);
  t.equal(await page.textContent('#out'), 'not yet');
  await page.click('#go');
  t.equal(await page.textContent('#out'), 'clicked', 'the click changed the page');
  t.ok((await tabUrls()).includes(`${stack.site.url}/clicker?pw`), 'browser_tabs lists the page Playwright opened');
  await page.close();
  await browser.close();
  await stopSession(s.id);
});

t.test('Puppeteer connect opens a page, clicks and reads the change', async (t) => {
  // The user's rules hold in the client's page: a site they blocked is not loaded.
  await stack.d.daemon.env.policies.upsert('alice', { pattern: 'blocked.test', access: 'blocked' });
  t.teardown(() => stack.d.daemon.env.policies.remove('alice', 'blocked.test'));
  const s = await startSession();
  const browser = await puppeteer.connect({ browserWSEndpoint: s.cdpUrl, defaultViewport: null });
  t.teardown(() => browser.disconnect().catch(() => undefined));
  const page = await browser.newPage();
  const response = await page.goto(`${stack.site.url}/clicker?pptr`);
  t.equal(response?.status(), 200, 'the navigation finished');
  await page.click('#go');
  t.equal(await page.$eval('#out', (e) => e.textContent), 'clicked', 'the click changed the page');
  t.ok((await tabUrls()).includes(`${stack.site.url}/clicker?pptr`), 'browser_tabs lists the page Puppeteer opened');

  const before = stack.site.requests.length;
  await t.rejects(page.goto(`http://blocked.test:${stack.site.port}/clicker`), /ERR_BLOCKED_BY_CLIENT/, 'a blocked site is refused in the client\'s page');
  t.notOk(stack.site.requests.slice(before).some((r) => r.headers.host?.startsWith('blocked.test')), 'nothing reached the blocked site');
  await page.close();
  await browser.disconnect();
  await stopSession(s.id);
});

t.test('chrome-remote-interface opens a page, clicks with the mouse and reads the change', async (t) => {
  const s = await startSession();
  const client = await CDP({ target: s.cdpUrl, local: true });
  t.teardown(() => client.close().catch(() => undefined));
  const { targetId } = await client.Target.createTarget({ url: 'about:blank' });
  const { sessionId } = await client.Target.attachToTarget({ targetId, flatten: true });
  await client.send('Page.enable', undefined, sessionId);
  const loaded = new Promise((resolve) => client.on(`Page.loadEventFired.${sessionId}` as any, resolve));
  await client.send('Page.navigate', { url: `${stack.site.url}/clicker?cri` }, sessionId);
  await loaded;
  const box: any = await client.send('Runtime.evaluate', { expression: 'JSON.stringify(document.querySelector("#go").getBoundingClientRect())', returnByValue: true }, sessionId);
  const r = JSON.parse(box.result.value);
  const at = { x: r.x + r.width / 2, y: r.y + r.height / 2 };
  await client.send('Input.dispatchMouseEvent', { type: 'mousePressed', button: 'left', clickCount: 1, ...at }, sessionId);
  await client.send('Input.dispatchMouseEvent', { type: 'mouseReleased', button: 'left', clickCount: 1, ...at }, sessionId);
  const out: any = await client.send('Runtime.evaluate', { expression: 'document.querySelector("#out").textContent', returnByValue: true }, sessionId);
  t.equal(out.result.value, 'clicked', 'the click changed the page');
  t.ok((await tabUrls()).includes(`${stack.site.url}/clicker?cri`), 'browser_tabs lists the page the client opened');
  await client.Target.closeTarget({ targetId });
  await client.close();
  await stopSession(s.id);
});

t.test('a download path a client names is not written: the file lands in the user\'s files', async (t) => {
  const outside = mkdtempSync(join(tmpdir(), 'browserd-cdp-outside-'));
  t.teardown(() => rmSync(outside, { recursive: true, force: true }));
  const s = await startSession();
  const client = await CDP({ target: s.cdpUrl, local: true });
  t.teardown(() => client.close().catch(() => undefined));
  // What Playwright sends at connect, with a directory on the daemon's host the client chose.
  await client.send('Browser.setDownloadBehavior', { behavior: 'allowAndName', downloadPath: outside, eventsEnabled: true });
  const { targetId } = await client.Target.createTarget({ url: 'about:blank' });
  const { sessionId } = await client.Target.attachToTarget({ targetId, flatten: true });
  await client.send('Page.enable', undefined, sessionId);
  const loaded = new Promise((resolve) => client.on(`Page.loadEventFired.${sessionId}` as any, resolve));
  await client.send('Page.navigate', { url: `${stack.site.url}/get` }, sessionId);
  await loaded;
  const settled = once(stack.d.daemon.env.pool.events, 'download') as Promise<[string, DownloadOutcome]>;
  const progress = new Promise<any>((resolve) => client.on('Browser.downloadProgress', (p: any) => p.state !== 'inProgress' && resolve(p)));
  await client.send('Runtime.evaluate', { expression: 'document.querySelector("#dl").click(); 1', userGesture: true }, sessionId);
  const [user, outcome] = await settled;
  t.equal(user, 'alice');
  t.equal(outcome.state, 'stored', 'the daemon stored the download');
  t.equal((await progress).state, 'completed', 'the client heard its download complete');
  t.same(readdirSync(outside), [], 'nothing was written where the client asked');
  const stored = stack.d.daemon.env.files.read('alice', outcome.file!.name);
  t.equal(String(stored), 'report bytes from the fixture site\n', 'the file is in the user\'s files');
  // Relative escapes and Chromium's own default (the host's Downloads folder) are taken the same way.
  await client.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: '../../elsewhere' });
  await client.send('Browser.setDownloadBehavior', { behavior: 'default' });
  await client.Target.closeTarget({ targetId });
  await client.close();
  await stopSession(s.id);
  // Chromium drops a context's download setting when the session that set it goes: the daemon's own is back,
  // and a download from one of its tabs still lands in the user's files.
  const again = once(stack.d.daemon.env.pool.events, 'download') as Promise<[string, DownloadOutcome]>;
  await stack.rest('browser_open', { url: `${stack.site.url}/report.txt` });
  const [, later] = await again;
  t.equal(later.state, 'stored', 'after the client left, a tab\'s download is still stored in the user\'s files');
  t.same(readdirSync(outside), [], 'and nothing was written where the client had asked');
});

t.test('Playwright through the session still cannot open chrome:// or file:// pages', async (t) => {
  const s = await startSession();
  const browser = await chromium.connectOverCDP(s.cdpUrl);
  t.teardown(() => browser.close().catch(() => undefined));
  const page = await browser.contexts()[0]!.newPage();
  for (const url of ['chrome://version', 'chrome://settings', 'file:///etc/passwd']) {
    await t.rejects(page.goto(url), /browserd refuses/, `${url} is refused`);
  }
  const other = await browser.contexts()[0]!.newPage();
  t.notMatch(other.url(), /^(chrome|file):/);
  t.notOk(browser.contexts()[0]!.pages().some((p) => /^(chrome|file):/.test(p.url())), 'no page of the client is on one');
  await browser.close();
  await stopSession(s.id);
});

t.test("the docs' Playwright program runs as written, on plain Node", async (t) => {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const block = namedExample('cdp.mjs').text;
  t.match(block, /^\/\/ cdp\.mjs:/, 'the docs show a whole Playwright program (cdp.mjs)');
  // Under the repository, so `import 'playwright-core'` resolves as in a project that installed it.
  mkdirSync(join(root, 'scratch'), { recursive: true });
  const dir = mkdtempSync(join(root, 'scratch', 'readme-cdp-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'cdp.mjs'), block);
  const { NODE_OPTIONS: _, ...env } = process.env;
  const run = await promisify(execFile)(process.execPath, [join(dir, 'cdp.mjs'), `${stack.site.url}/clicker?readme`], {
    env: { ...env, BROWSERD_URL: stack.d.url, BROWSERD_TOKEN: stack.token },
    encoding: 'utf8',
    timeout: 60_000,
  });
  t.equal(run.stdout.trim(), 'Clicker', 'it printed the title of the page it opened');
  t.notOk((await tabUrls()).includes(`${stack.site.url}/clicker?readme`), 'the page it closed is gone from browser_tabs');
  const list = await call(stack.client, 'browser_sessions', { action: 'list' });
  t.match(list.text, /No CDP sessions open/, 'and it stopped its session');
});
