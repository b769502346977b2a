/**
 * Nothing filled from the vault rests outside the sealed vault (issue 33): Chromium once kept an api_key and a
 * password typed into a text field in the profile's autofill table (Default/Web Data) and the POST body in
 * session restore (Default/Sessions/). Here vault values are filled into an act tab on the loopback site (a
 * password into a password field, and an api_key and the password into text fields), the forms are sent by
 * POST, the tab is closed and the browser stopped cleanly so Chromium writes what it keeps; then every file of
 * the profile is read as bytes and searched for both values in UTF-8 and UTF-16, raw and form-encoded.
 */
import t from 'tap';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call as rawCall, refOf, startTestDaemon, type TestDaemon } from '../fixtures/daemon.js';
import { html, startSite, type FixtureSite } from '../fixtures/site.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

const PASSWORD = 'RestCanaryPw4xQ9zLm2';
const API_KEY = 'RestCanaryKey7hT3vWp8';

let d: TestDaemon;
let site: FixtureSite;
let client: Client;
const dataDir = mkdtempSync(join(tmpdir(), 'browserd-at-rest-'));

const call = (name: string, args: Record<string, unknown> = {}) => rawCall(client, name, args);
const tabOf = (text: string) => /\b(t\d+)\b/.exec(text)![1];
const at = (path: string) => `http://act.test:${site.port}${path}`;

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/** Where each value's bytes sit in the profile: UTF-8 and UTF-16LE/BE, as typed and form-encoded. */
function findAtRest(profile: string, values: string[]): string[] {
  const needles = values.flatMap((v) => [v, encodeURIComponent(v)]).flatMap((v) => [
    { v, bytes: Buffer.from(v, 'utf8') },
    { v, bytes: Buffer.from(v, 'utf16le') },
    { v, bytes: Buffer.from(v, 'utf16le').swap16() },
  ]);
  const found: string[] = [];
  for (const file of filesUnder(profile)) {
    let buf: Buffer;
    try {
      buf = readFileSync(file);
    } catch {
      continue;
    }
    for (const n of needles) if (buf.includes(n.bytes)) found.push(`${file.slice(profile.length + 1)} holds ${n.v === PASSWORD || n.v === encodeURIComponent(PASSWORD) ? 'the password' : 'the api_key'}`);
  }
  return [...new Set(found)];
}

t.before(async () => {
  site = await startSite();
  // Plain forms as sites write them: no autocomplete hints that would keep Chromium from saving.
  site.route('/key', html(`<h1>API settings</h1><form method="post" action="/save">
    <label>API key <input name="api_key"></label>
    <label>Passphrase <input name="passphrase"></label>
    <button type="submit">Save key</button></form>`, '', 'Key'));
  site.route('/login', html(`<h1>Sign in</h1><form method="post" action="/save">
    <label>Email <input name="email" type="email"></label>
    <label>Password <input type="password" name="password"></label>
    <button type="submit">Sign in</button></form>`, '', 'Sign in'));
  site.route('/save', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html('<p>Saved.</p>', '', 'Saved'));
  });
  d = await startTestDaemon({}, { keepDataDir: dataDir });
  const token = await d.addUser('alice');
  client = await d.mcp(token);
  const put = await d.rest(token, 'PUT', '/v1/vault/act.test', { fields: { password: PASSWORD, api_key: API_KEY, email: 'alice@act.test' } });
  if (put.status !== 200) throw new Error(JSON.stringify(put.json));
});

t.teardown(async () => {
  await site.close();
  rmSync(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

async function fillAndSend(path: string, fills: [RegExp, string][], button: RegExp) {
  const tab = tabOf((await call('browser_open', { url: at(path), mode: 'act' })).text);
  const snap = (await call('browser_snapshot', { tab })).text;
  for (const [label, field] of fills) {
    const r = await call('browser_fill_secret', { tab, ref: refOf(snap, label), site: 'act.test', field });
    if (r.isError) throw new Error(r.text);
  }
  const posts = site.writes().length;
  await call('browser_click', { tab, ref: refOf(snap, button) });
  await site.waitFor((q) => q.method === 'POST' && q.path === '/save' && site.writes().length > posts);
  // The page after the POST is loaded: its entry (with the body) is what session restore would keep.
  await call('browser_wait', { tab, text: 'Saved.' }).catch(() => undefined);
  return tab;
}

t.test('no vault value rests in the profile after fills, POSTs, a closed tab and a clean stop', async (t) => {
  const keyTab = await fillAndSend('/key', [[/textbox "API key"/, 'api_key'], [/textbox "Passphrase"/, 'password']], /button "Save key"/);
  const loginTab = await fillAndSend('/login', [[/textbox "Email"/, 'email'], [/textbox "Password"/, 'password']], /button "Sign in"/);
  const sent = site.writes().map((q) => q.body).join('\n');
  t.ok(sent.includes(API_KEY) && sent.includes(PASSWORD), 'the values did reach the site (so the browser held them)');
  await call('browser_close_tab', { tab: keyTab });
  await call('browser_close_tab', { tab: loginTab });
  // A clean stop: Browser.close, then Chromium writes its profile and exits on its own.
  await d.stop();
  const profile = join(dataDir, 'profiles', 'alice', 'default');
  t.ok(filesUnder(profile).length > 0, 'the profile was written');
  t.same(findAtRest(profile, [PASSWORD, API_KEY]), [], 'no file of the profile holds either value');
});
